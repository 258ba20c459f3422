package trust

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/secure"
)

func newKey(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// tempStore is a store in a folder that does not exist yet, as on a
// device's first run.
func tempStore(t *testing.T) *Store {
	t.Helper()
	return Open(filepath.Join(t.TempDir(), "cfg", "ferry", fileName))
}

func TestMissingFileIsEmpty(t *testing.T) {
	s := tempStore(t)
	devs, err := s.Devices()
	if err != nil || len(devs) != 0 {
		t.Fatalf("Devices = %v, %v; want empty, nil", devs, err)
	}
	rec, err := s.Recent()
	if err != nil || len(rec) != 0 {
		t.Fatalf("Recent = %v, %v; want empty, nil", rec, err)
	}
	if _, ok, err := s.Trusted(newKey(t)); ok || err != nil {
		t.Fatalf("Trusted = %v, %v; want false, nil", ok, err)
	}
	if _, err := os.Stat(filepath.Dir(s.Path())); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reading created the folder: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	s := tempStore(t)
	when := time.Date(2025, 5, 1, 9, 30, 0, 0, time.UTC)
	desk := Device{Name: "desk", Key: newKey(t), PairedAt: when}
	phone := Device{Name: "Zoë's phone", Key: newKey(t), PairedAt: when.Add(time.Hour)}
	for _, d := range []Device{phone, desk} {
		if err := s.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	devs, err := Open(s.Path()).Devices()
	if err != nil {
		t.Fatal(err)
	}
	want := []Device{desk, phone} // sorted by name
	if len(devs) != len(want) {
		t.Fatalf("got %d devices, want %d", len(devs), len(want))
	}
	for i := range want {
		if !sameDevice(devs[i], want[i]) {
			t.Errorf("device %d = %+v, want %+v", i, devs[i], want[i])
		}
	}
	got, ok, err := s.Trusted(phone.Key)
	if err != nil || !ok || !sameDevice(got, phone) {
		t.Fatalf("Trusted(phone) = %+v, %v, %v", got, ok, err)
	}

	// Same key again: replaced, name and time updated, not duplicated.
	renamed := Device{Name: "desk 2", Key: desk.Key, PairedAt: when.Add(2 * time.Hour)}
	if err := s.Add(renamed); err != nil {
		t.Fatal(err)
	}
	devs, _ = s.Devices()
	if len(devs) != 2 || !sameDevice(devs[0], renamed) {
		t.Fatalf("after re-adding: %+v", devs)
	}

	// The file is what the package doc says, and private.
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(s.Path()))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", di.Mode().Perm())
	}
	b, _ := os.ReadFile(s.Path())
	for _, w := range []string{`"version": 1`, `"paired_at": "2025-05-01T11:30:00Z"`,
		`"key": "` + base64.StdEncoding.EncodeToString(phone.Key) + `"`, `"recent": []`} {
		if !bytes.Contains(b, []byte(w)) {
			t.Errorf("file lacks %s:\n%s", w, b)
		}
	}
}

func sameDevice(a, b Device) bool {
	return a.Name == b.Name && bytes.Equal(a.Key, b.Key) && a.PairedAt.Equal(b.PairedAt)
}

func TestAddChecksDevice(t *testing.T) {
	s := tempStore(t)
	for _, d := range []Device{
		{Name: "short key", Key: make([]byte, 31)},
		{Name: "", Key: newKey(t)},
		{Name: "  ", Key: newKey(t)},
		{Name: "esc\x1b[31m", Key: newKey(t)},
		{Name: strings.Repeat("n", 256), Key: newKey(t)},
	} {
		if err := s.Add(d); err == nil {
			t.Errorf("Add(%q, %d-byte key) succeeded", d.Name, len(d.Key))
		}
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused Add wrote the file: %v", err)
	}
	// A zero time is now, to the second.
	before := time.Now().Truncate(time.Second)
	if err := s.Add(Device{Name: "now", Key: newKey(t)}); err != nil {
		t.Fatal(err)
	}
	devs, _ := s.Devices()
	if at := devs[0].PairedAt; at.Before(before) || at.After(time.Now()) {
		t.Errorf("zero PairedAt became %v", at)
	}
}

