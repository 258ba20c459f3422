package receive

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// TestOSKinds covers the engine's own rules: the operating system's and
// the network's errors, which carry no kind, and how they rank against
// the sentinels they come wrapped with.
func TestOSKinds(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tt := range []struct {
		err  error
		want errkind.Kind
	}{
		{nil, ""},
		{errors.New("disk on fire"), errkind.Failure},
		{context.Canceled, errkind.Cancelled},
		{context.DeadlineExceeded, errkind.Timeout},
		{dial, errkind.Unreachable},
		{&net.DNSError{Err: "no such host", Name: "box.invalid"}, errkind.Unreachable},
		{&net.OpError{Op: "listen", Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}, errkind.AddressInUse},
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, errkind.ConnectionLost},
		{&net.OpError{Op: "write", Err: errors.New("broken")}, errkind.ConnectionLost},
		{os.NewSyscallError("write", syscall.ENOSPC), errkind.NoSpace},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, errkind.Permission},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EROFS}, errkind.Permission},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, errkind.FileMissing},
		{errkind.New(errkind.Usage, "bad flags"), errkind.Usage},
		// A sentinel more specific than the system's error wins, and a
		// system's error more specific than a sentinel does.
		{errors.Join(transfer.ErrCancelled, os.NewSyscallError("read", syscall.ECONNRESET)), errkind.Cancelled},
		{errors.Join(os.NewSyscallError("write", syscall.ENOSPC), secure.ErrConnectionLost), errkind.NoSpace},
		{errors.Join(dial, secure.ErrConnectionLost), errkind.ConnectionLost},
	} {
		if got := transfer.KindOf(tt.err); got != tt.want {
			t.Errorf("kindOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
		if got := errkind.Of(transfer.WithKind(tt.err)); got != tt.want {
			t.Errorf("errkind.Of(withKind(%v)) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestKindsLeaveTheEngine: the system's errors reach a front end with
// their kind, in what Send and NewReceiver return and in the Failed
// event, so that errkind.Of alone names them: a real dial to a closed
// port, a real listen on a taken one, a real file that is gone.
func TestKindsLeaveTheEngine(t *testing.T) {
	sid, rid := ids(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	taken := ln.Addr().String()
	closed := func() string { // a port nobody listens on any more
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}()
	defer ln.Close()

	var failed []error
	onEvent := func(ev event.Event) {
		if f, ok := ev.(event.Error); ok {
			failed = append(failed, f.Err)
		}
	}
	_, err = send.Send(t.Context(), send.SendConfig{Addrs: []string{closed}, Code: "424242", Identity: sid,
		Items: []event.Item{{Text: "x"}}, OnEvent: onEvent})
	if k := errkind.Of(err); k != errkind.Unreachable {
		t.Errorf("Send to a closed port: %v, kind %q", err, k)
	}
	_, err = send.Send(t.Context(), send.SendConfig{Addrs: []string{closed}, Code: "424242", Identity: sid,
		Items: []event.Item{{Path: filepath.Join(t.TempDir(), "gone")}}, OnEvent: onEvent})
	if k := errkind.Of(err); k != errkind.FileMissing {
		t.Errorf("Send of a missing file: %v, kind %q", err, k)
	}
	if len(failed) != 2 || errkind.Of(failed[0]) != errkind.Unreachable || errkind.Of(failed[1]) != errkind.FileMissing {
		t.Errorf("Failed events: %v", failed)
	}
	_, err = NewReceiver(ReceiverConfig{Dir: t.TempDir(), Identity: rid, Listen: taken})
	if k := errkind.Of(err); k != errkind.AddressInUse {
		t.Errorf("NewReceiver on a taken port: %v, kind %q", err, k)
	}
}
