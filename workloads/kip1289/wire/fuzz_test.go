package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// Fuzz targets for the decoders: any input either fails to decode or decodes
// into a message whose encoding decodes back to the same message and encodes
// to the same bytes. A decoder must never panic or allocate beyond what the
// input can hold. Seeds: the golden messages here, plus testdata/fuzz.

func fuzzDecoder(f *testing.F, seed string, fresh func() message) {
	f.Add(golden(f, seed))
	f.Fuzz(func(t *testing.T, b []byte) {
		m := fresh()
		if err := m.ReadFrom(b); err != nil {
			return
		}
		enc := m.AppendTo(nil)
		again := fresh()
		if err := again.ReadFrom(enc); err != nil {
			t.Fatalf("re-decode of our own encoding: %v\ninput %x\nenc %x", err, b, enc)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("re-decode differs:\n%+v\n%+v", m, again)
		}
		if enc2 := again.AppendTo(nil); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%x\n%x", enc, enc2)
		}
	})
}

func FuzzAddShareAcksToTxnRequest(f *testing.F) {
	fuzzDecoder(f, addShareAcksToTxnRequestGolden, func() message { return &AddShareAcksToTxnRequest{} })
}

func FuzzAddShareAcksToTxnResponse(f *testing.F) {
	fuzzDecoder(f, addShareAcksToTxnResponseGolden, func() message { return &AddShareAcksToTxnResponse{} })
}

func FuzzTxnShareAcknowledgeRequest(f *testing.F) {
	fuzzDecoder(f, txnShareAcknowledgeRequestGolden, func() message { return &TxnShareAcknowledgeRequest{} })
}

func FuzzTxnShareAcknowledgeResponse(f *testing.F) {
	fuzzDecoder(f, txnShareAcknowledgeResponseGolden, func() message { return &TxnShareAcknowledgeResponse{} })
}
