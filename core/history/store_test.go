package history

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"

	"github.com/ferry-project/ferry/core/internal/jsonfile"
)

func sample(i int) Record {
	return Record{
		At:        time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute),
		Direction: Received,
		Peer:      Peer{Name: "desk", Fingerprint: "ABCD-EFGH-IJKL", Auth: ByCode, Addr: "192.168.1.20:50112"},
		Files:     2, Folders: 1, Bytes: 1_200_000 + int64(i),
		Names:   []string{"photos", fmt.Sprintf("note-%d.txt", i)},
		Folder:  "/home/me/Downloads",
		Paths:   []string{"/home/me/Downloads/photos", fmt.Sprintf("/home/me/Downloads/note-%d.txt", i)},
		Outcome: Verified, Duration: 812 * time.Millisecond,
	}
}

func newStore(t *testing.T) *Store {
	return Open(filepath.Join(t.TempDir(), "cfg", "ferry", fileName))
}

// TestRoundTrip: what Add was given (bounded by clean) is what List
// returns, newest first, through the real file, written private in a
// private folder.
func TestRoundTrip(t *testing.T) {
	s := newStore(t)
	if recs, aside, err := s.List(); err != nil || aside != nil || len(recs) != 0 {
		t.Fatalf("missing file: %v, %v, %v", recs, aside, err)
	}
	failed := sample(2)
	failed.Direction, failed.Outcome = Sent, Failed
	failed.SetEnd(fmt.Errorf("sending: %w", secure.ErrWrongCode), failed.At.Add(3*time.Second))
	failed.Peer.Auth = Unknown
	want := []Record{sample(0), sample(1), failed}
	want[1].Peer.Name = "evil\x1b[2Jname\xff" // a peer's bytes, kept (escaped only when printed)
	for _, r := range want {
		if aside, err := s.Add(r); err != nil || aside != nil {
			t.Fatalf("Add: %v, %v", aside, err)
		}
	}
	got, aside, err := s.List()
	if err != nil || aside != nil {
		t.Fatal(aside, err)
	}
	for i := range want {
		w := clean(want[len(want)-1-i])
		if !reflect.DeepEqual(got[i], w) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
	if got[0].Outcome != Failed || got[0].ErrorKind != "wrong_code" || got[0].Duration != 3*time.Second {
		t.Errorf("failed record: %+v", got[0])
	}
	if got[1].Peer.Name != "evil\x1b[2Jname\uFFFD" {
		t.Errorf("peer name %q: want the bytes kept, invalid UTF-8 replaced", got[1].Peer.Name)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(s.Path())
		di, _ := os.Stat(filepath.Dir(s.Path()))
		if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
			t.Errorf("modes: file %v, folder %v; want 0600 and 0700", fi.Mode().Perm(), di.Mode().Perm())
		}
	}
	n, _, err := s.Clear()
	if err != nil || n != 3 {
		t.Fatalf("Clear = %d, %v", n, err)
	}
	if recs, _, err := s.List(); err != nil || len(recs) != 0 {
		t.Errorf("after Clear: %d records, %v", len(recs), err)
	}
}

