package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"fyne.io/fyne/v2/dialog"
)

// Files handed to the app from outside (its command line, a file
// manager's "Send with Ferry", a second ferry-gui handing them to this
// one) are added to the Send view's selection, after whatever was
// selected already, and the Send view is shown. A path that does not
// exist is not added: one dialog names every such path and says the
// others were selected, so a stale entry in a file manager costs nothing
// but that message.

// Files can arrive while a send runs (a file manager does not know): they
// join the selection behind the progress panel, and "Send more" takes off
// only what was sent, so they are there to send next.

// drop removes the given items from the selection, keeping the others in
// order.
func (s *selection) drop(items []*selItem) {
	gone := make(map[*selItem]bool, len(items))
	for _, it := range items {
		gone[it] = true
	}
	kept := s.items[:0]
	for _, it := range s.items {
		if !gone[it] {
			kept = append(kept, it)
		}
	}
	clear(s.items[len(kept):])
	s.items = kept
}

// OpenFiles selects paths on the Send view and shows it. It returns the
// error the dialog shows, or nil when every path was added.
func (u *UI) OpenFiles(paths []string) error {
	var ok, missing []string
	u.notice = ""
	for _, p := range paths {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, p)
			continue
		}
		ok = append(ok, p)
	}
	u.tabs.Select(u.sendTab)
	if len(missing) == 0 {
		u.send.addPaths(ok...) // saves the state
		return nil
	}
	if len(ok) > 0 {
		u.send.addPaths(ok...)
	}
	err := notFound(missing, len(ok))
	u.notice = err.Error()
	d := dialog.NewInformation("Not everything could be selected", err.Error(), u.cfg.Window)
	d.Show()
	u.saveState()
	return err
}

// notFound says which paths do not exist and what happened to the rest.
func notFound(missing []string, added int) error {
	what := "Nothing is at " + missing[0] + ": it may have been moved, renamed or deleted."
	if len(missing) > 1 {
		what = fmt.Sprintf("Nothing is at these %d paths: they may have been moved, renamed or deleted.\n%s", len(missing), strings.Join(missing, "\n"))
	}
	rest := "Nothing else was given."
	switch {
	case added == 1:
		rest = "The other file was selected."
	case added > 1:
		rest = fmt.Sprintf("The %d other files were selected.", added)
	}
	return fmt.Errorf("%s\n%s", what, rest)
}

// state is what FERRY_GUI_STATE dumps: enough for a test outside the
// process to check what the Send view holds, without reading pixels.
type state struct {
	View   string      `json:"view"`
	Send   []stateItem `json:"send"`
	Notice string      `json:"notice,omitempty"`
}

type stateItem struct {
	Kind  string `json:"kind"` // file, folder or text
	Path  string `json:"path,omitempty"`
	Text  string `json:"text,omitempty"`
	Size  int64  `json:"size"`
	Error string `json:"error,omitempty"`
}

// saveState writes the state file, when there is one, through a
// temporary file and a rename: a reader never sees half of it. Called on
// the UI goroutine whenever the selection changes. Failures are ignored:
// the file is for tests, and the app must not stop over it.
func (u *UI) saveState() {
	if u.cfg.StateFile == "" || u.send == nil || u.tabs == nil {
		return
	}
	st := state{View: strings.ToLower(u.tabs.Selected().Text), Send: []stateItem{}, Notice: u.notice}
	for _, it := range u.send.sel.items {
		si := stateItem{Kind: "file", Path: it.Path, Size: it.Size}
		switch {
		case it.isText():
			si = stateItem{Kind: "text", Text: it.Text, Size: it.Size}
		case it.Dir:
			si.Kind = "folder"
		}
		if it.Err != nil {
			si.Error = it.Err.Error()
		}
		st.Send = append(st.Send, si)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return
	}
	tmp := u.cfg.StateFile + ".tmp"
	if os.WriteFile(tmp, append(b, '\n'), 0o600) == nil {
		os.Rename(tmp, u.cfg.StateFile)
	}
}
