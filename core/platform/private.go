package platform

import "fmt"

// NotPrivateError is a secret's file that others can read or write. Its
// text, after a caller's "static key" or "trust file", names the file,
// who else has access and the command that fixes it on this OS.
type NotPrivateError struct {
	Path string // the file
	Who  string // who else has access: "mode -rw-r--r--", or the accounts on Windows
	Fix  string // the command a person runs to make it private
}

func (e *NotPrivateError) Error() string {
	return fmt.Sprintf("%s is open to others (%s): %s", e.Path, e.Who, e.Fix)
}
