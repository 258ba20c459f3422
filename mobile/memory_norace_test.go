//go:build !race

// The 1 GiB memory measurements: the race detector multiplies memory
// and time, so they are built without it only (make unit runs them).

package mobile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

func skipMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB transfer: skipped in -short mode")
	}
	if runtime.GOOS != "linux" {
		t.Skipf("platform: %s has no /proc/self/status and clear_refs, which measure the phone's memory on Linux", runtime.GOOS)
	}
}

// TestMemoryPhoneReceives: the phone receives 1 GiB from a plain
// transfer.Send in this process.
func TestMemoryPhoneReceives(t *testing.T) {
	skipMemory(t)
	src := sparseFile(t)
	eachProfile(t, func(t *testing.T, profile, dst string, id *secure.Identity) {
		// A child that fails before it is ready never calls onReady:
		// then there is no sender to wait for, and report says why.
		var sent chan error
		res := runChild(t, "receive", profile, dst, "", func(port int, code string) {
			sent = make(chan error, 1)
			go func() {
				_, err := transfer.Send(context.Background(), transfer.SendConfig{
					Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Code: code, Identity: id,
					Name: "Laptop", Items: []event.Item{{Path: src}},
				})
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
// plain transfer.Sends in this process at once, with two senders at once
// allowed (Android's profile takes two; iOS's takes one, and is measured
// with two to see whether an extension's budget would hold them).
func TestMemoryPhoneReceivesTwo(t *testing.T) {
	skipMemory(t)
	srcs := []string{sparseFile(t), testkit.SparseFile(t, filepath.Join(t.TempDir(), "two-gib-half.bin"), memSize)}
	eachProfile(t, func(t *testing.T, profile, dst string, id *secure.Identity) {
		ids := []*secure.Identity{id, testid.New(t)}
		var sent chan error
		res := runChild(t, "receive2", profile, dst, "", func(port int, code string) {
			sent = make(chan error, len(srcs))
			for i, src := range srcs {
				go func() {
					_, err := transfer.Send(context.Background(), transfer.SendConfig{
						Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Code: code, Identity: ids[i],
						Name: fmt.Sprintf("Laptop %d", i+1), Items: []event.Item{{Path: src}},
					})
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

// TestMemoryPhoneSends: the phone sends 1 GiB to a plain
// transfer.Receiver in this process, found as a platform-reported peer.
func TestMemoryPhoneSends(t *testing.T) {
	skipMemory(t)
	src := sparseFile(t)
	eachProfile(t, func(t *testing.T, profile, dst string, id *secure.Identity) {
		r, err := transfer.NewReceiver(transfer.ReceiverConfig{
			Dir: dst, Listen: "127.0.0.1:0", Identity: id, Name: "Laptop", Policy: transfer.AcceptAll,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		served := make(chan error, 1)
		go func() {
			_, err := r.Serve(context.Background())
			served <- err
		}()
		res := runChild(t, "send", profile, src, strconv.Itoa(r.Port())+" "+r.Code(), nil)
		if err := <-served; err != nil {
			t.Errorf("receiver: %v", err)
		}
		report(t, "phone sending 1 GiB", res)
	})
}
