package event

import (
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/transfer"
)

// The ends of a transfer, as Diag.End and FromTransfer name them.
const (
	Sender   = "sender"
	Receiver = "receiver"
)

// FromTransfer converts an engine event, seen at end (Sender or
// Receiver), to its schema event. Finished, Failed and Refused give nil:
// core/app reports a transfer's result once (Done or Error), and a
// refusal with the words only it has (it knows the trust store).
func FromTransfer(ev transfer.Event, end string) Event {
	switch e := ev.(type) {
	case transfer.Connected:
		return Connected{PeerName: e.PeerName, PeerFingerprint: e.PeerFingerprint, Addr: e.Addr,
			Paired: e.Paired, WrongCodes: e.WrongCodes, PeerKey: e.PeerKey}
	case transfer.Offered:
		return NewOffer(e.Offer)
	case transfer.Accepted:
		return Accepted{By: ByPeer, TotalBytes: e.Total, Offer: e.Offer}
	case transfer.Progress:
		return Progress{
			Done: e.Done, Total: e.Total, Rate: e.Rate, ETA: e.ETA.Seconds(),
			Current: e.Current, CurrentDone: e.CurrentDone, CurrentSize: e.CurrentSize,
			EntriesDone: e.EntriesDone, Entries: e.Entries,
		}
	case transfer.EntryDone:
		return EntryDone{e.Entry.Path, e.Entry.Kind.String(), e.Entry.Size, e.Outcome.String(), e.SavedAs}
	case transfer.TextReceived:
		return Text{e.Entry.Path, e.Text}
	case transfer.CodeChanged:
		return CodeChanged{e.Code, e.Reason.String()}
	case transfer.CodesHeld:
		return CodesHeld{e.Until.UTC().Format(time.RFC3339Nano), e.Wrong}
	case transfer.CodesStopped:
		return CodesStopped{e.Wrong}
	case transfer.Diagnostics:
		return NewDiag(end, e.Split, e.Interval)
	}
	return nil
}

// NewOffer is o's Offer event.
func NewOffer(o transfer.Offer) Offer {
	ev := Offer{
		PeerName: o.PeerName, PeerFingerprint: o.PeerFingerprint,
		Files: o.Files, Folders: o.Dirs, Texts: o.Texts, TotalBytes: o.TotalBytes,
		EntriesTotal: len(o.Entries), EntriesListed: min(len(o.Entries), MaxOfferEntries),
		Full: o,
	}
	ev.Entries = make([]Entry, 0, ev.EntriesListed)
	for _, e := range o.Entries[:ev.EntriesListed] {
		ev.Entries = append(ev.Entries, Entry{e.Path, e.Kind.String(), e.Size})
	}
	return ev
}

// Stages are end's diagnostic stages, in the order a split lists them.
func Stages(end string) []diag.Stage {
	if end == Sender {
		return diag.SenderStages()
	}
	return diag.ReceiverStages()
}

// EndLine is one end's whole-transfer split for a person, with its CPU
// use when it measured it.
func EndLine(end string, sp diag.Split, wall time.Duration, cpu diag.CPU) string {
	line := sp.Format(sp.With(Stages(end)), wall)
	if c := cpu.Format(wall); c != "" {
		line += "; CPU " + c
	}
	return line
}

// NewDiag is end's split sp over wall as a Diag event.
func NewDiag(end string, sp diag.Split, wall time.Duration) Diag {
	stages := sp.With(Stages(end))
	ev := Diag{End: end, Wall: wall.Seconds(), Line: sp.Format(stages, wall)}
	for _, st := range stages {
		ev.Stages = append(ev.Stages, Stage{st.String(), sp.Share(st, wall), sp[st].Time.Seconds(), sp[st].Bytes})
	}
	return ev
}

func cpuOf(c diag.CPU, wall time.Duration) *CPU {
	if !c.Known() || wall <= 0 {
		return nil
	}
	return &CPU{Busy: c.Busy(wall), CoresUsed: c.Load(wall), CoresWaiting: c.Waited.Seconds() / wall.Seconds(), Cores: c.Cores}
}

// NewDone is the Done event of a transfer that ended with s at end;
// withDiag adds the whole transfer's splits (and, on the sender, the
// receiver's and the verdict).
func NewDone(s transfer.Summary, end string, withDiag bool) Done {
	ev := Done{
		Entries: len(s.Entries), Bytes: s.Bytes, SkippedBytes: s.SkippedBytes,
		ResumedBytes: s.ResumedBytes, Duration: s.Duration.Seconds(),
	}
	if withDiag {
		local := NewDiag(end, s.Local, s.Wall)
		local.CPU, local.Line = cpuOf(s.LocalCPU, s.Wall), EndLine(end, s.Local, s.Wall, s.LocalCPU)
		ev.Local = &local
		if end == Sender {
			remote := NewDiag(Receiver, s.Remote, s.RemoteWall)
			remote.CPU, remote.Line = cpuOf(s.RemoteCPU, s.RemoteWall), EndLine(Receiver, s.Remote, s.RemoteWall, s.RemoteCPU)
			ev.Remote = &remote
			ev.Verdict = s.Verdict
		}
	}
	return ev
}
