package discovery

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/miekg/dns"

	"github.com/ferry-project/ferry/core/secure"
)

func TestTXTStrings(t *testing.T) {
	const fp = "K7QX-M2PA-9RTE-WD4C"
	tests := []struct {
		name, fp string
		want     []string
	}{
		{"Zoë's laptop", fp, []string{"v=2", "name=Zoë's laptop", "fp=" + fp}},
		{" Zoë's\tlaptop\u202e ", "k7qxm2pa9rtewd4c", []string{"v=2", "name=Zoë's laptop", "fp=" + fp}},
		{"a.b\\c", "not a fingerprint", []string{"v=2", `name=a.b\c`, "fp="}},
		{strings.Repeat("é", 200), fp, []string{"v=2", "name=" + strings.Repeat("é", 125), "fp=" + fp}},
	}
	for _, tt := range tests {
		got := TXTStrings(tt.name, tt.fp)
		if !slices.Equal(got, tt.want) {
			t.Errorf("TXTStrings(%q, %q) = %q, want %q", tt.name, tt.fp, got, tt.want)
		}
		for _, s := range got {
			if len(s) > 255 {
				t.Errorf("TXTStrings(%q, %q): %d-byte string, over a TXT string", tt.name, tt.fp, len(s))
			}
		}
	}
}

// TestParseTXT reads raw strings; TestUnescapePresentation covers the
// escaped form zeroconf hands over.
func TestParseTXT(t *testing.T) {
	const fp = "K7QX-M2PA-9RTE-WD4C"
	tests := []struct {
		name string
		txt  []string
		want txtInfo
	}{
		{"ours", TXTStrings("Zoë's laptop", fp), txtInfo{ProtocolVersion, "Zoë's laptop", fp}},
		{"empty", nil, txtInfo{}},
		{"junk skipped", []string{"", "=x", "noequals", "v=1"}, txtInfo{Version: 1}},
		{"keys case-insensitive", []string{"V=1", "NAME=a", "Fp=" + fp}, txtInfo{1, "a", fp}},
		{"first occurrence wins", []string{"name=first", "name=second", "v=2", "v=1"}, txtInfo{Version: 2, Name: "first"}},
		{"first wins across case", []string{"V=2", "v=1", "name=a", "NAME=b"}, txtInfo{Version: 2, Name: "a"}},
		{"unusable first value still wins", []string{"v=zero", "v=3"}, txtInfo{}},
		{"future version kept", []string{"v=7"}, txtInfo{Version: 7}},
		{"garbled version", []string{"v=one"}, txtInfo{}},
		{"negative version", []string{"v=-1"}, txtInfo{}},
		{"zero version", []string{"v=0"}, txtInfo{}},
		{"overflowing version", []string{"v=99999999999999999999999"}, txtInfo{}},
		{"fingerprint any case and dashing", []string{"fp=k7qxm2pa-9rte-wd4c"}, txtInfo{Fingerprint: fp}},
		{"fingerprint with spaces", []string{"fp=K7QX M2PA 9RTE WD4C"}, txtInfo{Fingerprint: fp}},
		{"fingerprint too short", []string{"fp=K7QX-M2PA-9RTE-WD4"}, txtInfo{}},
		{"fingerprint too long", []string{"fp=K7QX-M2PA-9RTE-WD4CA"}, txtInfo{}},
		{"fingerprint extra group", []string{"fp=K7QX-M2PA-9RTE-WD4C-EXTR"}, txtInfo{}},
		{"fingerprint look-alike letter", []string{"fp=K7QX-M2PA-9RTE-WD4O"}, txtInfo{}},
		{"fingerprint non-ASCII upper-casing to the alphabet", []string{"fp=K7QX-M2PA-9RTE-WD4\u017f"}, txtInfo{}},
		{"utf-8 name", []string{"name=Zoë"}, txtInfo{Name: "Zoë"}},
		{"terminal escape removed", []string{"name=evil\x1b[31mred"}, txtInfo{Name: "evil [31mred"}},
		{"bidi override removed", []string{"name=abc\u202edef"}, txtInfo{Name: "abc def"}},
		{"invalid utf-8 replaced", []string{"name=a\xffb"}, txtInfo{Name: "a\uFFFDb"}},
		{"spaces collapsed and trimmed", []string{"name=  a \t b  "}, txtInfo{Name: "a b"}},
		{"long name cut", []string{"name=" + strings.Repeat("x", 300)}, txtInfo{Name: strings.Repeat("x", maxNameBytes)}},
		{"equals in value", []string{"name=a=b"}, txtInfo{Name: "a=b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseTXT(tt.txt); got != tt.want {
				t.Errorf("parseTXT(%q) = %+v, want %+v", tt.txt, got, tt.want)
			}
		})
	}
}

