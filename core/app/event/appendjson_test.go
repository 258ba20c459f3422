//go:build !js

package event

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// encodingJSON is the entry event's JSON form as encoding/json makes it,
// the way Marshal and MarshalFor made it before the hand-written
// encoder: the oracle every test here holds appendJSON to.
func encodingJSON(t testing.TB, e EntryDone, transfer int64, tagged bool) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	s := string(named(e.Type(), b))
	if tagged {
		head := len(`{"event":"entry"`)
		s = s[:head] + `,"transfer":` + strconv.FormatInt(transfer, 10) + s[head:]
	}
	return s
}

// hostile are strings a peer may put in a path or a saved name, or that
// sit at the edges of encoding/json's escaping: quotes and backslashes,
// every control character with a short escape and without, the three
// HTML characters, DEL, invalid UTF-8 (a lone continuation byte, a
// truncated sequence, an overlong form, an encoded surrogate, bytes that
// never start UTF-8), U+2028 and U+2029 (and their neighbours, which are
// not escaped), U+FFFD itself, and runs of plain text between escapes.
var hostile = []string{
	"", "a", "plain/path/file.txt", `"`, `\`, `a\"b`, `\\server\share`,
	"\x00", "\x01\x02\x1f", "\b\f\n\r\t", "\v", "line\nbreak", "tab\there",
	"<script>alert(1)</script>", "a&b", "a<b>c", "&lt;", "\x7f", "del\x7fend",
	"\x80", "abc\xff", "\xc0\xaf", "\xe2\x80", "x\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80",
	"\u2028", "\u2029", "a\u2028b\u2029c", "\u2027\u202a", "\ufffd", "é", "日本語/ファイル.txt", "😀", "\U0010ffff",
	"mixed \"quote\" <tag> & \x00 \u2028 \xff é 😀 end",
	strings.Repeat("long/", 200) + "\n",
}

func TestAppendJSONString(t *testing.T) {
	cases := append([]string(nil), hostile...)
	for c := range 256 { // every byte alone, and after and before text
		cases = append(cases, string([]byte{byte(c)}), "ab"+string([]byte{byte(c)}), string([]byte{byte(c)})+"yz")
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
}

// The entry event's JSON, through Marshal, MarshalFor, AppendJSON and
// AppendJSONFor, is encoding/json's byte for byte, with hostile paths
// and saved names, every kind and outcome (and unknown ones), sizes at
// the ends of int64, and the Go-only fields set.
func TestEntryJSON(t *testing.T) {
	mod := time.Date(2026, 12, 5, 1, 2, 3, 4, time.UTC)
	var evs []EntryDone
	for i, s := range hostile {
		evs = append(evs,
			EntryDone{Entry: Entry{Path: s, Kind: KindFile, Size: int64(i)}, Outcome: Received},
			EntryDone{Entry: Entry{Path: "p", Kind: KindText, Size: -1}, Outcome: Resumed, SavedAs: s, Replaced: true, Session: 7},
			EntryDone{Entry: Entry{Path: s, Kind: Kind(i), Size: 1 << 62, Mode: 0o755, ModTime: mod}, Outcome: Outcome(i), SavedAs: s + s})
	}
	for _, size := range []int64{0, 1, -1, 9, 10, 4096, 1<<63 - 1, -1 << 63} {
		evs = append(evs, EntryDone{Entry: Entry{Path: "d", Kind: KindDir, Size: size}, Outcome: Created})
	}
	for _, e := range evs {
		want := encodingJSON(t, e, 0, false)
		if b, err := Marshal(e); err != nil || string(b) != want {
			t.Errorf("Marshal:\n got %s (%v)\nwant %s", b, err, want)
		}
		if b, err := AppendJSON([]byte("before\n"), e); err != nil || string(b) != "before\n"+want {
			t.Errorf("AppendJSON:\n got %s (%v)\nwant before\n%s", b, err, want)
		}
		for _, id := range []int64{0, 3, -1, 1<<63 - 1} {
			want := encodingJSON(t, e, id, true)
			if b, err := MarshalFor(e, id); err != nil || string(b) != want {
				t.Errorf("MarshalFor %d:\n got %s (%v)\nwant %s", id, b, err, want)
			}
			if b, err := AppendJSONFor([]byte("x"), e, id); err != nil || string(b) != "x"+want {
				t.Errorf("AppendJSONFor %d:\n got %s (%v)\nwant x%s", id, b, err, want)
			}
		}
	}
}

// Every field of EntryDone, its embedded Entry's included, set to a
// value that is not its zero: a field added to either with a JSON form
// shows in encoding/json's bytes and fails this test until appendJSON
// writes it too.
func TestEntryJSONEveryField(t *testing.T) {
	var e EntryDone
	fill(t, reflect.ValueOf(&e).Elem())
	if e.SavedAs == "" || e.Path == "" || e.Size == 0 || e.Session == 0 {
		t.Fatalf("fill left a field zero: %+v", e)
	}
	want := encodingJSON(t, e, 0, false)
	if b, _ := Marshal(e); string(b) != want {
		t.Errorf("every field set:\n got %s\nwant %s", b, want)
	}
}

// fill sets every settable field of v, recursively, to a value other
// than its zero.
func fill(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(1, 2)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i))
			}
		}
	case reflect.String:
		v.SetString("x<" + v.Type().Name() + ">")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(2)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	default:
		t.Fatalf("fill: a field of kind %v: teach fill and appendJSON about it", v.Kind())
	}
}