func TestRecent(t *testing.T) {
	s := tempStore(t)
	var keys [][]byte
	for i := range 20 {
		k := newKey(t)
		keys = append(keys, k)
		if err := s.NoteRecent(Device{Name: fmt.Sprintf("dev%d", i), Key: k}); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := s.Recent()
	if err != nil {
		t.Fatal(err)
	}
	if len(rec) != maxRecent {
		t.Fatalf("%d recent, want %d", len(rec), maxRecent)
	}
	if rec[0].Name != "dev19" || rec[maxRecent-1].Name != "dev4" {
		t.Fatalf("recent not newest first: %s .. %s", rec[0].Name, rec[maxRecent-1].Name)
	}
	// Seen again: back to the front, once, with its new name.
	if err := s.NoteRecent(Device{Name: "dev10 renamed", Key: keys[10]}); err != nil {
		t.Fatal(err)
	}
	rec, _ = s.Recent()
	if rec[0].Name != "dev10 renamed" || len(rec) != maxRecent {
		t.Fatalf("after seeing dev10 again: first %q, %d entries", rec[0].Name, len(rec))
	}
	for _, d := range rec[1:] {
		if bytes.Equal(d.Key, keys[10]) {
			t.Fatalf("dev10 listed twice")
		}
	}
	// Recent peers are not trusted.
	if devs, _ := s.Devices(); len(devs) != 0 {
		t.Fatalf("NoteRecent trusted %d devices", len(devs))
	}
}

// TestAtomicWrite checks that changes leave nothing but the file and its
// lock behind, and that a reader racing many writers always sees a whole
// file.
func TestAtomicWrite(t *testing.T) {
	s := tempStore(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				readErr <- nil
				return
			default:
			}
			if _, err := Open(s.Path()).Devices(); err != nil {
				readErr <- err
				return
			}
		}
	}()
	for i := range 30 {
		if err := s.Add(Device{Name: fmt.Sprintf("d%02d", i), Key: newKey(t)}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if err := <-readErr; err != nil {
		t.Fatalf("a reader saw a partial file: %v", err)
	}
	entries, err := os.ReadDir(filepath.Dir(s.Path()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "trusted.json trusted.json.lock" {
		t.Fatalf("folder holds %v, want only the file and its lock", names)
	}
}

func TestRefusesOpenFile(t *testing.T) {
	s := tempStore(t)
	if err := s.Add(Device{Name: "desk", Key: newKey(t)}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o602} {
		os.Chmod(s.Path(), mode)
		_, err := s.Devices()
		if err == nil || !strings.Contains(err.Error(), "chmod 600") || !strings.Contains(err.Error(), s.Path()) {
			t.Errorf("mode %v: err = %v, want a refusal naming the file and chmod 600", mode, err)
		}
		if err := s.Add(Device{Name: "other", Key: newKey(t)}); err == nil {
			t.Errorf("mode %v: Add succeeded on an open file", mode)
		}
	}
}

func TestUnsupportedVersion(t *testing.T) {
	s := tempStore(t)
	os.MkdirAll(filepath.Dir(s.Path()), 0o700)
	// A newer format may look nothing like this one.
	newer := []byte(`{"version": 2, "peers": {"desk": "?"}}`)
	os.WriteFile(s.Path(), newer, 0o600)
	_, err := s.Devices()
	if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("err = %v, want ErrUnsupportedVersion naming version 2", err)
	}
	if err := s.Add(Device{Name: "x", Key: newKey(t)}); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("Add on a newer file: %v", err)
	}
	if b, _ := os.ReadFile(s.Path()); !bytes.Equal(b, newer) {
		t.Fatalf("a newer file was rewritten:\n%s", b)
	}
}

// TestCorrupt feeds hand-edited and damaged files: each is ErrCorrupt
// naming the file and what is wrong, and no change rewrites it.
func TestCorrupt(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(newKey(t))
	short := base64.StdEncoding.EncodeToString(make([]byte, 31))
	dev := func(name, key, at string) string {
		return fmt.Sprintf(`{"name": %q, "key": %q, "paired_at": %q}`, name, key, at)
	}
	good := dev("desk", key, "2025-05-01T09:30:00Z")
	for _, tc := range []struct {
		name, file, want string
	}{
		{"empty", ``, "line 1, column 1: the file ends in the middle"},
		{"truncated", "{\n  \"version\": 1,\n  \"devices\": [\n", "ends in the middle"},
		{"bad json", "{\n  \"version\": 1,\n  \"devices\": [}\n", "line 3, column 15: invalid character '}'"},
		{"not an object", `[1, 2]`, "not"},
		{"no version", `{"devices": []}`, `no "version" field`},
		{"version text", `{"version": "1"}`, `"version" is "1", not a whole number`},
		{"version zero", `{"version": 0}`, "format version 0 does not exist"},
		{"unknown field", "{\"version\": 1,\n\"device\": []}", `line 2: unknown field "device"`},
		{"field twice", "{\"version\": 1, \"devices\": [],\n\"devices\": []}", `line 2: field "devices" appears twice`},
		{"devices not a list", `{"version": 1, "devices": {}}`, `"devices" is not a list`},
		{"short key", "{\"version\": 1, \"devices\": [\n" + good + ",\n" + dev("phone", short, "2025-05-01T09:30:00Z") + "]}",
			`line 3: devices[1]: "key" is 31 bytes, want 32`},
		{"key not base64", `{"version": 1, "devices": [` + dev("phone", "not base64!", "2025-05-01T09:30:00Z") + `]}`,
			`devices[0]: "key" is not standard base64`},
		{"missing name", `{"version": 1, "devices": [{"key": "` + key + `", "paired_at": "2025-05-01T09:30:00Z"}]}`,
			`devices[0]: no "name"`},
		{"empty name", `{"version": 1, "devices": [` + dev("", key, "2025-05-01T09:30:00Z") + `]}`,
			`devices[0]: "name" is empty`},
		{"name with escape", `{"version": 1, "recent": [{"name": "a\u001b[2J", "key": "` + key + `", "paired_at": "2025-05-01T09:30:00Z"}]}`,
			`recent[0]: "name" holds the control character U+001B`},
		{"missing key", `{"version": 1, "devices": [{"name": "desk", "paired_at": "2025-05-01T09:30:00Z"}]}`,
			`devices[0]: no "key"`},
		{"missing time", `{"version": 1, "devices": [{"name": "desk", "key": "` + key + `"}]}`,
			`devices[0]: no "paired_at"`},
		{"bad time", `{"version": 1, "devices": [` + dev("desk", key, "yesterday") + `]}`,
			`devices[0]: "paired_at" "yesterday" is not an RFC 3339 time`},
		{"name a number", `{"version": 1, "devices": [{"name": 7, "key": "` + key + `", "paired_at": "2025-05-01T09:30:00Z"}]}`,
			`devices[0]: "name" is a number, want a string`},
		{"unknown entry field", `{"version": 1, "devices": [{"name": "d", "nmae": "d", "key": "` + key + `", "paired_at": "2025-05-01T09:30:00Z"}]}`,
			`devices[0]: unknown field "nmae"`},
		{"duplicate keys", "{\"version\": 1, \"devices\": [\n" + good + ",\n" + dev("desk too", key, "2025-05-02T09:30:00Z") + "\n]}",
			"line 3: devices[1]: same key as devices[0]"},
		{"trailing data", "{\"version\": 1}\n{\"version\": 1}", "line 2, column 1: invalid character '{' after top-level value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tempStore(t)
			os.MkdirAll(filepath.Dir(s.Path()), 0o700)
			if err := os.WriteFile(s.Path(), []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Devices()
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			if msg := err.Error(); !strings.Contains(msg, s.Path()) || !strings.Contains(msg, tc.want) {
				t.Fatalf("err = %q, want the path and %q", msg, tc.want)
			}
			if err := s.Add(Device{Name: "x", Key: newKey(t)}); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Add on a corrupt file: %v", err)
			}
			if _, err := s.Remove("desk"); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Remove on a corrupt file: %v", err)
			}
			if b, _ := os.ReadFile(s.Path()); string(b) != tc.file {
				t.Fatalf("the corrupt file was rewritten:\n%s", b)
			}
		})
	}
}

