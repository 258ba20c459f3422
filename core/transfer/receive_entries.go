package transfer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// receive takes the sender's entries, in offer order, then its finish.
func (s *rsession) receive(ctx context.Context) error {
	i := 0
	skipDirs := func() {
		for i < len(s.entries) && s.entries[i].Kind == KindDir {
			i++
		}
	}
	for {
		skipDirs()
		msg, err := s.next(ctx, phEntries)
		if err != nil {
			return err
		}
		switch msg.t {
		case msgBegin:
			m, err := decodeBegin(msg.body)
			if err != nil {
				return err
			}
			if m.Index != i {
				return fmt.Errorf("sender began entry %d, expected %d: %w", m.Index, i, ErrProtocol)
			}
			if err := s.receiveEntry(ctx, i, m.Offset); err != nil {
				return err
			}
			i++
		case msgSkip:
			m, err := decodeSkip(msg.body)
			if err != nil {
				return err
			}
			if p := s.entries[i].plan; m.Index != i || p == nil || !p.same {
				return fmt.Errorf("sender skipped entry %d, which this end did not match: %w", m.Index, ErrProtocol)
			}
			e := &s.entries[i]
			s.sum.SkippedBytes += e.Size
			s.confirm(i, Skipped, e.final)
			i++
		case msgFinish:
			if i != len(s.entries) {
				return fmt.Errorf("sender finished before entry %d of %d: %w", i, len(s.entries), ErrProtocol)
			}
			return s.finish()
		default: // the table accepted what this switch does not take
			return fmt.Errorf("unexpected %v: %w", msg.t, ErrProtocol)
		}
	}
}

func (s *rsession) confirm(i int, o Outcome, savedAs string) {
	s.meter.entry()
	ed := EntryDone{Entry: s.entries[i].Entry, Outcome: o, SavedAs: savedAs}
	s.sum.Entries = append(s.sum.Entries, ed)
	s.ev.emit(ed)
	s.send(msgConfirm, confirmMsg{Index: i, Outcome: o, SavedAs: savedAs}.encode())
}

