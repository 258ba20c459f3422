package mobile

import (
	"context"
	"fmt"

	"github.com/ferry-project/ferry/core/app/nearby"
)

// browseRun is one run of Ferry's own mDNS browse, from StartBrowse to
// StopBrowse (or Close, or a failure). The peer list numbers runs and
// takes results only from the run it holds (nearby.List), so StopBrowse
// need not wait for a stopped run that goes on while its sockets close.
type browseRun struct {
	gen    uint64
	cancel context.CancelFunc
	done   chan struct{} // closed when the run's goroutine has let go of the table
}

// browseFunc is core/app's Browse, or what a test puts in its place.
type browseFunc func(context.Context, nearby.BrowseConfig) error

// StartBrowse looks for receivers with Ferry's own mDNS (core/discovery) until
// StopBrowse or Close, reporting the list with "peers" events. ifaces names
// the interfaces, comma-separated; empty means every multicast-capable
// one. Where it works: desktops, and Android before 11; on newer Android
// and on iOS use the platform's browser and PeerFound. Browsing while a
// browse runs does nothing; a browse that cannot start, or that fails
// later, ends with an "error" event of transfer 0, KindBrowse.
func (n *Node) StartBrowse(ifaces string) (err error) {
	defer guard("browsing", &err)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return fmt.Errorf("browsing: %w", errClosed)
	}
	if n.browsing != nil {
		return nil
	}
	run := &browseRun{gen: n.peers.StartRun(), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(n.ctx)
	run.cancel = cancel
	n.browsing = run
	n.wg.Add(1) // under n.mu, see begin
	cfg := nearby.BrowseConfig{
		Ifaces:   nearby.SplitList(ifaces),
		OnChange: func(ps []nearby.Peer) { n.peers.Heard(run.gen, ps) },
	}
	browse := n.browseFn
	n.run("browsing", func() {
		defer n.browseEnded(run)
		// A stopped run's error is the echo of its stopping.
		if err := browse(ctx, cfg); err != nil && ctx.Err() == nil {
			n.tell(0, failureOf(fmt.Errorf("%w: %w", errBrowse, err)))
		}
	}, func(err error) {
		n.tell(0, failureOf(err))
	})
	return nil
}

// StopBrowse stops Ferry's own mDNS browse and drops the peers it found,
// at once. The browse's sockets close on their own time; a StartBrowse
// right after starts a new browse, and nothing the old one still hears
// reaches the list.
func (n *Node) StopBrowse() (err error) {
	defer guard("stopping browsing", &err)
	n.mu.Lock()
	run := n.browsing
	n.browsing = nil
	n.mu.Unlock()
	if run != nil {
		run.cancel()
		n.peers.EndRun(run.gen)
	}
	return nil
}

// browseEnded runs when a browse returns. If it is still the current run
// (it failed, or the Node is closing) it is forgotten, with its peers, so
// that the next StartBrowse starts afresh; a run StopBrowse already
// replaced touches nothing.
func (n *Node) browseEnded(run *browseRun) {
	defer close(run.done)
	run.cancel()
	n.mu.Lock()
	if n.browsing == run {
		n.browsing = nil
	}
	n.mu.Unlock()
	n.peers.EndRun(run.gen)
}
