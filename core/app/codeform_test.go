package app

import (
	"strings"
	"testing"
)

func TestCheckCodeForm(t *testing.T) {
	for _, ok := range []string{"123456", "000000", "apple-river-stone", strings.Repeat("a", 64), "ABCdef"} {
		if err := CheckCodeForm(ok); err != nil {
			t.Errorf("CheckCodeForm(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "abc", "12345", "123 456", "12345\x1b", strings.Repeat("a", 65), "12345é", "123456/"} {
		if err := CheckCodeForm(bad); err == nil {
			t.Errorf("CheckCodeForm(%q) = nil, want an error", bad)
		}
	}
}
