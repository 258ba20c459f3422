package main

// A guesser flooding a receiver with wrong codes from one key, faster
// than any person types: a hostile sender, so it uses the engine.

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/tests/proc"
)

// One guess budget for a `ferry receive --keep` process (issue 22 item
// 6): three rounds of eight immediate wrong codes, each followed by an
// honest transfer with the code it shows, check no more wrong codes in
// all than one budget allows (12, after which none is checked). A
// receiver that handed every transfer a fresh budget checked 6 a round,
// 18 in all. core/app's TestOneBudgetAcrossTransfers is the same test
// against the Node, as the app and mobile use it.
func TestE2EOneBudgetAcrossTransfers(t *testing.T) {
	t.Parallel()
	r := proc.Start(t, ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json", "--keep", "--yes", "--dir", t.TempDir()), true)
	ev := r.Until("listening", 20*time.Second)
	code, _ := ev["code"].(string)
	addr := "127.0.0.1:" + strconv.Itoa(int(ev["port"].(float64)))
	guesser, honest := testid.New(t), testid.New(t)
	send := func(id *secure.Identity, code string) error {
		_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: code, Identity: id,
			Items: []event.Item{{Text: "x"}}})
		return err
	}
	checked := 0
	for round := range 3 {
		retired := 0
		for i := range 8 {
			err := send(guesser, strconv.Itoa(100000+round*10+i))
			switch {
			case errors.Is(err, secure.ErrCodeRetired): // the third wrong code of a code retires it
				retired++
				checked++
			case errors.Is(err, secure.ErrWrongCode):
				checked++
			case errors.Is(err, secure.ErrCodesHeld):
			default:
				t.Fatalf("guess: %v", err)
			}
		}
		for range retired {
			code, _ = r.Until("code_changed", 20*time.Second)["code"].(string)
		}
		// The honest sender waits out the back-off, as a person would.
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := send(honest, code)
			if err == nil {
				break
			}
			if !errors.Is(err, secure.ErrCodesHeld) || time.Now().After(deadline) {
				t.Fatalf("honest transfer %d: %v", round+1, err)
			}
			time.Sleep(100 * time.Millisecond) // a person trying again
		}
		used := r.Until("code_changed", 20*time.Second)
		if used["reason"] != "used" {
			t.Fatalf("after honest transfer %d: %v", round+1, used)
		}
		code, _ = used["code"].(string)
		r.Until("done", 20*time.Second)
	}
	t.Logf("wrong codes checked across three honest transfers: %d", checked)
	if checked > 12 {
		t.Errorf("%d wrong codes checked: more than one budget (12)", checked)
	}
}
