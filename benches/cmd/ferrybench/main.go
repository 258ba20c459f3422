// Command ferrybench runs Ferry's release-mode benchmarks and prints each
// figure as a ratio against a baseline measured in the same run,
// interleaved, with the median, the range and every run, failures
// included. `make bench` runs it with the defaults.
//
// It refuses to run from a -race or -gcflags=-N/-l build. For the stream
// and file figures it re-executes itself (-child ROLE) so that the two
// ends of a connection are separate processes, as they are in Ferry.
//
//	ferrybench [-only records,stream,calls,file,small,veth,ab] [-pairs 5] [-ab-exe OTHER]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ferry-project/ferry/benches"
)

type options struct {
	only      map[string]bool
	pairs     int
	streamMiB int
	fileMiB   int
	small     int
	benchtime time.Duration
	tmp       string
	timeout   time.Duration
	vethMiB   int
	abExe     string
}

var figureOrder = []string{"records", "stream", "calls", "file", "small", "veth", "ab"}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-child" {
		os.Exit(runChild(os.Args[2], os.Args[3:]))
	}
	fs := flag.NewFlagSet("ferrybench", flag.ExitOnError)
	only := fs.String("only", "records,stream,calls,file,small,veth", "figures to run, comma-separated: "+strings.Join(figureOrder, ","))
	o := options{}
	fs.IntVar(&o.pairs, "pairs", 5, "interleaved rounds per figure")
	fs.IntVar(&o.streamMiB, "stream-mib", 256, "MiB per stream run")
	fs.IntVar(&o.fileMiB, "file-mib", 1024, "size of the large file, MiB")
	fs.IntVar(&o.small, "small-files", 10000, "number of 4 KiB files")
	fs.DurationVar(&o.benchtime, "benchtime", 300*time.Millisecond, "time per record benchmark run")
	fs.StringVar(&o.tmp, "tmp", os.TempDir(), "directory for the files figures")
	fs.DurationVar(&o.timeout, "timeout", 3*time.Minute, "longest a single run may take before it counts as failed")
	fs.IntVar(&o.vethMiB, "veth-mib", 512, "size of the file sent across the 1 Gbit/s veth, MiB")
	fs.StringVar(&o.abExe, "ab-exe", "", "another ferrybench binary: the ab figure runs its Ferry children against this one's")
	fs.Parse(os.Args[1:])

	if err := benches.CheckThisBuild(); err != nil {
		fmt.Fprintf(os.Stderr, "ferrybench: %v\nbuild it as it ships: go run ./benches/cmd/ferrybench\n", err)
		os.Exit(2)
	}
	o.only = map[string]bool{}
	for _, f := range strings.Split(*only, ",") {
		o.only[strings.TrimSpace(f)] = true
	}

	start := time.Now()
	host, _ := os.Hostname()
	fmt.Printf("# ferrybench %s on %s, %d CPUs, %s\n\n", time.Now().Format("2006-01-02 15:04"), host, numCPU(), goVersion())
	fmt.Printf("Every figure is a ratio against a baseline run in the same invocation, interleaved; %d rounds; median, min–max and every run (FAIL kept).\n\n", o.pairs)
	figures := map[string]func(options){
		"records": recordsFigure,
		"stream":  streamFigure,
		"calls":   callsFigure,
		"file":    fileFigure,
		"small":   smallFigure,
		"veth":    vethFigure,
		"ab":      abFigure,
	}
	for _, name := range figureOrder {
		if o.only[name] {
			t := time.Now()
			figures[name](o)
			fmt.Printf("\n(%s took %s)\n\n", name, time.Since(t).Round(time.Second))
		}
	}
	fmt.Printf("total %s\n", time.Since(start).Round(time.Second))
}
