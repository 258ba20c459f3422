package wire

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestRegisterNewMessage: a message's row, registered from its own file,
// is all the table needs, and its seed and decoder in corpus_test.go all
// the corpus and FuzzMessage need; protocol.go takes no edit. A probe
// message, registered here as a new message's file would, is checked
// (TestProtocolTable's checks), framed, read and taken off again.
func TestRegisterNewMessage(t *testing.T) {
	const probe Type = 200
	if _, ok := probe.spec(); ok {
		t.Fatalf("%v is a message already; pick another probe", probe)
	}
	register(probe, &msgSpec{"probe", 8, bySender, PhEntries})
	t.Cleanup(func() { messages[probe] = nil })

	// The table knows it at once: its name, its cap, where it is taken.
	if probe.String() != "probe" || !probe.AcceptedIn(PhEntries) || probe.AcceptedIn(PhEntry) {
		t.Fatalf("the table does not hold the probe's row: %v", probe)
	}
	if typ, n, err := parseHeader(Frame(probe, make([]byte, 8))); err != nil || typ != probe || n != 8 {
		t.Fatalf("a probe at its cap: %v %d %v", typ, n, err)
	}
	if _, _, err := parseHeader(Frame(probe, make([]byte, 9))); !errors.Is(err, ErrProtocol) {
		t.Fatalf("a probe over its cap passed: %v", err)
	}

	// With the row alone, the checks ask for its seed, its decoder and
	// its line; nothing else.
	wantMissing := []string{"has no decoder", "has no seed", "has no line"}
	if got := probeProblems(t); !slices.EqualFunc(got, wantMissing, strings.Contains) {
		t.Fatalf("with only its row, the checks report %q, want the probe's %q", got, wantMissing)
	}

	// Its seed and its decoder, as corpus_test.go would hold them: the
	// corpus (and so TestSeedCorpus, which asks for its file) and
	// FuzzMessage pick them up, and only its line, which its own file
	// carries, is missing.
	messageSeeds["probe"] = Frame(probe, []byte("12345678"))
	messageDecoders[probe] = func(b []byte) error { return nil }
	t.Cleanup(func() {
		delete(messageSeeds, "probe")
		delete(messageDecoders, probe)
	})
	if _, ok := seedCorpus()["FuzzMessage"]["probe"]; !ok {
		t.Fatal("the corpus does not hold the probe's seed")
	}
	if got := probeProblems(t); !slices.EqualFunc(got, wantMissing[2:], strings.Contains) {
		t.Fatalf("with its seed and decoder, the checks report %q, want only %q", got, wantMissing[2:])
	}
}

// probeProblems is what the table's checks say of the probe.
func probeProblems(t *testing.T) []string {
	var got []string
	for _, p := range tableProblems(t) {
		if strings.Contains(p, "probe") {
			got = append(got, p)
		}
	}
	return got
}