// TestHandEdited: a file a person wrote by hand, in another order, with
// null lists and a local time zone, reads fine.
func TestHandEdited(t *testing.T) {
	s := tempStore(t)
	os.MkdirAll(filepath.Dir(s.Path()), 0o700)
	key := newKey(t)
	file := `{"recent": null, "devices": [{"paired_at": "2025-05-01T11:30:00+02:00", "key": "` +
		base64.StdEncoding.EncodeToString(key) + `", "name": "desk"}], "version": 1}`
	os.WriteFile(s.Path(), []byte(file), 0o600)
	d, ok, err := s.Trusted(key)
	if err != nil || !ok || d.Name != "desk" || !d.PairedAt.Equal(time.Date(2025, 5, 1, 9, 30, 0, 0, time.UTC)) {
		t.Fatalf("Trusted = %+v, %v, %v", d, ok, err)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	s := tempStore(t)
	const writers, each = 16, 5
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A Store of its own, as another window or command would have.
			st := Open(s.Path())
			for i := range each {
				errs <- st.Add(Device{Name: fmt.Sprintf("w%d-%d", w, i), Key: newKey(t)})
				errs <- st.NoteRecent(Device{Name: fmt.Sprintf("r%d-%d", w, i), Key: newKey(t)})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	devs, err := s.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != writers*each {
		t.Fatalf("%d devices, want %d: concurrent changes were lost", len(devs), writers*each)
	}
	if rec, _ := s.Recent(); len(rec) != maxRecent {
		t.Fatalf("%d recent, want %d", len(rec), maxRecent)
	}
}

// helperEnv makes the test binary, re-executed, add devices to a store
// instead of running tests (see TestMain).
const helperEnv = "FERRY_TRUST_TEST_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(writer(spec))
	}
	os.Exit(m.Run())
}

