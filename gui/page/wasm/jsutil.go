//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/ferry-project/ferry/core/app"
)

// await waits for a JavaScript promise (or returns a plain value as it
// is). It must run on a goroutine of its own, never in a callback from
// JavaScript, which would block the event loop the promise needs.
func await(v js.Value) (js.Value, error) {
	if v.Type() != js.TypeObject || v.Get("then").Type() != js.TypeFunction {
		return v, nil
	}
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	ok := js.FuncOf(func(this js.Value, args []js.Value) any {
		done <- result{v: arg0(args)}
		return nil
	})
	bad := js.FuncOf(func(this js.Value, args []js.Value) any {
		done <- result{err: jsError(arg0(args))}
		return nil
	})
	defer ok.Release()
	defer bad.Release()
	v.Call("then", ok, bad)
	r := <-done
	return r.v, r.err
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// jsError turns a thrown or rejected JavaScript value into an error.
func jsError(v js.Value) error {
	if v.Type() == js.TypeObject && v.Get("message").Type() == js.TypeString {
		return errors.New(v.Get("message").String())
	}
	return fmt.Errorf("%v", v)
}

// catch runs f, turning a JavaScript exception it raises into an error.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = jsError(je.Value)
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// call calls an optional method of o and waits for its promise; an
// absent method is nothing to do.
func call(o js.Value, name string, args ...any) (js.Value, error) {
	m := o.Get(name)
	if m.Type() != js.TypeFunction {
		return js.Undefined(), nil
	}
	var v js.Value
	if err := catch(func() { v = o.Call(name, args...) }); err != nil {
		return js.Undefined(), fmt.Errorf("%s: %w", name, err)
	}
	v, err := await(v)
	if err != nil {
		return v, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// Every js.Value that refers to a JavaScript object keeps it alive until
// Go's garbage collector finalizes the Value. The transfer allocates
// almost nothing on the Go side, so the collector seldom runs, and the
// ArrayBuffers of every slice read, message received and chunk handed to
// a sink would stay alive until then: a whole file's worth. passed counts
// the bytes that crossed into or out of JavaScript and runs the collector
// every gcEvery of them, which lets the browser free them. A collection
// of the page's small Go heap takes well under a millisecond.
const gcEvery = 16 << 20

var jsPassed atomic.Int64

func passed(n int) {
	if jsPassed.Add(int64(n)) >= gcEvery {
		jsPassed.Store(0)
		runtime.GC()
	}
}

// crossings are the running transfer's, given to its WebSocket by
// core/app (app.CrossingConn); nil when none runs, before the handshake
// or without diagnostics. One operation runs at a time, so one pointer
// serves it.
var crossings atomic.Pointer[app.Crossings]

// crossed records the part of a call of stage outer that moved n bytes
// between JavaScript and Go, from start: the diag split's "JS crossing".
func crossed(outer app.Stage, start time.Time, n int) {
	crossings.Load().Add(outer, start, n)
}
