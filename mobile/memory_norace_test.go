//go:build linux && !race

// The 1 GiB memory measurements: the race detector multiplies memory
// and time, so they are built without it only (make unit runs them);
// they read /proc/self/status and write clear_refs, so on Linux only.

package mobile

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/testkit"
)

func skipMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB transfer: skipped in -short mode")
	}
}

// TestMemoryPhoneReceives: the phone receives 1 GiB from a plain
// core/app send in this process.
func TestMemoryPhoneReceives(t *testing.T) {
	skipMemory(t)
	src := sparseFile(t)
	eachProfile(t, func(t *testing.T, profile, dst string, laptop *app.Node) {
		// A child that fails before it is ready never calls onReady:
		// then there is no sender to wait for, and report says why.
		var sent chan error
		res := runChild(t, "receive", profile, dst, "", func(port int, code string, stop func()) {
			sent = make(chan error, 1)
			tr := laptop.Send(context.Background(), app.SendConfig{
				Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Code: code, Items: []event.Item{{Path: src}},
			})
			go func() {
				err := tr.Wait().Err
				if err != nil {
					stop() // the phone would wait for it until its timeout
				}
				sent <- err
			}()
		})
		if sent != nil {
			if err := <-sent; err != nil {
				t.Errorf("sender: %v", err)
			}
		}
		report(t, "phone receiving 1 GiB", res)
		if fi, err := os.Stat(filepath.Join(dst, filepath.Base(src))); err != nil || fi.Size() != memSize {
			t.Errorf("received file: %v", err)
		}
	})
}

// TestMemoryPhoneReceivesTwo: the phone receives 1 GiB from each of two
// plain core/app sends in this process at once, with two senders at once
// allowed (Android's profile takes two; iOS's takes one, and is measured
// with two to see whether an extension's budget would hold them).
func TestMemoryPhoneReceivesTwo(t *testing.T) {
	skipMemory(t)
	srcs := []string{sparseFile(t), testkit.SparseFile(t, filepath.Join(t.TempDir(), "two-gib-half.bin"), memSize)}
	eachProfile(t, func(t *testing.T, profile, dst string, _ *app.Node) {
		laptops := []*app.Node{newLaptop(t, "Laptop 1"), newLaptop(t, "Laptop 2")}
		var sent chan error
		res := runChild(t, "receive2", profile, dst, "", func(port int, code string, stop func()) {
			sent = make(chan error, len(srcs))
			for i, src := range srcs {
				tr := laptops[i].Send(context.Background(), app.SendConfig{
					Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Code: code, Items: []event.Item{{Path: src}},
				})
				go func() {
					err := tr.Wait().Err
					if err != nil {
						stop() // the phone would wait for it until its timeout
					}
					sent <- err
				}()
			}
		})
		for range cap(sent) {
			if err := <-sent; err != nil {
				t.Errorf("sender: %v", err)
			}
		}
		report(t, "phone receiving 1 GiB from each of two senders at once", res)
		if res.Bytes != 2*memSize {
			t.Errorf("the done events count %d bytes, want %d", res.Bytes, 2*memSize)
		}
		for _, src := range srcs {
			if fi, err := os.Stat(filepath.Join(dst, filepath.Base(src))); err != nil || fi.Size() != memSize {
				t.Errorf("received file: %v", err)
			}
		}
	})
}

// TestMemoryPhoneSends: the phone sends 1 GiB to a plain core/app
// receiver in this process, found as a platform-reported peer.
func TestMemoryPhoneSends(t *testing.T) {
	skipMemory(t)
	src := sparseFile(t)
	eachProfile(t, func(t *testing.T, profile, dst string, laptop *app.Node) {
		r, err := laptop.Listen(app.ReceiveConfig{Dir: dst, Listen: "127.0.0.1:0", AcceptAll: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		tr, err := r.Receive(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- tr.Wait().Err }()
		res := runChild(t, "send", profile, src, strconv.Itoa(r.Port())+" "+r.Code(), nil)
		if err := <-served; err != nil {
			t.Errorf("receiver: %v", err)
		}
		report(t, "phone sending 1 GiB", res)
	})
}
