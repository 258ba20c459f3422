package receive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// receive takes the sender's entries, in offer order, then its finish.
// Into a folder, the placer (receive_place.go) finishes and places each
// file while the next ones come; it is stopped, and what it had queued
// placed, before receive returns.
func (s *rsession) receive(ctx context.Context) (err error) {
	defer func() { err = s.stopPlacer(err) }()
	i := 0
	skipDirs := func() {
		for i < len(s.entries) && s.entries[i].Kind == event.KindDir {
			i++
		}
	}
	for {
		skipDirs()
		msg, err := s.next(ctx, wire.PhEntries)
		if err != nil {
			return err
		}
		switch msg.Type {
		case wire.MsgBegin:
			m, err := wire.DecodeBegin(msg.Body)
			if err != nil {
				return err
			}
			if m.Index != i {
				return fmt.Errorf("sender began entry %d, expected %d: %w", m.Index, i, transfer.ErrProtocol)
			}
			if err := s.receiveEntry(ctx, i, m.Offset); err != nil {
				return err
			}
			i++
		case wire.MsgSkip:
			m, err := wire.DecodeSkip(msg.Body)
			if err != nil {
				return err
			}
			if p := s.entries[i].plan; m.Index != i || p == nil || !p.same {
				return fmt.Errorf("sender skipped entry %d, which this end did not match: %w", m.Index, transfer.ErrProtocol)
			}
			e := &s.entries[i]
			s.sum.SkippedBytes += e.Size
			if err := s.confirmSkipped(ctx, i); err != nil {
				return err
			}
			i++
		case wire.MsgFinish:
			if i != len(s.entries) {
				return fmt.Errorf("sender finished before entry %d of %d: %w", i, len(s.entries), transfer.ErrProtocol)
			}
			if err := s.waitPlaced(ctx); err != nil {
				return err
			}
			return s.finish()
		default: // the table accepted what this switch does not take
			return fmt.Errorf("unexpected %v: %w", msg.Type, transfer.ErrProtocol)
		}
	}
}

// confirmSkipped confirms skipped entry i after the entries before it:
// through the placer's queue while it runs.
func (s *rsession) confirmSkipped(ctx context.Context, i int) error {
	if !s.pl.on {
		s.confirm(i, event.Skipped, s.final(i))
		return nil
	}
	j, err := s.reserve(ctx)
	if err != nil {
		return err
	}
	*j = placeJob{i: i, outcome: event.Skipped}
	s.pl.push(0)
	return nil
}

// confirm confirms entry i, counted by the meter.
func (s *rsession) confirm(i int, o event.Outcome, savedAs string) {
	s.meter.Entry()
	s.report(i, o, savedAs, false)
}

// report confirms entry i, which replaced a file of its name (with
// Overwrite) if replaced: the summary, the event, the sender. The meter
// is the session's to tell (countPlaced when the placer reports).
func (s *rsession) report(i int, o event.Outcome, savedAs string, replaced bool) {
	ed := event.EntryDone{Entry: *s.entries[i].Entry, Outcome: o, SavedAs: savedAs, Replaced: replaced, Session: s.id}
	if s.sum.Entries == nil {
		// Each entry is reported once: sized at the first report, the
		// list is never copied as it grows, nor its old arrays left to
		// the collector (19 arrays, 4.5 MB in all, for 10,000 files),
		// and the largest offer's is not held twice at its last
		// growth; an offer with nothing reported keeps a nil list.
		s.sum.Entries = make([]event.EntryDone, 0, len(s.entries))
	}
	s.sum.Entries = append(s.sum.Entries, ed)
	s.Events.Emit(ed)
	s.send(wire.MsgConfirm, wire.Confirm{Index: i, Outcome: o, SavedAs: savedAs}.Encode())
}

// receiveEntry takes one entry's chunks and end. A file goes to its
// partial file and is moved into place only when its hash matches; a
// mismatch deletes the partial, any other failure keeps it for resume.
func (s *rsession) receiveEntry(ctx context.Context, i int, off int64) error {
	if s.dest != nil && s.entries[i].Kind == event.KindFile {
		return s.receiveFile(ctx, i, off)
	}
	// A text, or an entry for a Sink: this goroutine confirms it, once
	// the placer confirmed those before.
	if err := s.waitPlaced(ctx); err != nil {
		return err
	}
	in, outcome, err := s.startEntry(i, off)
	if err != nil {
		return err
	}
	defer in.abandon()
	if in.part != "" {
		defer s.releasePart(in.part)
	}
	if err := s.takeBytes(ctx, in); err != nil {
		return err
	}
	return s.keep(in, outcome)
}

