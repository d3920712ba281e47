// Package kafkatoxic is a toxiproxy (v2.12.0) toxic that reads Kafka's framing
// and acts on chosen frames: hold, delay, drop, reset or capture the frames of
// one API key (optionally only the nth of them).
//
// A toxiproxy toxic sees one direction of one connection as a stream of
// chunks. Kafka frames are a 4-byte big-endian size and that many bytes; a
// request's header starts with int16 api key, int16 api version, int32
// correlation id; a response's with the correlation id only. The toxic finds
// the frame boundaries in the stream (frames split across chunks and several
// frames within one chunk alike), reads each header and decides per frame.
//
// # Requests only, by design
//
// The api key is matched on requests: put the toxic on the upstream stream
// (client to broker). A response does not carry its api key, and toxiproxy
// gives a toxic no identity of the connection it runs on (a toxic's Pipe gets
// only a ToxicStub; the upstream and downstream stubs of one connection share
// nothing, and a toxic added while connections are open gets its per-link
// state in parallel, in no particular order). Pairing a response with its
// request would mean guessing the connection from correlation ids, which
// every client starts at 0 on every connection. So on the downstream stream
// the toxic only acts on every response or the nth response (api key
// AnyAPIKey); a lost response is made on the request side instead (hold the
// request's connection after the request, or reset it).
//
// # Actions
//
//   - hold: from the matching frame on, nothing on that connection's direction
//     is forwarded; it is buffered, in order, until the toxic is released
//     (Toxic.Release, the "release" attribute through the HTTP API) or
//     removed, and then forwarded. If the sender closes the connection while
//     its bytes are held, they are discarded, as a partitioned network would
//     lose what a crashed sender had in flight: this is what keeps case 4
//     (coordinator-crash-after-endtxn) honest, where the held WriteTxnMarkers
//     of a killed coordinator must never reach the partition leaders.
//   - delay: like hold, until the matching frame's arrival plus the delay.
//   - drop: the matching frame is swallowed; the connection stays up.
//   - reset: the connection is closed (both directions) when the matching
//     frame arrives; the frame is not forwarded.
//   - capture: the matching frame is forwarded and a copy kept (Status,
//     Captures), e.g. to replay an EndTxn later on a raw connection (Replay).
//
// Release heals the toxic: open holds and delays are let go, and from then on
// the toxic only counts frames.
//
// # Counting and proof
//
// Matches are counted per toxic, that is per proxy and toxic name, across all
// connections: Nth counts matching frames through that toxic from 1. Status
// reports how many frames matched, how many times the action fired and when
// it first and last fired, so a fault can prove that it fired. Through the
// HTTP API, GET /proxies/{proxy}/toxics/{name} returns the same status under
// the attributes' "status" key (ParseShown reads it).
//
// # Caveats
//
//   - A toxic added while a frame is half-way through a connection starts
//     parsing in the middle of that frame. Such a connection usually shows a
//     size or key that cannot be Kafka's and is passed through unparsed from
//     then on (Status.Desynced); add toxics while the links are idle, as
//     inter-broker and client links mostly are between requests.
//   - Nth counts across connections, so a retry on a new connection is the
//     next occurrence: to hold WriteTxnMarkers through a coordinator's
//     request timeout and reconnect, hold every occurrence (Nth 0).
//   - A replayed EndTxn right after its own commit is a retry by KIP-890's
//     rules (epoch one behind, same outcome) and succeeds; it is fenced
//     (PRODUCER_FENCED on kfake) once a newer transaction of that producer
//     began or ended. late-endtxn must replay after that.
//
// # Contract with toxiproxy
//
// Pipe returns promptly on stub.Interrupt without losing data: its bytes in
// flight, its held bytes and a partly read header stay in the per-connection
// state and are picked up by the next Pipe (an update, or a toxic added
// behind this one), or are flushed in order by Cleanup when the toxic is
// removed. Toxicity must be 1: toxiproxy runs a noop toxic instead on
// the other runs, which would forward a partly read header out of order.
package kafkatoxic
