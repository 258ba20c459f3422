package trust

import (
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/core/errkind"
)

// TestFileErrorKinds: a corrupt or newer trust file is trust_file, as the
// error the package builds for it, not only as the bare sentinel.
func TestFileErrorKinds(t *testing.T) {
	for _, err := range []error{corrupt("/t/trusted.json", "line %d", 2), fmt.Errorf("%w: version 9", ErrUnsupportedVersion)} {
		if k := errkind.Of(err); k != errkind.TrustFile {
			t.Errorf("%v: kind %q", err, k)
		}
	}
}