// TestBoundedCount: at most maxRecords; the oldest go first.
func TestBoundedCount(t *testing.T) {
	s := newStore(t)
	var recs []Record
	for i := range maxRecords {
		recs = append(recs, clean(sample(i)))
	}
	os.MkdirAll(filepath.Dir(s.Path()), 0o700)
	if err := jsonfile.WriteAtomic(s.Path(), encode(recs)); err != nil {
		t.Fatal(err)
	}
	for i := maxRecords; i < maxRecords+3; i++ {
		if _, err := s.Add(sample(i)); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxRecords {
		t.Fatalf("%d records, want %d", len(got), maxRecords)
	}
	if got[0].Names[1] != fmt.Sprintf("note-%d.txt", maxRecords+2) || got[len(got)-1].Names[1] != "note-3.txt" {
		t.Errorf("newest %q, oldest %q: want note-%d.txt and note-3.txt", got[0].Names[1], got[len(got)-1].Names[1], maxRecords+2)
	}
}

// TestBoundedBytes: the largest records (eight 4 KiB paths, eight 1 KiB
// names) keep the file under maxFileBytes, newest kept.
func TestBoundedBytes(t *testing.T) {
	s := newStore(t)
	big := func(i int) Record {
		r := sample(i)
		r.Paths, r.Names = nil, nil
		for j := range maxNames {
			r.Paths = append(r.Paths, "/"+strings.Repeat("p", maxPathBytes-1))
			r.Names = append(r.Names, fmt.Sprintf("%d-%d-", i, j)+strings.Repeat("n", 2000)) // clipped to 1 KiB
		}
		return r
	}
	var recs []Record
	for i := range 40 { // about 45 KiB each: 1.8 MiB
		recs = append(recs, clean(big(i)))
	}
	os.MkdirAll(filepath.Dir(s.Path()), 0o700)
	if err := jsonfile.WriteAtomic(s.Path(), encode(recs)); err != nil { // over the cap, as a file may be
		t.Fatal(err)
	}
	if _, err := s.Add(big(40)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Size() > maxFileBytes {
		t.Fatalf("file is %d bytes, cap %d (%v)", fi.Size(), maxFileBytes, err)
	}
	got, _, _ := s.List()
	if len(got) < 20 || len(got[0].Names[0]) != maxNameBytes || !strings.HasPrefix(got[0].Names[0], "40-0-") {
		t.Fatalf("%d records kept; newest name %.10q (%d bytes)", len(got), got[0].Names[0], len(got[0].Names[0]))
	}
	// One record over the cap alone is still kept: the newest always is.
	if b := bound([]Record{clean(big(1))}); len(b) != 1 {
		t.Errorf("bound dropped the only record")
	}
}

// TestDamagedSetAside: a damaged file is moved aside with its bytes, with
// a message naming both files and what was wrong, and a fresh history
// starts; List and Add both do it.
func TestDamagedSetAside(t *testing.T) {
	for _, tc := range []struct {
		name, content, says string
	}{
		{"truncated", `{"version":1,"records":[{"at":"2026-12-03T10:00:00.000Z"`, "ends in the middle"},
		{"garbage", "\x00\x01not json", "line 1, column 1"},
		{"bad outcome", `{"version":1,"records":[{"at":"2026-12-03T10:00:00.000Z","direction":"sent","peer":{},"outcome":"great","duration_ms":1}]}`, `record 0: "outcome" is "great"`},
		{"unknown field", `{"version":1,"records":[],"extra":1}`, `unknown field "extra"`},
		{"no version", `{"records":[]}`, `no "version"`},
	} {
		for _, via := range []string{"List", "Add"} {
			t.Run(tc.name+"/"+via, func(t *testing.T) {
				s := newStore(t)
				s.now = func() time.Time { return time.Date(2026, 12, 3, 11, 22, 33, 0, time.UTC) }
				os.MkdirAll(filepath.Dir(s.Path()), 0o700)
				os.WriteFile(s.Path(), []byte(tc.content), 0o600)
				var aside *Aside
				var err error
				if via == "List" {
					_, aside, err = s.List()
				} else {
					aside, err = s.Add(sample(7))
				}
				if err != nil || aside == nil {
					t.Fatalf("%s: aside %v, err %v", via, aside, err)
				}
				wantAside := s.Path() + ".damaged-20261203T112233Z"
				msg := aside.String()
				if aside.Path != wantAside || !errors.Is(aside.Reason, ErrCorrupt) ||
					!strings.Contains(msg, tc.says) || !strings.Contains(msg, wantAside) || !strings.Contains(msg, s.Path()) {
					t.Errorf("aside %q (at %s)", msg, aside.Path)
				}
				if b, _ := os.ReadFile(wantAside); string(b) != tc.content {
					t.Errorf("set-aside file holds %q", b)
				}
				recs, aside2, err := s.List()
				wantN := map[string]int{"List": 0, "Add": 1}[via]
				if err != nil || aside2 != nil || len(recs) != wantN {
					t.Errorf("after: %d records, aside %v, %v", len(recs), aside2, err)
				}
				// A second damaged file at the same second gets its own name.
				os.WriteFile(s.Path(), []byte("{"), 0o600)
				if a, _ := s.Add(sample(8)); a == nil || a.Path != wantAside+"-2" {
					t.Errorf("second set-aside: %v", a)
				}
			})
		}
	}
}

// TestNewerVersion: a newer ferry's file is refused and never changed.
func TestNewerVersion(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(filepath.Dir(s.Path()), 0o700)
	newer := `{"version":2,"records":[{"what":"a shape this ferry cannot know"}]}`
	os.WriteFile(s.Path(), []byte(newer), 0o600)
	if _, err := s.Add(sample(1)); !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "update ferry") {
		t.Errorf("Add: %v", err)
	}
	if _, _, err := s.List(); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("List: %v", err)
	}
	if _, _, err := s.Clear(); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("Clear: %v", err)
	}
	if b, _ := os.ReadFile(s.Path()); string(b) != newer {
		t.Errorf("the newer file was changed: %q", b)
	}
	if m, _ := filepath.Glob(s.Path() + ".damaged-*"); len(m) > 0 {
		t.Errorf("a newer file was set aside: %v", m)
	}
}