// An entry event appended to a buffer with room allocates nothing.
func TestAppendJSONAllocs(t *testing.T) {
	var ev Event = EntryDone{Entry: Entry{Path: "photos/2026/IMG_0001.jpg", Kind: KindFile, Size: 4096}, Outcome: Received, SavedAs: "photos/2026/IMG_0001 (1).jpg"}
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { buf, _ = AppendJSON(buf[:0], ev) }); n != 0 {
		t.Errorf("AppendJSON: %v allocations per entry event", n)
	}
	if n := testing.AllocsPerRun(100, func() { buf, _ = AppendJSONFor(buf[:0], ev, 12) }); n != 0 {
		t.Errorf("AppendJSONFor: %v allocations per entry event", n)
	}
}

// FuzzEntryJSON holds the hand-written entry event to encoding/json's
// on any path, saved name, size, kind and outcome. Its seeds are the
// hostile strings.
func FuzzEntryJSON(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, hostile[len(hostile)-1-i], int64(i)*4093-7, uint8(i), uint8(i/3), int64(i))
	}
	f.Fuzz(func(t *testing.T, path, savedAs string, size int64, kind, outcome uint8, transfer int64) {
		e := EntryDone{Entry: Entry{Path: path, Kind: Kind(kind), Size: size}, Outcome: Outcome(outcome), SavedAs: savedAs}
		if got, want := string(e.appendJSON(nil, 0, false)), encodingJSON(t, e, 0, false); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
		if got, want := string(e.appendJSON(nil, transfer, true)), encodingJSON(t, e, transfer, true); got != want {
			t.Fatalf("tagged:\n got %s\nwant %s", got, want)
		}
		if got := e.appendJSON(nil, 0, false); !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("not valid UTF-8 JSON: %q", got)
		}
	})
}

// BenchmarkEntryJSON is one entry event's line: as encoding/json made it
// (the baseline, what Marshal did before), through Marshal now, and
// appended to a reused buffer as the CLI writes it.
func BenchmarkEntryJSON(b *testing.B) {
	e := EntryDone{Entry: Entry{Path: "src/project/internal/file_0042.go", Kind: KindFile, Size: 4096}, Outcome: Received}
	var ev Event = e
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			j, _ := json.Marshal(ev)
			named(ev.Type(), j)
		}
	})
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Marshal(ev)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			buf, _ = AppendJSON(buf[:0], ev)
		}
	})
}