// receiveFile takes a file into the folder: its bytes to its partial
// file, their hash checked, then the placer's to place and confirm.
func (s *rsession) receiveFile(ctx context.Context, i int, off int64) error {
	if !s.pl.on {
		if err := s.startPlacer(s.entries[i].Path); err != nil {
			return err
		}
	}
	j, err := s.reserve(ctx)
	if err != nil {
		return err
	}
	in, outcome, err := s.startEntry(i, off)
	if err != nil {
		return err
	}
	if err := s.takeBytes(ctx, in); err != nil {
		s.releasePart(in.part)
		in.abandon()
		return err
	}
	*j = placeJob{i: i, outcome: outcome, f: in.f, part: in.part, spare: in.spare}
	in.f = nil
	s.pl.push(in.e.Size)
	return nil
}

// incoming is one entry while its bytes come: where they go and what is
// known of them so far.
type incoming struct {
	i     int
	e     event.Entry
	h     *transfer.Hasher // over every byte of the file, kept ones included
	left  int64            // bytes still due
	f     *place.Partial
	part  string            // f's name: the partial file, for a file into Dir
	spare bool              // part is not the entry's own name: nobody resumes it
	dest  *place.Dest       // where a spare is removed
	sf    transfer.SinkFile // or the Sink's file
	w     io.Writer         // f or sf, through a test's hook; nil for a text into Dir
	text  []byte            // a text's bytes
}

// abandon closes what the entry still holds open when the transfer ends
// inside it: a partial file stays for resume, a sink's file is told it
// failed.
func (in *incoming) abandon() {
	if in.sf != nil {
		in.sf.Close(false)
		in.sf = nil
	}
	if in.f != nil {
		in.f.Close()
		in.f = nil
		if in.spare {
			in.dest.RemovePartial(in.part)
		}
	}
}

// startEntry checks where the sender begins entry i (at 0, or where this
// end offered to resume) and opens what its bytes go to.
func (s *rsession) startEntry(i int, off int64) (*incoming, event.Outcome, error) {
	e := *s.entries[i].Entry
	p := s.entries[i].plan
	// One incoming a session, reused: entries come one at a time.
	s.in = incoming{i: i, e: e, h: &s.hash, left: e.Size - off}
	in := &s.in
	in.h.Reset()
	outcome := event.Received
	switch {
	case off == 0:
	case p != nil && p.action == wire.ActResume && p.offset == off:
		in.h, outcome = p.hash, event.Resumed
		s.sum.ResumedBytes += off
	default:
		return nil, 0, fmt.Errorf("sender resumed entry %d at %d, which this end did not offer: %w", i, off, transfer.ErrProtocol)
	}
	if p != nil && off == 0 {
		s.meter.Grow(p.offset)
	}
	s.entries[i].plan = nil // a resume's hash state is not needed any more
	s.meter.File(e.Path, e.Size)

	if e.Kind == event.KindText {
		in.text = make([]byte, 0, e.Size)
	}
	var err error
	if s.cfg.Sink != nil {
		s.sink = s.cfg.Sink
		if in.sf, err = s.sink.File(e); err != nil {
			return nil, 0, sinkError(fmt.Errorf("receiving %q: %w", e.Path, err))
		}
		in.w = s.cfg.hooks.Writer(in.sf)
	} else if e.Kind != event.KindText {
		if _, had := s.partials[i]; off == 0 && !had && e.Size <= transfer.MaxChunk {
			// It comes whole, in one chunk: nothing would resume it, so
			// it needs no name until it is placed, where the Dest can.
			in.f, err = s.dest.OpenUnnamed(e.Path, e.Size, e.ModTime, e.Mode)
		}
		if in.f == nil && err == nil {
			in.part = s.partPath(i)
			if !s.claimPart(in.part) {
				// Another session writes this partial file: this one
				// writes a spare, which it removes if it fails, since
				// nothing could resume it.
				in.part, in.spare, in.dest = s.dest.SpareName(), true, s.dest
				s.claimPart(in.part)
			}
			in.f, err = s.dest.OpenPartial(in.part, off, e.Mode)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("receiving %q: %w", e.Path, err)
		}
		in.w = s.cfg.hooks.Writer(in.f)
	}
	return in, outcome, nil
}

// takeBytes reads the entry's data chunks up to its end, and checks the
// end: the bytes declared, and the hash. A mismatch deletes the partial
// file.
func (s *rsession) takeBytes(ctx context.Context, in *incoming) error {
	e := in.e
	for {
		msg, err := s.next(ctx, wire.PhEntry)
		if err != nil {
			return err
		}
		if msg.Type == wire.MsgData {
			if err := s.takeChunk(in, msg.Len); err != nil {
				return err
			}
			continue
		}
		m, err := wire.DecodeEnd(msg.Body) // wire.PhEntry takes data or end
		if err != nil {
			return err
		}
		if m.Index != in.i {
			return fmt.Errorf("sender ended entry %d inside entry %d: %w", m.Index, in.i, transfer.ErrProtocol)
		}
		if in.left != 0 {
			return fmt.Errorf("%q: %d bytes fewer than declared: %w", e.Path, in.left, transfer.ErrProtocol)
		}
		var sum [wire.HashLen]byte
		if !bytes.Equal(in.h.Sum(sum[:0]), m.Hash[:]) {
			if in.f != nil {
				in.f.Discard()
				in.f = nil
			}
			return fmt.Errorf("%q: %w", e.Path, transfer.ErrVerify)
		}
		return nil
	}
}

