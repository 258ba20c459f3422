package history

import (
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"
)

// TestTopNamesCounts checks TopNames against a set of every name, on
// lists whose names repeat out of order, in and past the first maxNames,
// including names that are not clean ("a/../b", "./c").
func TestTopNamesCounts(t *testing.T) {
	lists := [][]string{
		nil,
		{"a"},
		{"a", "a/b", "a"},
		{"x/1", "y", "x/2", "y/3", "z"},
		{"./c", "c/d", "a/../b", "b"},
	}
	var many, twice []string
	for i := range 30 {
		many = append(many, fmt.Sprintf("n%02d", i), fmt.Sprintf("n%02d/inner", i%11))
		twice = append(twice, fmt.Sprintf("m%02d", i%13))
	}
	lists = append(lists, many, twice, append(twice, many...))
	for _, paths := range lists {
		var want []string
		seen := map[string]bool{}
		for _, p := range paths {
			top, _, _ := strings.Cut(path.Clean(p), "/")
			if !seen[top] {
				seen[top] = true
				want = append(want, top)
			}
		}
		wantMore := max(len(want)-maxNames, 0)
		want = want[:min(len(want), maxNames)]
		names, more := TopNames(paths)
		if !reflect.DeepEqual(names, want) && len(want)+len(names) > 0 || more != wantMore {
			t.Errorf("TopNames(%q) = %q + %d, want %q + %d", paths, names, more, want, wantMore)
		}
	}
}
