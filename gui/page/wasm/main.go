//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall/js"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
)

var (
	errBusy = errkind.New(errkind.Busy, "another transfer is running on this page")
	errDial = errkind.New(errkind.Unreachable, "cannot reach the other device")
)

// bridge is the global ferry object's state: this page's device (a
// Node that keeps nothing on disk, its key made at load), and the one
// operation that may run.
type bridge struct {
	node   *app.Node
	mu     sync.Mutex
	cancel context.CancelCauseFunc // of the running operation; nil when idle
}

func main() {
	node, err := app.NewInMemory(app.Config{Key: keptKey()})
	if err != nil {
		js.Global().Get("console").Call("error", "ferry: "+err.Error())
		return
	}
	b := &bridge{node: node}
	obj := js.Global().Get("Object").New()
	obj.Set("send", js.FuncOf(func(this js.Value, args []js.Value) any { return b.start(arg0(args), b.send) }))
	obj.Set("receive", js.FuncOf(func(this js.Value, args []js.Value) any { return b.start(arg0(args), b.receive) }))
	obj.Set("cancel", js.FuncOf(func(this js.Value, args []js.Value) any { b.stop(); return nil }))
	obj.Set("fingerprint", node.Fingerprint())
	obj.Set("ready", true)
	js.Global().Set("ferry", obj)
	if f := js.Global().Get("onFerryReady"); f.Type() == js.TypeFunction {
		f.Invoke()
	}
	select {}
}

// keptKey is the page's key for the device its link names, which
// core.js keeps in the origin's storage and worker.js hands over, before
// the wasm runs, as the global ferryKey (a Uint8Array of 32 bytes); nil,
// a fresh key, when there is none. The global is deleted once read:
// nothing else in the worker needs it.
func keptKey() []byte {
	v := js.Global().Get("ferryKey")
	if !v.InstanceOf(js.Global().Get("Uint8Array")) || v.Length() != 32 {
		return nil
	}
	js.Global().Delete("ferryKey")
	k := make([]byte, 32)
	js.CopyBytesToGo(k, v)
	return k
}

// op is one operation of the bridge (send, receive): it tells emit its
// events and returns its done event.
type op func(ctx context.Context, opts js.Value, emit func(event.Event)) (event.Done, error)

// start runs op on a goroutine of its own (it waits on promises) and
// returns a promise of its outcome: the done event, or a rejection with
// the error event. Each event goes to opts.onEvent as its JSON form
// (jsEvent).
func (b *bridge) start(opts js.Value, run op) any {
	var resolve, reject js.Value
	executor := js.FuncOf(func(this js.Value, args []js.Value) any {
		resolve, reject = args[0], args[1]
		return nil
	})
	promise := js.Global().Get("Promise").New(executor)
	executor.Release()

	ctx, cancel := context.WithCancelCause(context.Background())
	b.mu.Lock()
	busy := b.cancel != nil
	if !busy {
		b.cancel = cancel
	}
	b.mu.Unlock()
	if busy {
		cancel(nil)
		reject.Invoke(jsEvent(errorEvent(errBusy)))
		return promise
	}
	go func() {
		defer func() {
			crossings.Store(nil)
			b.mu.Lock()
			b.cancel = nil
			b.mu.Unlock()
			cancel(nil)
		}()
		tell := func(v js.Value) {
			if f := opts.Get("onEvent"); f.Type() == js.TypeFunction && !v.IsNull() {
				catch(func() { f.Invoke(v) })
			}
		}
		done, err := run(ctx, opts, func(ev event.Event) { tell(jsEvent(ev)) })
		if err != nil {
			e := jsEvent(errorEvent(err))
			tell(e)
			reject.Invoke(e)
			return
		}
		d := jsEvent(done)
		tell(d)
		resolve.Invoke(d)
	}()
	return promise
}

func (b *bridge) stop() {
	b.mu.Lock()
	cancel := b.cancel
	b.mu.Unlock()
	if cancel != nil {
		cancel(errors.New("cancelled on the page"))
	}
}

func str(o js.Value, k string) string {
	v := o.Get(k)
	if v.Type() != js.TypeString {
		return ""
	}
	return v.String()
}

// wsURL is opts.url, or this page's own WebSocket with its token.
func wsURL(opts js.Value) (string, error) {
	if u := str(opts, "url"); u != "" {
		return u, nil
	}
	doc := js.Global().Get("document")
	if doc.IsUndefined() {
		return "", errors.New("no url given and no page to take it from")
	}
	meta := doc.Call("querySelector", `meta[name="ferry-token"]`)
	if meta.IsNull() {
		return "", errors.New("the page has no token: reload it from the link")
	}
	loc := js.Global().Get("location")
	return "ws://" + loc.Get("host").String() + "/ws?t=" + meta.Get("content").String(), nil
}

// dialPage opens the WebSocket at url; a failure that is not ctx's is
// an errDial.
func dialPage(ctx context.Context, url string) (net.Conn, error) {
	c, err := dialWS(ctx, url)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", errDial, err)
	}
	return c, nil
}

// run runs one transfer that start begins, telling emit its events as
// the page is told them, and returns its done event or its error.
func run(fp string, emit func(event.Event), start func(on app.Handler) *app.Transfer) (event.Done, error) {
	var done event.Done
	t := start(func(_ *app.Transfer, ev event.Event) {
		if d, ok := ev.(event.Done); ok {
			done = d
		}
		emit(pageEvent(ev, fp))
	})
	if res := t.Wait(); res.Err != nil {
		return event.Done{}, res.Err
	}
	return done, nil
}

func (b *bridge) send(ctx context.Context, opts js.Value, emit func(event.Event)) (event.Done, error) {
	url, err := wsURL(opts)
	if err != nil {
		return event.Done{}, err
	}
	picked, err := newPickedFS(opts.Get("files"))
	if err != nil {
		return event.Done{}, err
	}
	items := picked.Items()
	b.node.SetName(str(opts, "name"))
	return run(str(opts, "fp"), emit, func(on app.Handler) *app.Transfer {
		return b.node.Send(ctx, app.SendConfig{
			Addrs: []string{url}, Code: str(opts, "code"), Items: items, Diag: opts.Get("diag").Truthy(), OnEvent: on,
			Dialer: func(ctx context.Context, _ string) (net.Conn, error) { return dialPage(ctx, url) },
		})
	})
}

func (b *bridge) receive(ctx context.Context, opts js.Value, emit func(event.Event)) (event.Done, error) {
	url, err := wsURL(opts)
	if err != nil {
		return event.Done{}, err
	}
	sinkObj := opts.Get("sink")
	if sinkObj.Type() != js.TypeObject {
		return event.Done{}, errors.New("receive needs a sink")
	}
	b.node.SetName(str(opts, "name"))
	return run(str(opts, "fp"), emit, func(on app.Handler) *app.Transfer {
		return b.node.ReceiveFrom(ctx, app.ReceiveFromConfig{
			Dial: func(ctx context.Context) (net.Conn, error) { return dialPage(ctx, url) }, Code: str(opts, "code"), Sink: newJSSink(sinkObj), Diag: opts.Get("diag").Truthy(),
			OnEvent: on,
		})
	})
}