// writer adds n devices to the store at path, from "path|prefix|n", after
// waiting for its start file to appear, so that both processes start
// writing at the same time.
func writer(spec string) int {
	parts := strings.Split(spec, "|")
	path, prefix := parts[0], parts[1]
	n, _ := strconv.Atoi(parts[2])
	os.Stdout.WriteString("ready\n")
	var buf [1]byte
	os.Stdin.Read(buf[:]) // the go signal
	s := Open(path)
	for i := range n {
		k := make([]byte, 32)
		rand.Read(k)
		if err := s.Add(Device{Name: fmt.Sprintf("%s%03d", prefix, i), Key: k}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// TestConcurrentProcesses runs two real processes that each add devices
// to one file at the same moment: both sets must land.
func TestConcurrentProcesses(t *testing.T) {
	s := tempStore(t)
	const each = 40
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		cmd   *exec.Cmd
		start *os.File
	}
	var procs []proc
	for _, prefix := range []string{"a", "b"} {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+s.Path()+"|"+prefix+"|"+strconv.Itoa(each))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = r
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		ready := make([]byte, 6)
		if _, err := out.Read(ready); err != nil || string(ready) != "ready\n" {
			t.Fatalf("writer %s did not start: %q %v %s", prefix, ready, err, stderr.String())
		}
		procs = append(procs, proc{cmd, w})
	}
	for _, p := range procs {
		p.start.Write([]byte{'g'})
		p.start.Close()
	}
	for _, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("writer failed: %v %s", err, p.cmd.Stderr)
		}
	}
	devs, err := s.Devices()
	if err != nil {
		t.Fatal(err)
	}
	count := map[byte]int{}
	for _, d := range devs {
		count[d.Name[0]]++
	}
	if count['a'] != each || count['b'] != each {
		t.Fatalf("got %d from a and %d from b, want %d each: a process lost the other's changes", count['a'], count['b'], each)
	}
}

