package transfer

import (
	"errors"
	"testing"
)

// TestProtocolTable checks the protocol table (protocol.go) against
// itself and against the tests that must walk it: every row has a
// decoder in FuzzMessage and a seed in its corpus; a message is
// accepted only in states of the end that reads it; every reading state
// takes at least one message besides keepalive and abort, but for
// the two in which nothing is due; parseHeader refuses what
// the table does not know.
func TestProtocolTable(t *testing.T) {
	seeds := seedCorpus()["FuzzMessage"]
	known := 0
	var taken phase
	for i := range 256 {
		typ := msgType(i)
		spec, ok := typ.spec()
		if !ok {
			if _, _, err := parseHeader([]byte{byte(i), 0, 0, 0, 0}); !errors.Is(err, ErrProtocol) {
				t.Errorf("type %d is not in the table but its header passes: %v", i, err)
			}
			continue
		}
		known++
		if _, ok := messageDecoders[typ]; !ok {
			t.Errorf("%v has no decoder in FuzzMessage (messageDecoders)", typ)
		}
		seed, ok := seeds[spec.name]
		if !ok {
			t.Errorf("%v has no seed in the FuzzMessage corpus", typ)
		} else if len(seed) < headerLen || msgType(seed[0]) != typ {
			t.Errorf("the %q seed is not a %v message", spec.name, typ)
		}
		if spec.max < 0 || spec.in == 0 || spec.from == 0 {
			t.Errorf("%v: incomplete row %+v", typ, spec)
		}
		if spec.from&bySender != 0 && spec.in&receiverPhases == 0 ||
			spec.from&byReceiver != 0 && spec.in&senderPhases == 0 {
			t.Errorf("%v: no state of the reading end takes it", typ)
		}
		if spec.from == bySender && spec.in&senderPhases != 0 ||
			spec.from == byReceiver && spec.in&receiverPhases != 0 {
			t.Errorf("%v: a state of the end that sends it takes it", typ)
		}
		if typ != msgAbort && typ != msgKeepalive {
			taken |= spec.in
		}
		if typ.String() != spec.name {
			t.Errorf("%v is named %q in the table", typ, spec.name)
		}
	}
	if known != 14 {
		t.Errorf("the table has %d messages; protocol version %d has 14", known, protoVersion)
	}
	// Only deciding and closed are states in which nothing is due.
	if want := everyPhase &^ (phDecide | phClosed); taken != want {
		t.Errorf("states that take no message: %b", want&^taken)
	}
	// The data limit is the wire's, not a buffer's: 4 × 65,519 bytes.
	if _, n, err := parseHeader([]byte{byte(msgData), 0, 0x03, 0xFF, 0xBC}); err != nil || n != 262076 {
		t.Errorf("a data chunk of 262,076 bytes: got %d, %v", n, err)
	}
	if _, _, err := parseHeader([]byte{byte(msgData), 0, 0x03, 0xFF, 0xBD}); !errors.Is(err, ErrProtocol) {
		t.Errorf("a data chunk of 262,077 bytes passed: %v", err)
	}
}
