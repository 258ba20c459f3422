//go:build linux

package main

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/filehash"
)

// floorPair runs floorRecv into dst (with placer or not) on one end of a real loopback TCP
// connection and hands the other end to send; it returns floorRecv's
// error.
func floorPair(t *testing.T, dst string, crypto, placer bool, send func(*net.TCPConn)) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan error, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			got <- err
			return
		}
		defer nc.Close()
		got <- floorRecv(nc, dst, crypto, placer)
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	send(nc.(*net.TCPConn))
	return <-got
}

// TestFloorDelivers: the floor's two ends carry a folder whole, with
// and without the hash and the seal, placing on a second goroutine or
// not: every file's bytes, mode and time,
// a file larger than a batch and an empty one, folders inside folders,
// and a link left out.
func TestFloorDelivers(t *testing.T) {
	src := filepath.Join(t.TempDir(), "item")
	big := make([]byte, 2*floorBatch+123)
	rand.Read(big)
	files := map[string][]byte{"a.txt": []byte("hello"), "sub/b.bin": big, "sub/deeper/c": nil}
	when := time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for name, b := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ crypto, placer bool }{{true, true}, {true, false}, {false, true}} {
		crypto := c.crypto
		dst := t.TempDir()
		var sendErr error
		err := floorPair(t, dst, crypto, c.placer, func(nc *net.TCPConn) { sendErr = floorSend(nc, src, crypto) })
		if err != nil || sendErr != nil {
			t.Fatalf("crypto %v: receiver %v, sender %v", crypto, err, sendErr)
		}
		for name, want := range files {
			p := filepath.Join(dst, "item", name)
			got, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("crypto %v: %s: %d bytes, want %d (%v)", crypto, name, len(got), len(want), err)
				continue
			}
			fi, _ := os.Stat(p)
			if fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(when) {
				t.Errorf("crypto %v: %s: mode %v time %v, want 0640 and %v", crypto, name, fi.Mode(), fi.ModTime(), when)
			}
		}
		if _, err := os.Lstat(filepath.Join(dst, "item", "link")); !os.IsNotExist(err) {
			t.Errorf("crypto %v: the link was sent (%v)", crypto, err)
		}
	}
}

// floorFrame is one file's frame as floorSender writes it, with sum as
// its hash when not nil.
func floorFrame(name string, data, sum []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint32(b, 0o644)
	b = binary.BigEndian.AppendUint64(b, uint64(time.Now().UnixNano()))
	b = binary.BigEndian.AppendUint64(b, uint64(len(data)))
	b = append(b, data...)
	return append(b, sum...)
}

// sendFrames writes frames as one batch, sealed as the first batch is
// when crypto, then the end.
func sendFrames(nc *net.TCPConn, crypto bool, frames []byte) {
	if crypto {
		var nonce [12]byte
		frames = floorAEAD().Seal(nil, nonce[:], frames, nil)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(frames)))
	out = append(out, frames...)
	nc.Write(append(out, 0, 0, 0, 0))
	nc.CloseWrite()
}

// TestFloorRefuses: the floor keeps what it claims to measure: a name
// that leaves the folder, bytes whose hash does not match and a name
// already taken are refused, and nothing of them is left under a name.
func TestFloorRefuses(t *testing.T) {
	h := filehash.New()
	h.Write([]byte("other bytes"))
	wrong := h.Sum(nil)
	for _, c := range []struct {
		name, want string
		crypto     bool
		frame      []byte
	}{
		{"a name out of the folder", "not a plain relative path", false, floorFrame("item/../../evil", []byte("x"), nil)},
		{"an absolute name", "not a plain relative path", false, floorFrame("/tmp/evil", []byte("x"), nil)},
		{"a wrong hash", "the hash does not match", true, floorFrame("item/f", []byte("these bytes"), wrong)},
		{"a taken name", "file exists", false, floorFrame("item/taken", []byte("new"), nil)},
	} {
		for _, placer := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, placer %v", c.name, placer), func(t *testing.T) {
				refusal(t, c.want, c.crypto, placer, c.frame)
			})
		}
	}
}

// refusal sends frame and wants floorRecv to refuse it, saying want,
// with nothing of it under a name.
func refusal(t *testing.T, want string, crypto, placer bool, frame []byte) {
	parent := t.TempDir()
	dst := filepath.Join(parent, "dst")
	if err := os.MkdirAll(filepath.Join(dst, "item"), 0o755); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(dst, "item", "taken")
	if err := os.WriteFile(taken, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := floorPair(t, dst, crypto, placer, func(nc *net.TCPConn) { sendFrames(nc, crypto, frame) })
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error saying %q", err, want)
	}
	if b, _ := os.ReadFile(taken); string(b) != "old" {
		t.Errorf("the taken name now holds %q", b)
	}
	for _, p := range []string{filepath.Join(parent, "evil"), filepath.Join(dst, "item", "f")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is there (%v)", p, err)
		}
	}
}
