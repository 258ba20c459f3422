package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// The harness's own ends of the file figures: the plain TCP copy (the
// ceiling), the two halves of tar's connection, and core/transfer
// without the CLI (the ab figure's lower layer). Each receiver prints the
// listening event Ferry prints, so the parent treats them all alike.

// makeBigFile writes size bytes of pseudo-random data once per harness run.
func makeBigFile(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	block := benches.Payload(4 << 20)
	w := bufio.NewWriterSize(f, 1<<20)
	for left := size; left > 0; {
		n := min(int64(len(block)), left)
		// Vary each block so no layer could dedupe or cache a repeat.
		binary.LittleEndian.PutUint64(block, uint64(left))
		if _, err := w.Write(block[:n]); err != nil {
			f.Close()
			return err
		}
		left -= n
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	// Written back before the first run, so no run reads a file that
	// the kernel is still flushing.
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// dirStats counts regular files and their bytes under root.
func dirStats(root string) (files int, bytes int64, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			files++
			bytes += fi.Size()
		}
		return nil
	})
	return
}

// --- children -------------------------------------------------------------

func fileRecvChild(args []string) childReport {
	fs := flag.NewFlagSet("file-recv", flag.ContinueOnError)
	dir := fs.String("dir", "", "")
	host := fs.String("listen", "127.0.0.1", "address to listen on")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	id, err := secure.NewIdentity()
	if err != nil {
		return fail("%v", err)
	}
	r, err := receive.NewReceiver(receive.ReceiverConfig{
		Dir: *dir, Code: code, Listen: net.JoinHostPort(*host, "0"), Identity: id, Name: "bench receiver", Policy: receive.AcceptAll,
	})
	if err != nil {
		return fail("%v", err)
	}
	defer r.Close()
	if err := announceListening(os.Stdout, r.Port()); err != nil {
		return fail("announcing: %v", err)
	}
	if _, err := r.Serve(context.Background()); err != nil {
		return fail("receiving: %v", err)
	}
	return childReport{}
}

func fileSendChild(args []string) childReport {
	fs := flag.NewFlagSet("file-send", flag.ContinueOnError)
	addr := fs.String("addr", "", "")
	path := fs.String("path", "", "")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	id, err := secure.NewIdentity()
	if err != nil {
		return fail("%v", err)
	}
	sum, err := send.Send(context.Background(), send.SendConfig{
		Addrs: []string{*addr}, Code: code, Identity: id, Name: "bench sender", Items: []transfer.Item{{Path: *path}},
	})
	if err != nil {
		return fail("sending: %v", err)
	}
	split := "sender: " + sum.Local.Format(diag.SenderStages(), sum.Wall) +
		"; receiver: " + sum.Remote.Format(diag.ReceiverStages(), sum.RemoteWall)
	return childReport{Verdict: sum.Verdict + " [" + split + "]"}
}

// plainRecvChild is the unencrypted baseline's receiver: an 8-byte size,
// then the bytes, written to a file in ChunkSize pieces, then a one-byte
// acknowledgement once the file is closed.
func plainRecvChild(args []string) childReport {
	fs := flag.NewFlagSet("plain-recv", flag.ContinueOnError)
	dir := fs.String("dir", "", "")
	host := fs.String("listen", "127.0.0.1", "address to listen on")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	nc, err := acceptAnnounced(*host, os.Stdout)
	if err != nil {
		return fail("%v", err)
	}
	defer nc.Close()
	var hdr [8]byte
	if _, err := io.ReadFull(nc, hdr[:]); err != nil {
		return fail("reading the size: %v", err)
	}
	size := int64(binary.BigEndian.Uint64(hdr[:]))
	f, err := os.Create(filepath.Join(*dir, "big.bin"))
	if err != nil {
		return fail("%v", err)
	}
	buf := make([]byte, secure.ChunkSize)
	for left := size; left > 0; {
		n := int(min(int64(len(buf)), left))
		if _, err := io.ReadFull(nc, buf[:n]); err != nil {
			f.Close()
			return fail("reading: %v", err)
		}
		if _, err := f.Write(buf[:n]); err != nil {
			f.Close()
			return fail("writing: %v", err)
		}
		left -= int64(n)
	}
	if err := f.Close(); err != nil {
		return fail("%v", err)
	}
	if _, err := nc.Write([]byte{1}); err != nil {
		return fail("acknowledging: %v", err)
	}
	return childReport{}
}

func plainSendChild(args []string) childReport {
	fs := flag.NewFlagSet("plain-send", flag.ContinueOnError)
	addr := fs.String("addr", "", "")
	path := fs.String("path", "", "")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	f, err := os.Open(*path)
	if err != nil {
		return fail("%v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fail("%v", err)
	}
	nc, err := net.Dial("tcp", *addr)
	if err != nil {
		return fail("dialing: %v", err)
	}
	defer nc.Close()
	var hdr [8]byte
	binary.BigEndian.PutUint64(hdr[:], uint64(fi.Size()))
	if _, err := nc.Write(hdr[:]); err != nil {
		return fail("%v", err)
	}
	// A read/write loop, not io.Copy: io.Copy would use sendfile(2) and
	// measure a zero-copy path that no encrypting tool can take.
	buf := make([]byte, secure.ChunkSize)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if _, werr := nc.Write(buf[:n]); werr != nil {
				return fail("writing: %v", werr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail("reading the file: %v", err)
		}
	}
	var ack [1]byte
	if _, err := io.ReadFull(nc, ack[:]); err != nil {
		return fail("waiting for the acknowledgement: %v", err)
	}
	return childReport{}
}

// pipeSendChild copies stdin to one TCP connection (tar's sending side).
func pipeSendChild(args []string) childReport {
	fs := flag.NewFlagSet("pipe-send", flag.ContinueOnError)
	addr := fs.String("addr", "", "")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	nc, err := net.Dial("tcp", *addr)
	if err != nil {
		return fail("dialing: %v", err)
	}
	defer nc.Close()
	_, err = io.CopyBuffer(struct{ io.Writer }{nc}, os.Stdin, make([]byte, secure.ChunkSize))
	if err != nil {
		return fail("copying: %v", err)
	}
	nc.(*net.TCPConn).CloseWrite()
	return childReport{}
}

// pipeRecvChild copies one TCP connection to stdout (tar's receiving
// side); it announces and reports on stderr.
func pipeRecvChild(args []string) childReport {
	fs := flag.NewFlagSet("pipe-recv", flag.ContinueOnError)
	host := fs.String("listen", "127.0.0.1", "address to listen on")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	nc, err := acceptAnnounced(*host, os.Stderr)
	if err != nil {
		return fail("%v", err)
	}
	defer nc.Close()
	_, err = io.CopyBuffer(struct{ io.Writer }{os.Stdout}, nc, make([]byte, secure.ChunkSize))
	if err != nil {
		return fail("copying: %v", err)
	}
	return childReport{}
}

// acceptAnnounced listens on host, announces the port on w and returns
// the one connection the sender makes.
func acceptAnnounced(host string, w io.Writer) (net.Conn, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	if err := announceListening(w, ln.Addr().(*net.TCPAddr).Port); err != nil {
		return nil, fmt.Errorf("announcing: %w", err)
	}
	nc, err := ln.Accept()
	if err != nil {
		return nil, fmt.Errorf("accepting: %w", err)
	}
	return nc, nil
}
