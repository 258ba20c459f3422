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
	fmt.Printf("## 3. Socket calls per MiB of payload (AES-256-GCM, %d MiB a run)\n\n", o.streamMiB)
	fmt.Println("Sender write calls per MiB:")
	fmt.Println()
	fmt.Println("| setting | median | range | runs |")
	fmt.Println("|---|---|---|---|")
	for i, s := range settings {
		tallies[i].writes.Name = s.name
		fmt.Println(tallies[i].writes.Row("%.1f"))
	}
	fmt.Println()
	fmt.Println("Receiver read calls per MiB:")
	fmt.Println()
	fmt.Println("| setting | median | range | runs |")
	fmt.Println("|---|---|---|---|")
	for i, s := range settings {
		tallies[i].reads.Name = s.name
		fmt.Println(tallies[i].reads.Row("%.1f"))
	}
	fmt.Println()
	fmt.Println("Throughput against the default setting in the same round:")
	fmt.Println()
	fmt.Println("| ratio | median | range | runs |")
	fmt.Println("|---|---|---|---|")
	for i := 1; i < len(settings); i++ {
		fmt.Println(benches.Ratio(settings[i].name+" / default", &tallies[i].rate, &tallies[0].rate).Row("%.3f"))
	}
	printErrors(errs)
}
