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
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// The file figures run both ends as child processes: the receiver starts
// first and announces its address, then the parent starts the sender and
// its clock, and stops the clock when both have exited. Each run receives
// into a fresh folder that is checked (sizes, file count) and removed
// outside the clock. Nothing is fsynced, by Ferry or by the baselines.

// fileRun is one transfer's outcome as the parent saw it.
type fileRun struct {
	mibps      float64
	sendReport childReport
	recvReport childReport
	err        error // why the run failed; nil if it did not
}

// runPair starts rc (which must announce), then the sender send makes for
// the announced address, and times the sender's start to both exits.
func runPair(o options, rc *exec.Cmd, send func(addr string) *exec.Cmd, total int64) (fileRun, error) {
	var fr fileRun
	ready, err := newReadyPipe()
	if err != nil {
		return fr, err
	}
	rc.ExtraFiles = []*os.File{ready.w}
	rch, err := startCmd(rc)
	ready.afterStart()
	if err != nil {
		return fr, fmt.Errorf("starting the receiver: %w", err)
	}
	addr, err := ready.addr(30 * time.Second)
	if err != nil {
		rc.Process.Kill()
		_, cerr := rch.wait()
		return fr, fmt.Errorf("%v (receiver: %v)", err, cerr)
	}
	start := time.Now()
	sc := send(addr)
	sch, err := startCmd(sc)
	if err != nil {
		rc.Process.Kill()
		rch.wait()
		return fr, fmt.Errorf("starting the sender: %w", err)
	}
	// A run that overstays the timeout is killed and counted as failed.
	timer := time.AfterFunc(o.timeout, func() { sc.Process.Kill(); rc.Process.Kill() })
	defer timer.Stop()
	srep, serr := sch.wait()
	if serr != nil {
		// The receiver would wait for a sender that is gone.
		rc.Process.Kill()
	}
	rrep, rerr := rch.wait()
	fr.mibps = float64(total) / (1 << 20) / time.Since(start).Seconds()
	fr.sendReport, fr.recvReport = srep, rrep
	if serr != nil || rerr != nil {
		return fr, fmt.Errorf("sender: %v; receiver: %v", serr, rerr)
	}
	return fr, nil
}

// cleanup removes a run's destination and waits for the file system to
// write back what the removal dirtied, outside the clock, so no run pays
// for the one before it.
func cleanup(dst string) {
	os.RemoveAll(dst)
	syscall.Sync()
}

// A kind is one of the transfers a file figure interleaves: the series
// its rates go to, the receiver's command for a run's destination folder
// and the sender's for the receiver's address.
type kind struct {
	s    *benches.Series
	recv func(dst string) *exec.Cmd
	send func(addr string) *exec.Cmd
}

// rounds runs kinds in the order given, o.pairs times, each run into a
// fresh folder under work that check inspects and cleanup removes, both
// outside the clock. Every run, failed or not, adds to its kind's series.
// It returns each series' runs in order, and the failures as they came.
func rounds(o options, work string, total int64, check func(dst string) error, kinds ...kind) (map[*benches.Series][]fileRun, []string) {
	runs := map[*benches.Series][]fileRun{}
	var errs []string
	for round := range o.pairs {
		for _, k := range kinds {
			fr := runOnce(o, work, total, check, k)
			k.s.Add(fr.mibps, fr.err)
			if fr.err != nil {
				errs = append(errs, fmt.Sprintf("round %d, %s: %v", round+1, k.s.Name, fr.err))
			}
			runs[k.s] = append(runs[k.s], fr)
		}
	}
	return runs, errs
}

func runOnce(o options, work string, total int64, check func(dst string) error, k kind) fileRun {
	dst, err := os.MkdirTemp(work, "dst-")
	if err != nil {
		return fileRun{err: err}
	}
	defer cleanup(dst)
	fr, err := runPair(o, k.recv(dst), k.send, total)
	if err == nil {
		err = check(dst)
	}
	fr.err = err
	return fr
}

