package mobile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app"
)

// Batch is a send to several receivers at once (Node.SendMany): one
// Transfer per receiver, in the order of SendOptions.ToJSON.
type Batch struct {
	ts []*Transfer
}

// Count is the number of receivers.
func (b *Batch) Count() int {
	defer quiet()
	return len(b.ts)
}

// Transfer is the i-th receiver's transfer; nil out of range.
func (b *Batch) Transfer(i int) *Transfer {
	defer quiet()
	if i < 0 || i >= len(b.ts) {
		return nil
	}
	return b.ts[i]
}

// Cancel cancels every receiver's transfer (as each one's Cancel does:
// core/transfer's SendMany stops them together).
func (b *Batch) Cancel() (err error) {
	defer guard("cancelling", &err)
	if len(b.ts) == 0 {
		return errors.New("cancelling: an empty batch")
	}
	b.ts[0].stop()
	return nil
}

// SendMany sends opts' items to every receiver in opts.ToJSON at once,
// each in a transfer of its own (its own code, events, history record
// and end), reading each file once for all of them where they keep pace
// (core/app's SendMany). A receiver that declines, fails or is slow
// never stops the others; each transfer's last event comes when the
// last of them has ended. Cancelling one transfer cancels them all.
// Each receiver takes one of the profile's transfers at once.
func (n *Node) SendMany(opts *SendOptions) (_ *Batch, err error) {
	defer guard("sending", &err)
	if opts == nil {
		return nil, errors.New("sending: no options")
	}
	if opts.Peer != "" || opts.Addr != "" || opts.Code != "" {
		return nil, errors.New("sending: SendMany takes its receivers from ToJSON, not Peer, Addr or Code")
	}
	items, err := sendItems(opts)
	if err != nil {
		return nil, fmt.Errorf("sending: %w", err)
	}
	to, err := n.targets(opts.ToJSON)
	if err != nil {
		return nil, fmt.Errorf("sending: %w", err)
	}
	ts, err := n.sendTo(items, to)
	if err != nil {
		return nil, fmt.Errorf("sending: %w", err)
	}
	return &Batch{ts: ts}, nil
}

// targetJSON is one element of SendOptions.ToJSON.
type targetJSON struct {
	Peer string `json:"peer"`
	Addr string `json:"addr"`
	Code string `json:"code"`
}

// targets reads SendOptions.ToJSON, strictly, as parseItems reads items.
func (n *Node) targets(s string) ([]app.Target, error) {
	var list []targetJSON
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("reading receivers: %w", err)
	}
	if dec.More() {
		return nil, errors.New("reading receivers: data after the array")
	}
	if len(list) == 0 {
		return nil, errors.New("reading receivers: no receiver")
	}
	to := make([]app.Target, 0, len(list))
	for i, r := range list {
		t, err := n.target(r.Peer, r.Addr, r.Code)
		if err != nil {
			return nil, fmt.Errorf("reading receivers: receiver %d: %w", i, err)
		}
		to = append(to, t)
	}
	return to, nil
}
