//go:build !js

package app

import (
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/transfer"
)

// receiving is what a Transfer from a Receiver holds.
type receiving struct {
	recv *Receiver
	rec  *history.Record
	// one is Receive's transfer, the one of its run: Cancel cancels it
	// whole, its waiting offer too, as one transfer at a time always
	// was, rather than declining that offer as ReceiveMany's do.
	one bool
}

// onEngine handles one engine event of a receiving transfer: it notes
// what the record and the result need, emits the event, and answers an
// offer that this device answers unasked.
func (t *Transfer) onEngine(ev event.Event) {
	rc := t.recv
	out := ev
	switch e := ev.(type) {
	case event.Connected:
		c := e
		if e.Paired && rc.n.trust != nil {
			if d, ok, err := rc.n.trust.Trusted(e.PeerKey); err == nil && ok {
				c.PinnedName = d.Name
			}
		}
		out = c
		r := history.Record{At: rc.n.now(), Direction: history.Received, Folder: rc.cfg.Dir,
			Peer: history.Peer{Name: firstOf(c.PinnedName, c.PeerName), Fingerprint: c.PeerFingerprint, Auth: authOf(c.Paired), Addr: c.Addr}}
		t.mu.Lock()
		t.conn = &c
		if rc.n.hist != nil {
			t.rec = &r
		}
		t.mu.Unlock()
	case event.Offer:
		t.mu.Lock()
		t.offer = &e
		if t.rec != nil {
			t.rec.SetOffer(e.Files, e.Folders, e.Texts, e.TotalBytes, e.Paths())
		}
		t.mu.Unlock()
	case event.EntryDone:
		if e.SavedAs != "" {
			t.mu.Lock()
			t.saved = append(t.saved, e.SavedAs)
			t.mu.Unlock()
		}
	case event.Text:
		if rc.cfg.KeepTexts {
			t.keepText(e.Text)
		}
	}
	t.emit(out)
	if o, ok := ev.(event.Offer); ok {
		t.answerUnasked(o)
	}
}

// Asks reports whether the offer of a received transfer waits for a
// person's Accept or Decline: false when core/app answers it itself (see
// answerUnasked), and on a sender or a nil Transfer (a front end's
// replayed events). A front end reads it on the offer event instead of
// deciding again from its own flags.
func (t *Transfer) Asks() bool {
	if t == nil || t.recv == nil {
		return false
	}
	c := t.connected()
	return t.recv.cfg.Asks(c != nil && c.Paired)
}

// Asks reports whether, under c, an offer waits for a person's answer:
// not when every offer is accepted (AcceptAll), none can be asked about
// (Unattended), or a paired sender's is accepted (AcceptTrusted) and
// paired says the sender is one. A front end that shows an offer before
// it has its Transfer asks its config.
func (c ReceiveConfig) Asks(paired bool) bool {
	return !(paired && c.AcceptTrusted) && !c.AcceptAll && c.Unattended == ""
}

// answerUnasked answers an offer that nobody is asked about: a trusted
// sender's with AcceptTrusted (the engine has accepted already), every
// one with AcceptAll, every other one when nobody can be asked.
func (t *Transfer) answerUnasked(o event.Offer) {
	rc := t.recv
	c := t.connected()
	switch {
	case c != nil && c.Paired && rc.cfg.AcceptTrusted:
		t.emit(event.Accepted{By: event.ByTrusted, TotalBytes: o.TotalBytes})
	case rc.cfg.AcceptAll:
		t.answer(true, event.ByFlag, "")
	case rc.cfg.Unattended != "":
		t.answer(false, "", rc.cfg.Unattended)
	}
}

// Accept answers the offer (event.Offer) with yes, as a person did.
// It does nothing once the transfer has ended, or on a sender.
func (t *Transfer) Accept() { t.answer(true, event.ByPerson, "") }

// Decline answers the offer with no; why is the reason the result and
// the history give ("you said no"). It does nothing once the transfer
// has ended, or on a sender.
func (t *Transfer) Decline(why string) { t.answer(false, "", why) }

// answer answers the offer of a received transfer, once: its own
// session's question, whichever others are open.
func (t *Transfer) answer(yes bool, by, why string) {
	if t.recv == nil || t.ctx.Err() != nil {
		return
	}
	t.mu.Lock()
	offer, done, id := t.offer, t.answered, t.session
	if offer != nil {
		t.answered = true
		if !yes {
			t.declined = why
		}
	}
	t.mu.Unlock()
	if offer == nil || done {
		return
	}
	r := t.recv.r
	if yes {
		t.emit(event.Accepted{By: by, TotalBytes: offer.TotalBytes})
		r.AcceptSession(id) // no question open: it has ended, or a policy answered
		return
	}
	r.DeclineSession(id)
}

// declineWaiting declines the offer of a received transfer if it waits
// for an answer, and reports whether it did.
func (t *Transfer) declineWaiting(why string) bool {
	t.mu.Lock()
	waits := t.offer != nil && !t.answered
	if waits {
		t.answered, t.declined = true, why
	}
	id := t.session
	t.mu.Unlock()
	if waits {
		t.recv.r.DeclineSession(id)
	}
	return waits
}

// keepText keeps a received text for the clipboard, at most
// MaxTextBytes in all (one text's limit): a sender may offer
// many texts, and a receiver must not hold them all.
func (t *Transfer) keepText(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(text)
	for _, s := range t.texts {
		n += len(s)
	}
	if n > transfer.MaxTextBytes {
		t.textsCut = true
		return
	}
	t.texts = append(t.texts, text)
}

func authOf(paired bool) history.Auth {
	if paired {
		return history.ByTrust
	}
	return history.ByCode
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// peerText names the peer of a result for a person: its pinned name, or
// the name it claims, with its fingerprint.
func peerText(r Result) string {
	name, fp := firstOf(r.PinnedName, r.Peer.Name), r.Peer.Fingerprint()
	switch {
	case len(r.Peer.Key) == 0 && name == "":
		return "an unnamed device"
	case len(r.Peer.Key) == 0:
		return name
	case name == "":
		return fp
	}
	return name + " (" + fp + ")"
}