// childKind is a kind whose ends are children of this program, in the
// roles pair+"-recv" and pair+"-send", sending src.
func childKind(s *benches.Series, pair, src string) kind {
	return kind{s,
		func(dst string) *exec.Cmd { return selfCmd(pair+"-recv", "-dir", dst) },
		func(addr string) *exec.Cmd { return selfCmd(pair+"-send", "-addr", addr, "-path", src) }}
}

// holds is the check of the one-file figures: size bytes arrived.
func holds(size int64) func(dst string) error {
	return func(dst string) error {
		if _, got, err := dirStats(dst); err != nil || got != size {
			return fmt.Errorf("received %d bytes of %d (%v)", got, size, err)
		}
		return nil
	}
}

// verdicts lists the senders' core/diag verdicts, from the runs that gave one.
func verdicts(runs []fileRun) []string {
	var vs []string
	for _, fr := range runs {
		if fr.sendReport.Verdict != "" {
			vs = append(vs, fr.sendReport.Verdict)
		}
	}
	return vs
}

func printVerdicts(heading string, vs []string) {
	if len(vs) == 0 {
		return
	}
	fmt.Println()
	fmt.Println(heading)
	for i, v := range vs {
		fmt.Printf("- %d: %s\n", i+1, v)
	}
}

func selfCmd(role string, args ...string) *exec.Cmd {
	return exec.Command(self(), append([]string{"-child", role}, args...)...)
}

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

// fileFigure: one large file, Ferry against a plain TCP copy, in rounds of
// plain, Ferry, plain: Ferry pairs with the plain run before it, and the
// plain run after it against the one before is the A/A.
func fileFigure(o options) {
	size := int64(o.fileMiB) << 20
	work, err := os.MkdirTemp(o.tmp, "ferrybench-file-")
	if err != nil {
		fmt.Printf("## 4. File to file: cannot make a work folder: %v\n", err)
		return
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "big.bin")
	if err := makeBigFile(src, size); err != nil {
		fmt.Printf("## 4. File to file: cannot write the source file: %v\n", err)
		return
	}
	plainA := &benches.Series{Name: "plain TCP copy (A)"}
	plainB := &benches.Series{Name: "plain TCP copy (A')"}
	ferry := &benches.Series{Name: "Ferry (AES-256-GCM, BLAKE3 both ends)"}
	runs, errs := rounds(o, work, size, holds(size),
		childKind(plainA, "plain", src), childKind(ferry, "file", src), childKind(plainB, "plain", src))
	fmt.Printf("## 4. One %d MiB file, file to file over loopback, two processes\n\n", o.fileMiB)
	fmt.Println("MiB/s, from starting the sender to both processes' exit:")
	fmt.Println()
	fmt.Print(benches.Table("run", "%.0f", plainA, ferry, plainB))
	fmt.Println()
	fmt.Print(benches.Table("ratio", "%.3f",
		benches.Ratio("Ferry / plain TCP copy (A)", ferry, plainA),
		benches.Ratio("A/A: plain (A') / plain (A)", plainB, plainA)))
	fmt.Println()
	// ru_maxrss is not shown: Linux carries it across fork and exec, so
	// every child reported the harness's own size at fork (15.5 MiB).
	fmt.Println("## 6. Memory during the Ferry runs above (MiB; budget 32 per process)")
	fmt.Println()
	measures := []struct {
		name string
		of   func(childReport) float64
	}{
		{"VmHWM", func(r childReport) float64 { return float64(r.VmHWMKiB) / 1024 }},
		{"peak Go heap", func(r childReport) float64 { return float64(r.PeakHeap) / (1 << 20) }},
		{"peak Go-mapped", func(r childReport) float64 { return float64(r.PeakGoMapped) / (1 << 20) }},
	}
	var memRows []*benches.Series
	for _, side := range []string{"sender", "receiver"} {
		for _, m := range measures {
			row := &benches.Series{Name: side + " " + m.name}
			for _, fr := range runs[ferry] {
				rep := fr.sendReport
				if side == "receiver" {
					rep = fr.recvReport
				}
				row.Add(m.of(rep), fr.err)
			}
			memRows = append(memRows, row)
		}
	}
	fmt.Print(benches.Table("process, measure", "%.1f", memRows...))
	printVerdicts("Ferry's own verdict (core/diag), per run:", verdicts(runs[ferry]))
	printErrors(errs)
}

