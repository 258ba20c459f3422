package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"
)

// A receiving child listens on a port of its own choosing and tells the
// parent which one on a pipe passed as file descriptor 3, so the parent
// starts the sender (and its clock) only once the receiver is listening,
// without polling.

type readyPipe struct {
	r, w *os.File
}

func newReadyPipe() (*readyPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &readyPipe{r: r, w: w}, nil
}

// afterStart closes the parent's copy of the write end, so that a child
// that dies before announcing its address ends the read with EOF.
func (p *readyPipe) afterStart() { p.w.Close() }

// addr waits for the child's address.
func (p *readyPipe) addr(timeout time.Duration) (string, error) {
	defer p.r.Close()
	p.r.SetReadDeadline(time.Now().Add(timeout))
	line, err := bufio.NewReader(p.r).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("waiting for the receiver to listen: %w", err)
	}
	return strings.TrimSpace(line), nil
}

// announce is the child's side: write the address to fd 3.
func announce(addr string) error {
	f := os.NewFile(3, "ready")
	defer f.Close()
	_, err := fmt.Fprintln(f, addr)
	return err
}