// takeChunk reads a data chunk of n bytes, hashes it and writes it.
func (s *rsession) takeChunk(in *incoming, n int) error {
	e := in.e
	if int64(n) > in.left {
		return fmt.Errorf("%q: more bytes than declared: %w", e.Path, transfer.ErrProtocol)
	}
	// A header always follows a chunk: ask for both at once.
	if err := s.Conn.Prefetch(n + wire.HeaderLen); err != nil {
		return s.ReadError(err)
	}
	chunk := s.buf[:n]
	if _, err := io.ReadFull(s.Conn, chunk); err != nil {
		return s.ReadError(err)
	}
	start := time.Now()
	in.h.Write(chunk)
	s.Timers.Since(diag.HashRecv, start, n)
	if in.w != nil {
		start = time.Now()
		wrote, err := in.w.Write(chunk)
		s.Timers.Since(diag.DiskWrite, start, wrote)
		s.held.left.Add(-int64(wrote))
		if err == nil && wrote < n {
			err = io.ErrShortWrite
		}
		if err != nil {
			err = fmt.Errorf("writing %q: %w", e.Path, place.DiskError(err))
			if in.sf != nil {
				return sinkError(err)
			}
			return err
		}
	}
	if e.Kind == event.KindText {
		in.text = append(in.text, chunk...)
	}
	in.left -= int64(n)
	s.sum.Bytes += int64(n)
	s.meter.Add(int64(n))
	return nil
}

// keep puts a verified entry where it belongs (its sink's file saved, a
// text told and maybe saved) and confirms it. A file into the folder is
// the placer's (placeFile).
func (s *rsession) keep(in *incoming, outcome event.Outcome) error {
	e := in.e
	if in.sf != nil {
		err := in.sf.Close(true)
		in.sf = nil
		if err != nil {
			return sinkError(fmt.Errorf("saving %q: %w", e.Path, err))
		}
		if e.Kind == event.KindText {
			s.Events.Emit(event.Text{Name: e.Path, Text: string(in.text)})
		}
		s.confirm(in.i, outcome, e.Path)
		return nil
	}
	s.Events.Emit(event.Text{Name: e.Path, Text: string(in.text)})
	saved := ""
	if s.cfg.SaveText {
		var err error
		if saved, err = s.saveText(in.i, in.text); err != nil {
			return err
		}
	}
	s.confirm(in.i, event.Received, saved)
	return nil
}

// sinkError marks a Sink's error as one the sender is told only that
// the entry cannot be written here.
func sinkError(err error) error { return transfer.ForPeer(err, transfer.ReasonUnwritable) }

// saveText writes a received text through a partial file, like a file.
func (s *rsession) saveText(i int, text []byte) (string, error) {
	e, part := *s.entries[i].Entry, s.partPath(i)
	if !s.claimPart(part) {
		part = s.dest.SpareName() // another session saves the same text
		s.claimPart(part)
	}
	defer s.releasePart(part)
	f, err := s.dest.OpenPartial(part, 0, e.Mode)
	if err != nil {
		return "", err
	}
	start := time.Now()
	w, err := f.Write(text)
	s.Timers.Since(diag.DiskWrite, start, w)
	if err != nil {
		f.Close()
		return "", fmt.Errorf("saving %q: %w", e.Path, place.DiskError(err))
	}
	if err := s.dest.Finish(f, part, e.Mode, e.ModTime); err != nil {
		return "", fmt.Errorf("saving %q: %w", e.Path, place.DiskError(err))
	}
	saved, _, err := s.dest.Place(f, s.final(i))
	return saved, err
}

// finish gives the folders this transfer created their time, deepest
// first (writing inside a folder changes its time), confirms every
// offered folder, and sends the receiver's stage split. A folder that
// existed keeps its own mode and time.
func (s *rsession) finish() error {
	for i := len(s.entries) - 1; i >= 0 && s.dest != nil; i-- {
		if e := &s.entries[i]; e.Kind == event.KindDir && s.created != nil && s.created[i] {
			if err := s.dest.SetDirTime(s.final(i), e.ModTime); err != nil {
				return err
			}
		}
	}
	for i, e := range s.entries {
		if e.Kind == event.KindDir {
			s.confirm(i, event.Created, s.final(i))
		}
	}
	s.meter.Tick(true)
	s.sum.Duration = time.Since(s.start)
	s.sum.Wall = s.sum.Duration
	s.sum.Local = s.Timers.Snapshot()
	s.sum.LocalCPU = s.Timers.CPU()
	s.send(wire.MsgDone, wire.Done{Wall: s.sum.Wall, Split: s.sum.Local, CPU: s.sum.LocalCPU}.Encode())
	return nil
}