// smallFigure: many small files, Ferry against tar over one plain TCP
// connection, in rounds of tar, Ferry, tar.
func smallFigure(o options) {
	work, err := os.MkdirTemp(o.tmp, "ferrybench-small-")
	if err != nil {
		fmt.Printf("## 5. Small files: cannot make a work folder: %v\n", err)
		return
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "src")
	block := benches.Payload(4096)
	for i := range o.small {
		dir := filepath.Join(src, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fmt.Printf("## 5. Small files: %v\n", err)
				return
			}
		}
		binary.LittleEndian.PutUint64(block, uint64(i))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.bin", i)), block, 0o644); err != nil {
			fmt.Printf("## 5. Small files: %v\n", err)
			return
		}
	}
	syscall.Sync() // the tree is on disk before the first run
	total := int64(o.small) * 4096
	tarA := &benches.Series{Name: "tar over plain TCP (A)"}
	tarB := &benches.Series{Name: "tar over plain TCP (A')"}
	ferry := &benches.Series{Name: "Ferry"}
	exe := self()
	tar := func(s *benches.Series) kind {
		return kind{s,
			func(dst string) *exec.Cmd {
				return exec.Command("sh", "-c", `"$0" -child pipe-recv | tar -C "$1" -xf -`, exe, dst)
			},
			func(addr string) *exec.Cmd {
				return exec.Command("sh", "-c", `tar -C "$1" -cf - . | "$0" -child pipe-send -addr "$2"`, exe, src, addr)
			}}
	}
	check := func(dst string) error {
		if n, got, err := dirStats(dst); err != nil || got != total || n != o.small {
			return fmt.Errorf("received %d files, %d bytes, of %d, %d (%v)", n, got, o.small, total, err)
		}
		return nil
	}
	_, errs := rounds(o, work, total, check,
		tar(tarA), childKind(ferry, "file", src), tar(tarB))
	fmt.Printf("## 5. %d files of 4 KiB (in %d folders), over loopback, two processes\n\n", o.small, (o.small+99)/100)
	fmt.Println("MiB/s of file content, from starting the sender to both ends' exit:")
	fmt.Println()
	fmt.Print(benches.Table("run", "%.1f", tarA, ferry, tarB))
	fmt.Println()
	fmt.Print(benches.Table("ratio", "%.3f",
		benches.Ratio("Ferry / tar over TCP (A)", ferry, tarA),
		benches.Ratio("A/A: tar (A') / tar (A)", tarB, tarA)))
	printErrors(errs)
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
	r, err := transfer.NewReceiver(transfer.ReceiverConfig{
		Dir: *dir, Code: code, Listen: net.JoinHostPort(*host, "0"), Identity: id, Name: "bench receiver", Policy: transfer.AcceptAll,
	})
	if err != nil {
		return fail("%v", err)
	}
	defer r.Close()
	if err := announce(net.JoinHostPort(*host, strconv.Itoa(r.Port()))); err != nil {
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
	sum, err := transfer.Send(context.Background(), transfer.SendConfig{
		Addr: *addr, Code: code, Identity: id, Name: "bench sender", Items: []transfer.Item{{Path: *path}},
	})
	if err != nil {
		return fail("sending: %v", err)
	}
	split := "sender: " + sum.Local.Format(diag.SenderStages, sum.Wall) +
		"; receiver: " + sum.Remote.Format(diag.ReceiverStages, sum.RemoteWall)
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
	nc, err := acceptAnnounced(*host)
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
// side); its report goes to stderr.
func pipeRecvChild(args []string) childReport {
	nc, err := acceptAnnounced("127.0.0.1")
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

// acceptAnnounced listens on host (loopback for the figures over it),
// announces the address to the parent and returns the one connection the
// sender makes.
func acceptAnnounced(host string) (net.Conn, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	if err := announce(ln.Addr().String()); err != nil {
		return nil, fmt.Errorf("announcing: %w", err)
	}
	nc, err := ln.Accept()
	if err != nil {
		return nil, fmt.Errorf("accepting: %w", err)
	}
	return nc, nil
}
