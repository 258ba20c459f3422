package main

import (
	"flag"
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/secure"
)

// recordsFigure runs the record microbenchmarks round by round, each
// Ferry benchmark next to the raw AEAD doing the same work, and a second
// copy of the AES-GCM seal baseline as the A/A.
func recordsFigure(o options) {
	testing.Init()
	flag.CommandLine.Set("test.benchtime", o.benchtime.String())

	type bench struct {
		name string
		f    func(*testing.B)
	}
	var list []bench
	list = append(list, bench{"memcpy", benches.Memcpy})
	for _, c := range []secure.Cipher{secure.AESGCM, secure.ChaChaPoly} {
		list = append(list,
			bench{"aead seal " + c.String(), benches.AEADSeal(c)},
			bench{"ferry seal " + c.String(), benches.FerrySeal(c)},
			bench{"aead open " + c.String(), benches.AEADOpen(c)},
			bench{"ferry open " + c.String(), benches.FerryOpen(c)},
		)
	}
	list = append(list, bench{"aead seal AES-256-GCM (again)", benches.AEADSeal(secure.AESGCM)})

	mbps := map[string]*benches.Series{}
	allocs := map[string]*benches.Series{}
	var mbpsRows, allocRows []*benches.Series // in list's order
	for _, b := range list {
		mbps[b.name] = &benches.Series{Name: b.name}
		allocs[b.name] = &benches.Series{Name: b.name}
		mbpsRows, allocRows = append(mbpsRows, mbps[b.name]), append(allocRows, allocs[b.name])
	}
	for range o.pairs {
		for _, b := range list {
			r := testing.Benchmark(b.f)
			if r.N == 0 {
				mbps[b.name].Add(0, fmt.Errorf("benchmark failed"))
				allocs[b.name].Add(0, fmt.Errorf("benchmark failed"))
				continue
			}
			mbps[b.name].Add(float64(r.Bytes)*float64(r.N)/r.T.Seconds()/(1<<20), nil)
			allocs[b.name].Add(float64(r.MemAllocs)/float64(r.N), nil)
		}
	}

	say("## Sealing and opening one record (65,519 bytes)\n")
	say("\n")
	say("Throughput, MiB/s of plaintext:\n")
	say("\n")
	printTable("benchmark", "%.0f", mbpsRows...)
	say("\n")
	say("Ratios, Ferry against the raw AEAD in the same round (1.00 = no cost beyond the cipher):\n")
	say("\n")
	var ratios []*benches.Series
	for _, c := range []secure.Cipher{secure.AESGCM, secure.ChaChaPoly} {
		n := c.String()
		ratios = append(ratios,
			benches.Ratio("Conn.Write / aead seal, "+n, mbps["ferry seal "+n], mbps["aead seal "+n]),
			benches.Ratio("Conn.Read / aead open, "+n, mbps["ferry open "+n], mbps["aead open "+n]))
	}
	ratios = append(ratios, benches.Ratio("A/A: aead seal AES-256-GCM, again / first", mbps["aead seal AES-256-GCM (again)"], mbps["aead seal AES-256-GCM"]))
	printTable("ratio", "%.3f", ratios...)
	say("\n")
	say("Allocations per record:\n")
	say("\n")
	printTable("benchmark", "%.2f", allocRows...)
}
