package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// croc is the peer Ferry is measured against: croc v10.7.0, installed by
// the harness with go install into a cache folder outside the repository
// ($HOME/.cache/ferry-bench unless -croc names a binary).
//
// croc looks up its public relay's hostname when it starts, even when
// given --relay, so every croc process (relay, sender, receiver) runs
// inside a network namespace of the harness's making, never in the host's:
// for the loopback path one namespace with only lo up, for the 1 Gbit/s
// path the two namespaces of that path. The lookup then fails at once
// with no route, and nothing leaves the machine.

const crocVersion = "v10.7.0"

// crocSecret is the code both croc ends use; croc v10 reads it from
// CROC_SECRET on Linux (on the command line it would show in ps).
const crocSecret = "ferrybench-271828"

// findCroc returns croc's path, installing it into the cache if needed,
// or why it cannot be had.
func findCroc(flagPath string) (string, error) {
	if flagPath != "" {
		if _, err := os.Stat(flagPath); err != nil {
			return "", fmt.Errorf("-croc %s: %w", flagPath, err)
		}
		return flagPath, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder for the croc cache: %w", err)
	}
	dir := filepath.Join(home, ".cache", "ferry-bench", "croc-"+crocVersion)
	exe := filepath.Join(dir, "croc")
	if _, err := os.Stat(exe); err == nil {
		return exe, nil
	}
	progress("installing croc %s into %s", crocVersion, dir)
	cmd := exec.Command("go", "install", "github.com/schollz/croc/v10@"+crocVersion)
	// Outside the module, so go.mod is neither read nor touched; GOFLAGS
	// cleared so a -race in the environment cannot slip in.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=", "GO111MODULE=on")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install github.com/schollz/croc/v10@%s: %v: %s", crocVersion, err, strings.TrimSpace(string(out)))
	}
	return exe, nil
}

// crocVersionOf runs croc --version inside ns (never in the host's
// namespace) and returns its output.
func crocVersionOf(exe, ns string) string {
	out, err := exec.Command("ip", "netns", "exec", ns, exe, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// crocRelayPorts is the relay's default set: the first for the rooms, the
// other four for the data, which croc's clients use in parallel.
const crocRelayPorts = 5

// crocPlan is one croc transfer on path p: a fresh relay in the
// receiver's namespace (so the data crosses the path once), then, with
// the clock running, the sender and, as soon as it waits in the relay's
// room, the receiver.
func crocPlan(exe string, p *netPath, homes string, compress bool, src, dst string) plan {
	relayAddr := p.host + ":9009"
	var (
		started  atomic.Int32
		inRoom   = make(chan struct{})
		joinOnce sync.Once
	)
	relay := procSpec{
		role: "relay", ns: p.recvNS, service: true,
		// --debug for the one line croc prints after each port accepts
		// connections ("started TCP server on"); without it the relay
		// says only that it is starting.
		argv: []string{exe, "--debug", "relay", "--host", p.host},
		env:  crocEnv(homes, "relay"),
		// The relay's "room ... has 1": the sender is waiting in the
		// room. A receiver that arrives first can make both ends fail
		// ("could not secure channel"), so it is started only then,
		// which is also the order croc's instructions give a person.
		watch: func(line string) {
			if strings.Contains(line, " has 1") {
				joinOnce.Do(func() { close(inRoom) })
			}
		},
		ready: func(line string) (string, bool) {
			if strings.Contains(line, "started TCP server on") {
				return "", started.Add(1) == crocRelayPorts
			}
			return "", false
		},
	}
	global := []string{exe, "--relay", relayAddr}
	if !compress {
		global = append(global, "--no-compress")
	}
	return plan{
		before: []procSpec{relay},
		after: func([]string) []procSpec {
			return []procSpec{
				{role: "sender", ns: p.sendNS, env: crocEnv(homes, "sender"),
					// --no-local: through the relay, not a relay of
					// the sender's own that the receiver might find.
					argv: append(append([]string{}, global...), "send", "--no-local", src)},
				{role: "receiver", ns: p.recvNS, env: crocEnv(homes, "receiver"), gate: inRoom,
					argv: append(append([]string{}, global...), "--yes", "--overwrite", "--out", dst)},
			}
		},
	}
}

// crocEnv gives each croc process a home of its own, so croc's config
// (it may write one) stays out of the real one, and the secret.
func crocEnv(homes, who string) []string {
	h := filepath.Join(homes, "croc-"+who)
	os.MkdirAll(h, 0o700)
	return []string{"HOME=" + h, "XDG_CONFIG_HOME=" + filepath.Join(h, ".config"), "CROC_SECRET=" + crocSecret}
}
