package diag

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func split(times map[Stage]time.Duration) Split {
	var s Split
	for st, d := range times {
		s[st].Time = d
		s[st].Calls = 1
	}
	return s
}

func TestVerdictNamesTheBusiestStage(t *testing.T) {
	sec := time.Second
	cases := []struct {
		name     string
		sender   map[Stage]time.Duration
		receiver map[Stage]time.Duration
		want     string
	}{
		{"slow disk writer on the receiver",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec, SocketWrite: 8 * sec},
			map[Stage]time.Duration{SocketRead: sec / 2, Decrypt: sec, DiskWrite: 8 * sec},
			"receiver disk write"},
		{"slow cipher on the sender",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: 9 * sec, SocketWrite: sec / 2},
			map[Stage]time.Duration{SocketRead: 9 * sec, Decrypt: sec / 2},
			"sender encrypt"},
		{"slow hash on the receiver",
			map[Stage]time.Duration{Encrypt: sec, SocketWrite: 7 * sec},
			map[Stage]time.Duration{SocketRead: sec, HashRecv: 7 * sec},
			"receiver hash"},
		{"the link is the limit: both ends wait on the socket",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec, SocketWrite: 8 * sec},
			map[Stage]time.Duration{SocketRead: 8 * sec, Decrypt: sec, DiskWrite: sec / 5},
			"the network"},
		{"receiver loaded in all, no single stage over half",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec, SocketWrite: 8 * sec},
			map[Stage]time.Duration{SocketRead: sec, Decrypt: 3 * sec, HashRecv: 2 * sec, DiskWrite: 4 * sec},
			"receiver disk write"},
		{"both ends with work to spare, neither socket wait over half",
			map[Stage]time.Duration{DiskRead: 2 * sec, HashSend: 2 * sec, Encrypt: sec, SocketWrite: 5 * sec},
			map[Stage]time.Duration{SocketRead: 4 * sec, Decrypt: sec, HashRecv: 2 * sec, DiskWrite: sec},
			"the network"},
		{"sender loaded in all",
			map[Stage]time.Duration{DiskRead: 2 * sec, HashSend: 3 * sec, Encrypt: 3 * sec, SocketWrite: 2 * sec},
			map[Stage]time.Duration{SocketRead: 8 * sec, Decrypt: sec, HashRecv: sec / 2, DiskWrite: sec / 2},
			"sender hash (busy 30% of the time; the sender's stages are busy 80% in all)"},
		{"many small files: per-file work no stage times, and neither end waits on the link",
			map[Stage]time.Duration{DiskRead: sec / 5, SocketWrite: sec / 100},
			map[Stage]time.Duration{SocketRead: sec, DiskWrite: sec / 3},
			"per-entry work outside the timed stages"},
		{"one end waits on the socket, the other does not",
			map[Stage]time.Duration{DiskRead: sec, HashSend: sec, SocketWrite: 5 * sec},
			map[Stage]time.Duration{SocketRead: sec, Decrypt: sec, DiskWrite: sec},
			"per-entry work outside the timed stages"},
		{"one stage busy over half wins before the network rule, though both ends wait a quarter on the socket",
			map[Stage]time.Duration{Encrypt: 55 * sec / 10, SocketWrite: 3 * sec},
			map[Stage]time.Duration{SocketRead: 3 * sec, Decrypt: sec},
			"sender encrypt"},
		{"slow disk reader on the sender",
			map[Stage]time.Duration{DiskRead: 8 * sec, Encrypt: sec},
			map[Stage]time.Duration{SocketRead: 9 * sec},
			"sender disk read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Verdict(split(tc.sender), 10*sec, split(tc.receiver), 10*sec)
			if !strings.Contains(got, tc.want) {
				t.Fatalf("verdict %q does not name %q", got, tc.want)
			}
		})
	}
	if got := Verdict(Split{}, sec, Split{}, sec); !strings.Contains(got, "no stage") {
		t.Fatalf("empty splits: %q", got)
	}
}

func TestTimersConcurrentAndNil(t *testing.T) {
	var tm Timers
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				tm.Add(Encrypt, time.Microsecond, 10)
			}
		}()
	}
	wg.Wait()
	s := tm.Snapshot()
	if s[Encrypt].Calls != 8000 || s[Encrypt].Bytes != 80000 || s[Encrypt].Time != 8000*time.Microsecond {
		t.Fatalf("got %+v", s[Encrypt])
	}
	d := s.Sub(Split{})
	if d[Encrypt] != s[Encrypt] {
		t.Fatal("Sub of zero changed the split")
	}
	var none *Timers
	none.Add(Encrypt, time.Second, 1) // must not panic
	none.Since(Encrypt, time.Now(), 1)
	if none.Snapshot()[Encrypt].Calls != 0 {
		t.Fatal("nil timers recorded something")
	}
	if f := s.Format(SenderStages, 16*time.Millisecond); !strings.Contains(f, "encrypt 50%") {
		t.Fatalf("format: %q", f)
	}
}

func TestRestartClipsCallsInProgress(t *testing.T) {
	var tm Timers
	tm.Add(Decrypt, time.Second, 1)
	began := time.Now().Add(-time.Hour) // a read blocked for an hour
	tm.Restart()
	if s := tm.Snapshot(); s[Decrypt].Calls != 0 {
		t.Fatalf("restart kept %+v", s[Decrypt])
	}
	tm.Since(SocketRead, began, 10)
	if got := tm.Snapshot()[SocketRead].Time; got > time.Minute {
		t.Fatalf("a call that began before the restart counted %v", got)
	}
}