// TestNotPrivate: a history file others can read is refused, not
// rewritten, with the fix.
func TestNotPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows access lists are core/platform's tests; here only the mode bits")
	}
	s := newStore(t)
	if _, err := s.Add(sample(1)); err != nil {
		t.Fatal(err)
	}
	os.Chmod(s.Path(), 0o644)
	if _, err := s.Add(sample(2)); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("Add to a 0644 file: %v", err)
	}
}

// TestRecordHelpers: SetOffer's top-level names, SavedPaths, SetEnd's
// outcomes.
func TestRecordHelpers(t *testing.T) {
	var r Record
	o := transfer.Offer{Files: 11, Folders: 2, Texts: 1, TotalBytes: 99}
	for _, p := range []string{"photos", "photos/a.jpg", "photos/b/c.jpg", "z.txt", "text-1.txt"} {
		o.Entries = append(o.Entries, transfer.Entry{Path: p})
	}
	for i := range 9 {
		o.Entries = append(o.Entries, transfer.Entry{Path: fmt.Sprintf("f%d", i)})
	}
	r.SetOffer(o.Files, o.Folders, o.Texts, o.TotalBytes, o.Paths())
	if r.Files != 11 || r.Folders != 2 || r.Texts != 1 || r.Bytes != 99 {
		t.Errorf("counts: %+v", r)
	}
	if want := []string{"photos", "z.txt", "text-1.txt", "f0", "f1", "f2", "f3", "f4"}; !reflect.DeepEqual(r.Names, want) || r.MoreNames != 4 {
		t.Errorf("names %q + %d", r.Names, r.MoreNames)
	}
	if got := SavedPaths("/d", []string{"a (1)/x", "a (1)/y", "b"}); !reflect.DeepEqual(got, []string{filepath.Join("/d", "a (1)"), filepath.Join("/d", "b")}) {
		t.Errorf("SavedPaths: %q", got)
	}
	start := time.Now()
	for _, tc := range []struct {
		err  error
		want Outcome
		kind string
	}{
		{nil, Verified, ""},
		{fmt.Errorf("x: %w", transfer.ErrDeclined), Declined, ""},
		{fmt.Errorf("x: %w", transfer.ErrCancelled), Cancelled, ""},
		{fmt.Errorf("x: %w", transfer.ErrVerify), Failed, "verify"},
		{fmt.Errorf("x: %w", secure.ErrConnectionLost), Failed, "connection_lost"},
		{errors.New("disk on fire"), Failed, "failure"},
	} {
		r := Record{At: start}
		r.SetEnd(tc.err, start.Add(time.Second))
		if r.Outcome != tc.want || r.ErrorKind != tc.kind || r.Duration != time.Second || (tc.err != nil) != (r.Error != "") {
			t.Errorf("SetEnd(%v) = %s %q %q", tc.err, r.Outcome, r.ErrorKind, r.Error)
		}
	}
}

// TestConcurrentProcesses: two real processes (this test binary, run
// again as a helper) and this one add at once; no record is lost.
func TestConcurrentProcesses(t *testing.T) {
	const each = 30
	s := newStore(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for id := range 2 {
		cmd := exec.Command(exe, "-test.run=^TestHelperAdder$")
		cmd.Env = append(os.Environ(), "FERRY_HISTORY_HELPER="+s.Path(), "FERRY_HISTORY_HELPER_ID="+strconv.Itoa(id), "FERRY_HISTORY_HELPER_N="+strconv.Itoa(each))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		addMany(t, s, 2, each)
	}()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("helper: %v", err)
		}
	}
	wg.Wait()
	recs, _, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Peer.Name]++
	}
	if len(recs) != 3*each || len(seen) != 3*each {
		t.Errorf("%d records, %d distinct; want %d", len(recs), len(seen), 3*each)
	}
}

// TestHelperAdder is TestConcurrentProcesses's other process.
func TestHelperAdder(t *testing.T) {
	path := os.Getenv("FERRY_HISTORY_HELPER")
	if path == "" {
		t.Skip("a helper process of TestConcurrentProcesses")
	}
	id, _ := strconv.Atoi(os.Getenv("FERRY_HISTORY_HELPER_ID"))
	n, _ := strconv.Atoi(os.Getenv("FERRY_HISTORY_HELPER_N"))
	addMany(t, Open(path), id, n)
}

func addMany(t *testing.T, s *Store, id, n int) {
	for i := range n {
		r := sample(i)
		r.Peer.Name = fmt.Sprintf("p%d-%d", id, i)
		if aside, err := s.Add(r); err != nil || aside != nil {
			t.Errorf("process %d, record %d: %v %v", id, i, aside, err)
			return
		}
	}
}
