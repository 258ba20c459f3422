package event

import (
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// The ends of a transfer, as Diag.End names them.
const (
	Sender   = "sender"
	Receiver = "receiver"
)

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

// LocalLine is this end's whole-transfer split for a person (end is
// Sender or Receiver), RemoteLine the receiver's as the sender was told
// it: a front end prints them without reading the splits themselves.
func (s Summary) LocalLine(end string) string { return EndLine(end, s.Local, s.Wall, s.LocalCPU) }

// RemoteLine: see LocalLine.
func (s Summary) RemoteLine() string { return EndLine(Receiver, s.Remote, s.RemoteWall, s.RemoteCPU) }

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
func NewDone(s Summary, end string, withDiag bool) Done {
	ev := Done{Summary: s,
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
