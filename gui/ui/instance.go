package ui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// One app per person (and per config folder): a second `ferry-gui FILE...`
// (a file manager's "Send with Ferry" on a desktop where Ferry is open)
// hands its files to the running app, which selects them and comes to the
// front, and exits. Two windows would be two receivers with two codes on
// one device, and the person would have to find the one that holds the
// files.
//
// The running app listens on a Unix socket in the person's runtime folder
// ($XDG_RUNTIME_DIR, which only they can enter; without one, a folder of
// theirs under the temporary folder, created private; on Windows, whose
// AF_UNIX sockets Go supports from Windows 10 on, the temporary folder is
// the person's own). Only Linux runs it in tests. A second process
// connects, writes one JSON line (the files or the link), and waits for
// "ok". A socket file that nobody answers on is left by an app that
// crashed; it is removed and taken over. An app that is started with its
// own FERRY_CONFIG_DIR is another device, with a socket of its own.

// handoff is the one message on the socket.
type handoff struct {
	Files []string `json:"files,omitempty"`
	Link  string   `json:"link,omitempty"`
}

// maxHandoff bounds the message a running app reads from the socket.
const maxHandoff = 4 << 20

// handoffTimeout bounds how long a second process waits for the running
// app to answer, and the running app for the message. A hung app does
// not keep a file manager's click waiting: the second process then opens
// its own window.
const handoffTimeout = 10 * time.Second

// InstanceSocket is the socket path for the app that keeps its key in
// configDir ("" for the default folder).
func InstanceSocket(configDir string) (string, error) {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	switch {
	case dir != "":
	case runtime.GOOS == "windows":
		// The temporary folder is the person's own (under their
		// AppData); permission bits mean nothing there.
		dir = filepath.Join(os.TempDir(), "ferry")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("creating a folder for the app's socket: %w", err)
		}
	default:
		dir = filepath.Join(os.TempDir(), "ferry-"+strconv.Itoa(os.Getuid()))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("creating a folder for the app's socket: %w", err)
		}
		// Someone else's folder of that name must not receive the files.
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("%s is not a private folder: remove it, or set XDG_RUNTIME_DIR", dir)
		}
	}
	name := "ferry-gui.sock"
	if configDir != "" {
		abs, _ := filepath.Abs(configDir)
		sum := sha256.Sum256([]byte(abs))
		name = "ferry-gui-" + hex.EncodeToString(sum[:6]) + ".sock"
	}
	return filepath.Join(dir, name), nil
}

// Claim makes this process the running app, or hands a to the one that
// runs already. It returns the listener to pass to ServeInstance, or
// handed true when the running app took a and this process should exit.
func Claim(sock string, a Args) (l net.Listener, handed bool, err error) {
	for try := 0; try < 2; try++ {
		l, err = net.Listen("unix", sock)
		if err == nil {
			return l, false, nil
		}
		if _, serr := os.Lstat(sock); serr != nil {
			return nil, false, fmt.Errorf("listening for other ferry-gui processes: %w", err)
		}
		if handed, herr := Handoff(sock, a); handed {
			return nil, true, nil
		} else if herr != nil && !isRefused(herr) {
			return nil, false, herr
		}
		// Nobody answers: an app that crashed left the file.
		os.Remove(sock)
	}
	return nil, false, fmt.Errorf("listening for other ferry-gui processes: %w", err)
}

// Handoff gives a to the app listening on sock. It reports false with no
// error when none listens there.
func Handoff(sock string, a Args) (bool, error) {
	c, err := net.DialTimeout("unix", sock, handoffTimeout)
	if err != nil {
		return false, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(handoffTimeout))
	b, _ := json.Marshal(handoff{Files: a.Files, Link: a.Link})
	if _, err := c.Write(append(b, '\n')); err != nil {
		return false, fmt.Errorf("handing the files to the running app: %w", err)
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || reply != "ok\n" {
		return false, fmt.Errorf("the running app did not take the files (%v)", err)
	}
	return true, nil
}

func isRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// ServeInstance takes hand-offs from other ferry-gui processes on l until
// Close. Each one selects its files (or opens its link) and raises the
// window.
func (u *UI) ServeInstance(l net.Listener) {
	u.goroutine(func() {
		<-u.ctx.Done()
		l.Close()
	})
	u.goroutine(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u.takeHandoff(c)
		}
	})
}

// takeHandoff reads one message and answers once the UI has it.
func (u *UI) takeHandoff(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(handoffTimeout))
	line, err := bufio.NewReader(io.LimitReader(c, maxHandoff)).ReadBytes('\n')
	if err != nil {
		return
	}
	var m handoff
	if json.Unmarshal(line, &m) != nil {
		return
	}
	took := make(chan struct{})
	u.do(func() {
		defer close(took)
		switch {
		case m.Link != "":
			u.OpenLink(m.Link)
		case len(m.Files) > 0:
			u.OpenFiles(m.Files)
		}
		u.ShowWindow() // out of the tray, if it hides there
	})
	select {
	case <-took:
		io.WriteString(c, "ok\n")
	case <-u.ctx.Done():
	}
}
