package mobile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/pick"
)

// SendOptions says what to send and to whom. Create it with
// NewSendOptions (Kotlin: SendOptions(), Swift: MobileSendOptions()).
type SendOptions struct {
	// Peer is the Key of a receiver from the peer list (Node.Peers,
	// "peers" events), found by mDNS or reported by the app with PeerFound.
	// Either Peer or Addr.
	Peer string
	// Addr is a receiver's "host:port", for when discovery cannot help
	// (a code and address typed by hand, a QR code).
	Addr string
	// Code is the code the receiver shows. It may be empty when Peer is
	// a trusted device (Transfer.Pin): the two need no code.
	Code string
	// ItemsJSON is what to send, a JSON array of objects, each either a
	// file or folder on disk, sent under its own base name (a folder
	// whole, empty subfolders included):
	//
	//	{"path": "/data/user/0/org.example/cache/photo.jpg"}
	//
	// or a text snippet, named "text.txt" unless it says otherwise:
	//
	//	{"text": "the wifi password is …", "name": "wifi.txt"}
	//
	// It may be empty when files were added with AddFile, which are sent
	// after these.
	ItemsJSON string
	// ToJSON, for Node.SendMany, lists the receivers, a JSON array of
	// objects, each a listed peer's key or an address, with its code:
	//
	//	[{"peer": "Laptop (K7QX)", "code": "123456"}, {"addr": "192.168.1.20:40123", "code": "654321"}]
	//
	// Peer, Addr and Code are then left empty.
	ToJSON string

	files []HostFile
}

// NewSendOptions returns empty SendOptions.
func NewSendOptions() *SendOptions { return &SendOptions{} }

// AddFile adds a file that the app reads itself (a content URI, a
// security-scoped file: see HostFile) to what is sent, after ItemsJSON's
// items, in the order added.
func (o *SendOptions) AddFile(f HostFile) (err error) {
	defer guard("adding a file", &err)
	if f == nil {
		return errors.New("adding a file: no file")
	}
	o.files = append(o.files, f)
	return nil
}

// Send starts sending. It returns at once; the transfer runs on its own,
// telling the app through Events, until the receiver confirmed every
// entry ("done") or it fails or is cancelled ("error").
func (n *Node) Send(opts *SendOptions) (_ *Transfer, err error) {
	defer guard("sending", &err)
	if opts == nil {
		return nil, errors.New("sending: no options")
	}
	items, err := sendItems(opts)
	if err != nil {
		return nil, fmt.Errorf("sending: %w", err)
	}
	to, err := n.target(opts.Peer, opts.Addr, opts.Code)
	if err != nil {
		return nil, fmt.Errorf("sending: %w", err)
	}
	ts, err := n.sendTo(items, []app.Target{to})
	if err != nil {
		return nil, fmt.Errorf("sending: %w", err)
	}
	return ts[0], nil
}

// sendTo sends items to every receiver in to, each a transfer of its
// own: a send to one device is core/app's SendMany with one target, so
// that one and several take the same path.
func (n *Node) sendTo(items []event.Item, to []app.Target) ([]*Transfer, error) {
	ts, ctx, err := n.begin(len(to))
	if err != nil {
		return nil, err
	}
	// core/app names each event's transfer by its *app.Transfer, known
	// once SendMany returns: the handler waits for the table.
	mine := make(map[*app.Transfer]*Transfer, len(ts))
	ready := make(chan struct{})
	mc := app.ManyConfig{Items: items, To: to, OnEvent: func(at *app.Transfer, ev event.Event) {
		<-ready
		if t := mine[at]; t != nil {
			t.onEvent(at, ev)
		}
	}}
	mc.Paths, mc.Text = pick.ItemSources(items)
	m := n.app.SendMany(ctx, mc)
	for i, at := range m.Transfers {
		mine[at] = ts[i]
	}
	close(ready)
	for i, at := range m.Transfers {
		ts[i].start(at)
	}
	return ts, nil
}

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
// core/send's SendMany stops them together).
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
	list, err := decodeList[targetJSON](s, "receivers", "no receiver")
	if err != nil {
		return nil, err
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

// target is a receiver to send to: a listed peer's key or a typed
// address, with its code.
func (n *Node) target(peerKey, addr, code string) (app.Target, error) {
	to := app.Target{Code: code, Addrs: []string{addr}}
	switch {
	case peerKey != "" && addr != "":
		return app.Target{}, errors.New("both a peer and an address")
	case peerKey != "":
		p, ok := n.peers.Get(peerKey)
		if !ok {
			return app.Target{}, fmt.Errorf("no peer %q in the list", peerKey)
		}
		// Every address it advertised: Send tries each in turn.
		to.Addrs, to.PeerName, to.PeerFingerprint = p.Addrs, p.Name, p.Fingerprint
		if code == "" {
			pin, err := n.trusted(p)
			switch {
			case err != nil:
				return app.Target{}, fmt.Errorf("no code, and the trusted devices cannot be read: %w", err)
			case pin == nil:
				return app.Target{}, fmt.Errorf("no code, and %s is not a trusted device", p.Name)
			}
			to.Pin = pin
		}
	case addr == "":
		return app.Target{}, errors.New("no peer and no address")
	}
	if code == "" && to.Pin == nil {
		return app.Target{}, errors.New("no code")
	}
	return to, nil
}

// sendItems is what opts sends: ItemsJSON's items, then the files the
// app added.
func sendItems(opts *SendOptions) ([]event.Item, error) {
	var items []event.Item
	if opts.ItemsJSON != "" || len(opts.files) == 0 {
		var err error
		if items, err = parseItems(opts.ItemsJSON); err != nil {
			return nil, err
		}
	}
	for _, f := range opts.files {
		it, err := hostItem(f)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

// itemJSON is one element of SendOptions.ItemsJSON.
type itemJSON struct {
	Path string  `json:"path"`
	Text *string `json:"text"`
	Name string  `json:"name"`
}

// parseItems reads SendOptions.ItemsJSON. Unknown fields are errors: a
// misspelt "path" must not turn a file into nothing.
func parseItems(s string) ([]event.Item, error) {
	list, err := decodeList[itemJSON](s, "items", "nothing to send")
	if err != nil {
		return nil, err
	}
	items := make([]event.Item, 0, len(list))
	for i, it := range list {
		switch {
		case it.Path != "" && it.Text != nil:
			return nil, fmt.Errorf("reading items: item %d has both a path and a text", i)
		case it.Path != "":
			if it.Name != "" {
				return nil, fmt.Errorf("reading items: item %d: a file is sent under its own name", i)
			}
			items = append(items, event.Item{Path: it.Path})
		case it.Text != nil:
			items = append(items, event.Item{Text: *it.Text, Name: it.Name})
		default:
			return nil, fmt.Errorf("reading items: item %d has neither a path nor a text", i)
		}
	}
	return items, nil
}

// decodeList reads s, a JSON array of what, strictly: a field it does
// not know, data after the array, or an empty array (empty says why) is
// an error.
func decodeList[T any](s, what, empty string) ([]T, error) {
	var list []T
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("reading %s: data after the array", what)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("reading %s: %s", what, empty)
	}
	return list, nil
}