// receiveEntry takes one entry's chunks and end. A file goes to its
// partial file and is moved into place only when its hash matches; a
// mismatch deletes the partial, any other failure keeps it for resume.
func (s *rsession) receiveEntry(ctx context.Context, i int, off int64) error {
	e := s.entries[i].Entry
	p := s.entries[i].plan
	h := &s.hash
	h.Reset()
	outcome := Received
	switch {
	case off == 0:
	case p != nil && p.action == actResume && p.offset == off:
		h, outcome = p.hash, Resumed
		s.sum.ResumedBytes += off
	default:
		return fmt.Errorf("sender resumed entry %d at %d, which this end did not offer: %w", i, off, ErrProtocol)
	}
	if p != nil && off == 0 {
		s.meter.grow(p.offset)
	}
	s.entries[i].plan = nil // a resume's hash state is not needed any more
	s.meter.file(e.Path, e.Size)

	var (
		f    *os.File
		sf   SinkFile
		w    io.Writer // f or sf, through a test's hook
		text []byte
		part string
		err  error
	)
	if e.Kind == KindText {
		text = make([]byte, 0, e.Size)
	}
	if s.cfg.Sink != nil {
		s.sink = s.cfg.Sink
		if sf, err = s.sink.File(e); err != nil {
			return sinkError(fmt.Errorf("receiving %q: %w", e.Path, err))
		}
		w = s.cfg.hooks.writer(sf)
		defer func() {
			if sf != nil {
				sf.Close(false) // the transfer ended inside the entry
			}
		}()
	} else if e.Kind != KindText {
		part = s.partPath(i)
		if f, err = s.dest.openPartial(part, off); err != nil {
			return fmt.Errorf("receiving %q: %w", e.Path, err)
		}
		w = s.cfg.hooks.writer(f)
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
	}
	left := e.Size - off
	for {
		msg, err := s.next(ctx, phEntry)
		if err != nil {
			return err
		}
		if msg.t == msgEnd {
			m, err := decodeEnd(msg.body)
			if err != nil {
				return err
			}
			if m.Index != i {
				return fmt.Errorf("sender ended entry %d inside entry %d: %w", m.Index, i, ErrProtocol)
			}
			if left != 0 {
				return fmt.Errorf("%q: %d bytes fewer than declared: %w", e.Path, left, ErrProtocol)
			}
			var sum [hashLen]byte
			if !bytes.Equal(h.Sum(sum[:0]), m.Hash[:]) {
				if sf != nil {
					sf.Close(false)
					sf = nil
				}
				if f != nil {
					f.Close()
					f = nil
					s.dest.root.Remove(part)
				}
				return fmt.Errorf("%q: %w", e.Path, ErrVerify)
			}
			break
		}
		n := msg.n // a data chunk: phEntry takes nothing else
		if int64(n) > left {
			return fmt.Errorf("%q: more bytes than declared: %w", e.Path, ErrProtocol)
		}
		// A header always follows a chunk: ask for both at once.
		if err := s.conn.Prefetch(n + headerLen); err != nil {
			return s.readError(err)
		}
		chunk := s.buf[:n]
		if _, err := io.ReadFull(s.conn, chunk); err != nil {
			return s.readError(err)
		}
		start := time.Now()
		h.Write(chunk)
		s.timers.Since(diag.HashRecv, start, n)
		if w != nil {
			start = time.Now()
			wrote, err := w.Write(chunk)
			s.timers.Since(diag.DiskWrite, start, wrote)
			if err == nil && wrote < n {
				err = io.ErrShortWrite
			}
			if err != nil {
				err = fmt.Errorf("writing %q: %w", e.Path, diskError(err))
				if sf != nil {
					return sinkError(err)
				}
				return err
			}
		}
		if e.Kind == KindText {
			text = append(text, chunk...)
		}
		left -= int64(n)
		s.sum.Bytes += int64(n)
		s.meter.add(int64(n))
	}

	if sf != nil {
		err := sf.Close(true)
		sf = nil
		if err != nil {
			return sinkError(fmt.Errorf("saving %q: %w", e.Path, err))
		}
		if e.Kind == KindText {
			s.ev.emit(TextReceived{Entry: e, Text: string(text)})
		}
		s.confirm(i, outcome, e.Path)
		return nil
	}
	if e.Kind == KindText {
		s.ev.emit(TextReceived{Entry: e, Text: string(text)})
		saved := ""
		if s.cfg.SaveText {
			if saved, err = s.saveText(i, text); err != nil {
				return err
			}
		}
		s.confirm(i, Received, saved)
		return nil
	}
	err = s.dest.finish(f, part, e)
	f = nil
	if err != nil {
		return fmt.Errorf("finishing %q: %w", e.Path, diskError(err))
	}
	saved, err := s.dest.place(part, s.entries[i].final)
	if err != nil {
		return fmt.Errorf("placing %q: %w", e.Path, err)
	}
	s.confirm(i, outcome, saved)
	return nil
}

// sinkError marks a Sink's error as one the sender is told only that
// the entry cannot be written here.
func sinkError(err error) error { return forPeer(err, reasonUnwritable) }

// saveText writes a received text through a partial file, like a file.
func (s *rsession) saveText(i int, text []byte) (string, error) {
	e, part := s.entries[i].Entry, s.partPath(i)
	f, err := s.dest.openPartial(part, 0)
	if err != nil {
		return "", err
	}
	start := time.Now()
	w, err := f.Write(text)
	s.timers.Since(diag.DiskWrite, start, w)
	if err != nil {
		f.Close()
		return "", fmt.Errorf("saving %q: %w", e.Path, diskError(err))
	}
	if err := s.dest.finish(f, part, e); err != nil {
		return "", fmt.Errorf("saving %q: %w", e.Path, diskError(err))
	}
	return s.dest.place(part, s.entries[i].final)
}

// finish gives the folders this transfer created their time, deepest
// first (writing inside a folder changes its time), confirms every
// offered folder, and sends the receiver's stage split. A folder that
// existed keeps its own mode and time.
func (s *rsession) finish() error {
	for i := len(s.entries) - 1; i >= 0 && s.dest != nil; i-- {
		if e := &s.entries[i]; e.Kind == KindDir && e.created {
			if err := s.dest.setDirTime(e.final, e.Entry); err != nil {
				return err
			}
		}
	}
	for i, e := range s.entries {
		if e.Kind == KindDir {
			s.confirm(i, Created, e.final)
		}
	}
	s.meter.tick(true)
	s.sum.Duration = time.Since(s.start)
	s.sum.Wall = s.sum.Duration
	s.sum.Local = s.timers.Snapshot()
	s.sum.LocalCPU = s.timers.CPU()
	s.send(msgDone, doneMsg{Wall: s.sum.Wall, Split: s.sum.Local, CPU: s.sum.LocalCPU}.encode())
	return nil
}