func TestUnescapePresentation(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{`Zo\195\171`, "Zoë"},
		{`a\"b\\c`, `a"b\c`},
		{`a\.b`, "a.b"},
		{`evil\027[31m`, "evil\x1b[31m"},
		{`a\255b`, "a\xffb"},
		{`ab\`, "ab"},      // lone trailing backslash dropped
		{`\300`, "300"},    // over 255: an escaped '3'
		{`\12`, "12"},      // too short for \DDD
		{`\000`, "\x00"},   // the smallest \DDD
		{`\\195`, `\195`},  // an escaped backslash, then digits
		{`\1234`, "\x7b4"}, // \DDD takes three digits
	}
	for _, tt := range tests {
		if got := unescapePresentation(tt.in); got != tt.want {
			t.Errorf("unescapePresentation(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// What Advertise escapes comes back as it was.
	for _, s := range []string{`a.b\c`, `\\..\`, "name=Zoë's \"laptop\""} {
		if got := unescapePresentation(escapePresentation(s)); got != s {
			t.Errorf("round trip of %q gave %q", s, got)
		}
	}
}

// TestTXTWire sends our TXT through miekg/dns both ways, as zeroconf does,
// and checks the wire holds plain UTF-8 that other browsers read as is.
func TestTXTWire(t *testing.T) {
	name := `Zoë's "laptop" \ v2.0`
	rr := &dns.TXT{Hdr: dns.RR_Header{Name: "x.local.", Rrtype: dns.TypeTXT, Class: dns.ClassINET},
		Txt: escapeTXT(TXTStrings(name, "K7QX-M2PA-9RTE-WD4C"))}
	buf := make([]byte, 1024)
	n, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(buf[:n]), "name="+name) {
		t.Errorf("wire form lacks the raw name: %q", buf[:n])
	}
	back, _, err := dns.UnpackRR(buf[:n], 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := parseTXT(unescapeTXT(back.(*dns.TXT).Txt)); got.Name != name || got.Version != ProtocolVersion {
		t.Errorf("round trip = %+v, want name %q version %d", got, name, ProtocolVersion)
	}
}

// serviceFQDN is the browse name as mDNS spells it.
const serviceFQDN = Service + ".local."

func TestInstanceName(t *testing.T) {
	const fp = "K7QX-M2PA-9RTE-WD4C"
	tests := []struct{ name, fp, want string }{
		{"laptop", fp, "laptop (K7QX)"},
		{"Zoë's laptop", fp, "Zoë's laptop (K7QX)"},
		{"Zoë's\tphone\u202e", "k7qx m2pa 9rte wd4c", "Zoë's phone (K7QX)"},
		{"a.b\\c", fp, "a.b\\c (K7QX)"},
		{strings.Repeat("x", 100), fp, strings.Repeat("x", 63-7) + " (K7QX)"},
		{strings.Repeat("é", 40), fp, strings.Repeat("é", 28) + " (K7QX)"}, // cut on a rune boundary
		{"laptop", "K7Q", "laptop"},                                        // no fingerprint, no group
		{strings.Repeat("x", 100), "", strings.Repeat("x", 63)},
	}
	for _, tt := range tests {
		got := InstanceName(tt.name, tt.fp)
		if got != tt.want {
			t.Errorf("InstanceName(%q, %q) = %q, want %q", tt.name, tt.fp, got, tt.want)
		}
		if len(got) > maxInstanceBytes {
			t.Errorf("InstanceName(%q, %q) is %d bytes, over a label", tt.name, tt.fp, len(got))
		}
		// Through miekg/dns as zeroconf does, and back as a browser sees it.
		fqdn := escapePresentation(got) + "." + serviceFQDN
		buf := make([]byte, 512)
		n, err := dns.PackDomainName(fqdn, buf, 0, nil, false)
		if err != nil {
			t.Fatalf("packing %q: %v", fqdn, err)
		}
		back, _, err := dns.UnpackDomainName(buf[:n], 0)
		if err != nil {
			t.Fatal(err)
		}
		inst, _ := strings.CutSuffix(back, "."+serviceFQDN)
		if raw := unescapePresentation(inst); raw != got {
			t.Errorf("instance %q came back as %q", got, raw)
		}
	}
}

func TestCleanName(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"  plain  ", 63, "plain"},
		{"a\x1b[31mred", 63, "a [31mred"},
		{"bidi\u202eevil", 63, "bidi evil"},
		{"zero\u200bwidth", 63, "zero width"},
		{"many   \n\t spaces", 63, "many spaces"},
		{"bad utf8 \xff", 63, "bad utf8 \uFFFD"},
		{"", 63, ""},
		{"\x00\x1b\u202e", 63, ""},
		{strings.Repeat("é", 40) + "xy", 63, strings.Repeat("é", 31)}, // 62 bytes: the next é does not fit
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"ab cd", 3, "ab"}, // no trailing space where the next rune does not fit
		{"ab c", 4, "ab c"},
	}
	for _, tt := range tests {
		if got := cleanName(tt.in, tt.max); got != tt.want {
			t.Errorf("cleanName(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// FuzzParseTXT feeds TXT strings, one per line, in the escaped form
// zeroconf hands over, to the parser. It must not panic, and what it
// returns must be safe to show and well formed.
func FuzzParseTXT(f *testing.F) {
	f.Add("v=1\nname=Zoë's laptop\nfp=K7QX-M2PA-9RTE-WD4C")
	f.Fuzz(func(t *testing.T, s string) {
		info := parseTXT(unescapeTXT(strings.Split(s, "\n")))
		if info.Version < 0 {
			t.Errorf("negative version %d", info.Version)
		}
		if info.Fingerprint != "" && secure.CanonicalFingerprint(info.Fingerprint) != info.Fingerprint {
			t.Errorf("fingerprint %q not canonical", info.Fingerprint)
		}
		if !utf8.ValidString(info.Name) || len(info.Name) > maxNameBytes {
			t.Errorf("name %q invalid or too long", info.Name)
		}
		for _, r := range info.Name {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Errorf("name %q holds control character %U", info.Name, r)
			}
		}
		if info.Name != strings.TrimSpace(info.Name) {
			t.Errorf("name %q not trimmed", info.Name)
		}
	})
}
