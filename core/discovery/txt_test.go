package discovery

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/miekg/dns"
)

func TestParseTXT(t *testing.T) {
	const fp = "K7QX-M2PA-9RTE-WD4C"
	tests := []struct {
		name string
		txt  []string
		want txtInfo
	}{
		{"ours", buildTXT("Zoë's laptop", fp), txtInfo{1, "Zoë's laptop", fp}},
		{"empty", nil, txtInfo{}},
		{"junk skipped", []string{"", "=x", "noequals", "v=1"}, txtInfo{Version: 1}},
		{"keys case-insensitive", []string{"V=1", "NAME=a", "Fp=" + fp}, txtInfo{1, "a", fp}},
		{"first occurrence wins", []string{"name=first", "name=second", "v=2", "v=1"}, txtInfo{Version: 2, Name: "first"}},
		{"future version kept", []string{"v=7"}, txtInfo{Version: 7}},
		{"garbled version", []string{"v=one"}, txtInfo{}},
		{"negative version", []string{"v=-1"}, txtInfo{}},
		{"zero version", []string{"v=0"}, txtInfo{}},
		{"overflowing version", []string{"v=99999999999999999999999"}, txtInfo{}},
		{"fingerprint any case and dashing", []string{"fp=k7qxm2pa-9rte-wd4c"}, txtInfo{Fingerprint: fp}},
		{"fingerprint too short", []string{"fp=K7QX-M2PA-9RTE-WD4"}, txtInfo{}},
		{"fingerprint too long", []string{"fp=K7QX-M2PA-9RTE-WD4CA"}, txtInfo{}},
		{"fingerprint look-alike letter", []string{"fp=K7QX-M2PA-9RTE-WD4O"}, txtInfo{}},
		{"escaped utf-8 name", []string{`name=Zo\195\171`}, txtInfo{Name: "Zoë"}},
		{"escaped quote and backslash", []string{`name=a\"b\\c`}, txtInfo{Name: `a"b\c`}},
		{"terminal escape removed", []string{`name=evil\027[31mred`}, txtInfo{Name: "evil [31mred"}},
		{"bidi override removed", []string{"name=abc\u202edef"}, txtInfo{Name: "abc def"}},
		{"invalid utf-8 replaced", []string{`name=a\255b`}, txtInfo{Name: "a\uFFFDb"}},
		{"spaces collapsed and trimmed", []string{"name=  a \t b  "}, txtInfo{Name: "a b"}},
		{"lone trailing backslash", []string{`name=ab\`}, txtInfo{Name: "ab"}},
		{"ddd over 255 is literal", []string{`name=\300`}, txtInfo{Name: "300"}},
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

// TestTXTWire sends our TXT through miekg/dns both ways, as zeroconf does,
// and checks the wire holds plain UTF-8 that other browsers read as is.
func TestTXTWire(t *testing.T) {
	name := `Zoë's "laptop" \ v2.0`
	txt := buildTXT(name, "K7QX-M2PA-9RTE-WD4C")
	rr := &dns.TXT{Hdr: dns.RR_Header{Name: "x.local.", Rrtype: dns.TypeTXT, Class: dns.ClassINET}, Txt: txt}
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
	if got := parseTXT(back.(*dns.TXT).Txt); got.Name != name || got.Version != 1 {
		t.Errorf("round trip = %+v, want name %q version 1", got, name)
	}
}

func TestInstanceName(t *testing.T) {
	const fp = "K7QX-M2PA-9RTE-WD4C"
	tests := []struct{ name, want string }{
		{"laptop", "laptop (K7QX)"},
		{"Zoë's laptop", "Zoë's laptop (K7QX)"},
		{"a.b\\c", "a.b\\c (K7QX)"},
		{strings.Repeat("x", 100), strings.Repeat("x", 63-7) + " (K7QX)"},
		{strings.Repeat("é", 40), strings.Repeat("é", 28) + " (K7QX)"}, // cut on a rune boundary
	}
	for _, tt := range tests {
		got := instanceName(tt.name, fp)
		if got != tt.want {
			t.Errorf("instanceName(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if len(got) > maxInstanceBytes {
			t.Errorf("instanceName(%q) is %d bytes, over a label", tt.name, len(got))
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
		inst, _ := cutSuffixFold(back, "."+serviceFQDN)
		if raw := unescapePresentation(inst); raw != got {
			t.Errorf("instance %q came back as %q", got, raw)
		}
	}
}

// FuzzParseTXT feeds TXT strings, one per line, to the parser. It must not
// panic, and what it returns must be safe to show and well formed.
func FuzzParseTXT(f *testing.F) {
	f.Add("v=1\nname=Zoë's laptop\nfp=K7QX-M2PA-9RTE-WD4C")
	f.Fuzz(func(t *testing.T, s string) {
		info := parseTXT(strings.Split(s, "\n"))
		if info.Version < 0 {
			t.Errorf("negative version %d", info.Version)
		}
		if info.Fingerprint != "" && canonicalFingerprint(info.Fingerprint) != info.Fingerprint {
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
