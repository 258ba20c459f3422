package platform

import (
	"errors"
	"fmt"
)

// A browser page (the page's js/wasm build) has no folders of its own:
// it keeps nothing on disk, and what it receives goes to the browser's
// downloads. Answering here keeps xdg, and the environment it reads,
// out of that build.
var errNoFolders = errors.New("a browser page has no folders of its own")

// ConfigDir has no answer in a browser page.
func ConfigDir() (string, error) {
	return "", fmt.Errorf("finding the config folder: %w", errNoFolders)
}

// DownloadDir has no answer in a browser page.
func DownloadDir() (string, error) {
	return "", fmt.Errorf("finding the download folder: %w", errNoFolders)
}