func TestClassify(t *testing.T) {
	s := tempStore(t)
	desk := Device{Name: "Desk", Key: newKey(t)}
	if err := s.Add(desk); err != nil {
		t.Fatal(err)
	}
	fp := secure.Fingerprint(desk.Key)
	other := secure.Fingerprint(newKey(t))
	for _, tc := range []struct {
		name, fp string
		want     Status
	}{
		{"Desk", fp, Trusted},
		{"renamed desk", fp, Trusted}, // the key is what counts
		{"desk", strings.ToLower(strings.ReplaceAll(fp, "-", "")), Trusted},
		{"desk", other, Mismatch}, // a name it does not own
		{"DESK", "", Mismatch},
		{"desk", fp[:9], Mismatch}, // a prefix is not a fingerprint
		{"laptop", other, Unknown},
		{"", "", Unknown},
	} {
		st, d, err := s.Classify(tc.name, tc.fp)
		if err != nil {
			t.Fatal(err)
		}
		if st != tc.want {
			t.Errorf("Classify(%q, %q) = %v, want %v", tc.name, tc.fp, st, tc.want)
		}
		if st != Unknown && !bytes.Equal(d.Key, desk.Key) {
			t.Errorf("Classify(%q, %q) returned device %+v, want the pinned desk", tc.name, tc.fp, d)
		}
	}
}

func TestRemove(t *testing.T) {
	s := tempStore(t)
	desk := Device{Name: "desk", Key: newKey(t)}
	laptopA := Device{Name: "laptop", Key: newKey(t)}
	laptopB := Device{Name: "Laptop", Key: newKey(t)}
	for _, d := range []Device{desk, laptopA, laptopB} {
		if err := s.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(s.Path())

	_, err := s.Remove("laptop")
	if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), laptopA.Fingerprint()) ||
		!strings.Contains(err.Error(), laptopB.Fingerprint()) {
		t.Fatalf("Remove(laptop) = %v, want ErrAmbiguous listing both fingerprints", err)
	}
	for _, q := range []string{"phone", "", "AB", "K7QX-M2PA-9RTE-WD4C"} {
		if _, err := s.Remove(q); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Remove(%q) = %v, want ErrNotFound", q, err)
		}
	}
	if after, _ := os.ReadFile(s.Path()); !bytes.Equal(before, after) {
		t.Fatal("a failed Remove changed the file")
	}

	// A fingerprint prefix, lower case, without dashes.
	prefix := strings.ToLower(strings.ReplaceAll(laptopB.Fingerprint(), "-", ""))[:6]
	got, err := s.Remove(prefix)
	if err != nil || !bytes.Equal(got.Key, laptopB.Key) {
		t.Fatalf("Remove(%q) = %+v, %v; want laptop B", prefix, got, err)
	}
	// Now the name is unique.
	if got, err := s.Remove("LAPTOP"); err != nil || !bytes.Equal(got.Key, laptopA.Key) {
		t.Fatalf("Remove(LAPTOP) = %+v, %v", got, err)
	}
	// The full fingerprint.
	if _, err := s.Remove(desk.Fingerprint()); err != nil {
		t.Fatal(err)
	}
	if devs, _ := s.Devices(); len(devs) != 0 {
		t.Fatalf("left: %+v", devs)
	}
}
