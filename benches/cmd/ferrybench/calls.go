package main

import (
	"fmt"

	"github.com/ferry-project/ferry/benches"
)

// callsFigure counts socket calls per MiB of payload for the stream's
// settings, AES-GCM throughout, and gives each setting's throughput as a
// ratio against the default in the same round.
func callsFigure(o options) {
	n := int64(o.streamMiB) << 20
	type setting struct {
		name string
		run  streamRun
	}
	settings := []setting{
		{"default: batched writes, buffered reads, Prefetch", streamRun{mode: "aes", prefetch: true}},
		{"unbatched writes (Batch = 1)", streamRun{mode: "aes", batch: 1, prefetch: true}},
		{"buffered reads without Prefetch", streamRun{mode: "aes"}},
		{"unbuffered reads (Unbuffered, no Prefetch)", streamRun{mode: "aes", unbuffered: true}},
		{"plain TCP, same write and read sizes", streamRun{mode: "plain"}},
	}
	type tally struct {
		rate, writes, reads benches.Series
	}
	tallies := make([]tally, len(settings))
	var errs []string
	for round := range o.pairs {
		for i, s := range settings {
			r := s.run
			r.bytes = n
			res, err := runStream(o, r)
			mib := float64(n) / (1 << 20)
			tallies[i].rate.Add(res.mibps, err)
			tallies[i].writes.Add(float64(res.socketWrites)/mib, err)
			tallies[i].reads.Add(float64(res.socketReads)/mib, err)
			if err != nil {
				errs = append(errs, fmt.Sprintf("round %d, %s: %v", round+1, s.name, err))
			}
		}
	}
	say("## Socket calls per MiB of payload (AES-256-GCM, %d MiB a run)\n\n", o.streamMiB)
	var writes, reads, ratios []*benches.Series
	for i, s := range settings {
		tallies[i].writes.Name, tallies[i].reads.Name = s.name, s.name
		writes = append(writes, &tallies[i].writes)
		reads = append(reads, &tallies[i].reads)
		if i > 0 {
			ratios = append(ratios, benches.Ratio(s.name+" / default", &tallies[i].rate, &tallies[0].rate))
		}
	}
	say("Sender write calls per MiB:\n")
	say("\n")
	printTable("setting", "%.1f", writes...)
	say("\n")
	say("Receiver read calls per MiB:\n")
	say("\n")
	printTable("setting", "%.1f", reads...)
	say("\n")
	say("Throughput against the default setting in the same round:\n")
	say("\n")
	printTable("ratio", "%.3f", ratios...)
	printErrors(errs)
}
