package kip1289

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// API names as reports and errors spell them.
const (
	NameAddShareAcksToTxn   = "AddShareAcksToTxn"
	NameTxnShareAcknowledge = "TxnShareAcknowledge"
)

// APIKeys are the API keys the two RPCs are sent with. Upstream has not
// allocated them (93 and 94 are taken in Kafka 4.4), so they come from
// configuration; DefaultAPIKeys are placeholders.
type APIKeys struct {
	AddShareAcksToTxn   int16 `json:"add_share_acks_to_txn"`
	TxnShareAcknowledge int16 `json:"txn_share_acknowledge"`
}

// DefaultAPIKeys are the placeholder keys 12890 and 12891.
func DefaultAPIKeys() APIKeys {
	return APIKeys{
		AddShareAcksToTxn:   wire.DefaultAddShareAcksToTxnKey,
		TxnShareAcknowledge: wire.DefaultTxnShareAcknowledgeKey,
	}
}

// orDefault fills zero keys with the defaults, so a zero APIKeys means "the
// placeholders".
func (k APIKeys) orDefault() APIKeys {
	d := DefaultAPIKeys()
	if k.AddShareAcksToTxn == 0 {
		k.AddShareAcksToTxn = d.AddShareAcksToTxn
	}
	if k.TxnShareAcknowledge == 0 {
		k.TxnShareAcknowledge = d.TxnShareAcknowledge
	}
	return k
}

// Validate refuses keys that would make kgo send one of Kafka's own requests
// under our name: negative, equal, or a key franz-go already knows.
func (k APIKeys) Validate() error {
	k = k.orDefault()
	var errs []error
	known := kversion.Tip()
	for _, a := range []struct {
		name string
		key  int16
	}{{NameAddShareAcksToTxn, k.AddShareAcksToTxn}, {NameTxnShareAcknowledge, k.TxnShareAcknowledge}} {
		switch {
		case a.key < 0:
			errs = append(errs, fmt.Errorf("%s key %d is negative", a.name, a.key))
		case known.HasKey(a.key):
			errs = append(errs, fmt.Errorf("%s key %d is an existing Kafka API", a.name, a.key))
		}
	}
	if k.AddShareAcksToTxn == k.TxnShareAcknowledge {
		errs = append(errs, fmt.Errorf("both APIs have key %d", k.AddShareAcksToTxn))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("validate api keys: %w", err)
	}
	return nil
}

// Describe names the API behind key as errors and reports spell it:
// "AddShareAcksToTxn (key 12890)".
func (k APIKeys) Describe(key int16) string {
	k = k.orDefault()
	switch key {
	case k.AddShareAcksToTxn:
		return fmt.Sprintf("%s (key %d)", NameAddShareAcksToTxn, key)
	case k.TxnShareAcknowledge:
		return fmt.Sprintf("%s (key %d)", NameTxnShareAcknowledge, key)
	}
	return fmt.Sprintf("key %d", key)
}

func (k APIKeys) list() []int16 {
	k = k.orDefault()
	return []int16{k.AddShareAcksToTxn, k.TxnShareAcknowledge}
}

// WithKeys returns a copy of base (kversion.Stable() when nil) that also
// allows both RPCs, up to the newest version of each the codec has
// (AddShareAcksToTxn 0, TxnShareAcknowledge 1). kgo sends the highest
// version both it and the broker allow, which is how a broker that serves
// only TxnShareAcknowledge v1 (the patched Kafka) gets v1 and one that serves
// only v0 (the reference broker) gets v0. kgo refuses to send a key missing from its
// max-versions table, and kgo.MaxVersions replaces the table instead of
// extending it, so the table must start from what the client would use anyway.
func (k APIKeys) WithKeys(base *kversion.Versions) *kversion.Versions {
	k = k.orDefault()
	out := &kversion.Versions{}
	if base == nil {
		base = kversion.Stable()
	}
	base.EachMaxKeyVersion(func(key, v int16) { out.SetMaxKeyVersion(key, v) })
	out.SetMaxKeyVersion(k.AddShareAcksToTxn, wire.AddShareAcksToTxnVersion)
	out.SetMaxKeyVersion(k.TxnShareAcknowledge, wire.TxnShareAcknowledgeMaxVersion)
	return out
}

// ClientOpt is the kgo option that lets a client send both RPCs:
// kgo.MaxVersions(kversion.Stable() plus the two keys). A client still sends
// them only to brokers that advertise them (kgo checks each broker's
// ApiVersions), and this package checks with Negotiate first.
func (k APIKeys) ClientOpt() kgo.Opt { return kgo.MaxVersions(k.WithKeys(nil)) }

// clientAllows reports whether cl's max-versions table has both keys.
func (k APIKeys) clientAllows(cl *kgo.Client) error {
	vs, _ := cl.OptValue(kgo.MaxVersions).(*kversion.Versions)
	var missing []string
	for _, key := range k.list() {
		if vs != nil && !vs.HasKey(key) {
			missing = append(missing, k.Describe(key))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("client refuses %v: build it with APIKeys.ClientOpt()", missing)
	}
	return nil
}
