// Package instance keeps one running app per person and per config
// folder: a later launch hands what it was started with (files, a link)
// to the running one over a Unix socket, and exits.
//
// Two windows would be two receivers with two codes on one device, and
// the person would have to find the one that holds the files. So the
// first process listens on a socket in the person's runtime folder
// ($XDG_RUNTIME_DIR, which only they can enter; without one, a folder of
// theirs under the temporary folder, created private; on Windows, whose
// AF_UNIX sockets Go supports from Windows 10 on, the temporary folder is
// the person's own). A later process connects, writes one JSON line (a
// Handoff), and waits for "ok". A socket file that nobody answers on is
// left by an app that crashed; it is removed and taken over. An app that
// is started with its own config folder is another device, with a socket
// of its own.
//
// The package owns the socket, the claim and the wire form; what the app
// does with a hand-off is its own.
package instance

import (
	"bufio"
	"context"
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

// Handoff is the one message on the socket: what a later launch was
// started with.
type Handoff struct {
	Files []string `json:"files,omitempty"`
	Link  string   `json:"link,omitempty"`
}

// maxHandoff bounds the message a running app reads from the socket.
const maxHandoff = 4 << 20

// timeout bounds how long a later process waits for the running app to
// answer, and the running app for the message. A hung app does not keep
// a file manager's click waiting: the later process then opens its own
// window.
const timeout = 10 * time.Second

// Socket is the socket path for the app that keeps its key in configDir
// ("" for the default folder).
func Socket(configDir string) (string, error) {
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

// Claim makes this process the running app, or hands h to the one that
// runs already. It returns the listener to pass to Serve, or handed true
// when the running app took h and this process should exit.
func Claim(sock string, h Handoff) (l net.Listener, handed bool, err error) {
	for try := 0; try < 2; try++ {
		l, err = net.Listen("unix", sock)
		if err == nil {
			return l, false, nil
		}
		if _, serr := os.Lstat(sock); serr != nil {
			return nil, false, fmt.Errorf("listening for other ferry-gui processes: %w", err)
		}
		if handed, herr := Send(sock, h); handed {
			return nil, true, nil
		} else if herr != nil && !isRefused(herr) {
			return nil, false, herr
		}
		// Nobody answers: an app that crashed left the file.
		os.Remove(sock)
	}
	return nil, false, fmt.Errorf("listening for other ferry-gui processes: %w", err)
}

// Send gives h to the app listening on sock. It reports false with no
// error when none listens there.
func Send(sock string, h Handoff) (bool, error) {
	c, err := net.DialTimeout("unix", sock, timeout)
	if err != nil {
		return false, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	b, _ := json.Marshal(h)
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

// Serve takes hand-offs on l, one at a time, until ctx ends (which
// closes l) or l fails. take gets each message and reports whether the
// app has it: only then is the later process told "ok", so that one
// whose files were not taken opens its own window.
func Serve(ctx context.Context, l net.Listener, take func(Handoff) bool) {
	context.AfterFunc(ctx, func() { l.Close() })
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		answer(c, take)
	}
}

// answer reads one message from c and says "ok" once take has it.
func answer(c net.Conn, take func(Handoff) bool) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	line, err := bufio.NewReader(io.LimitReader(c, maxHandoff)).ReadBytes('\n')
	if err != nil {
		return
	}
	var h Handoff
	if json.Unmarshal(line, &h) != nil {
		return
	}
	if take(h) {
		io.WriteString(c, "ok\n")
	}
}
