package netns

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a tiny TCP tool when re-executed
// inside a namespace: "listen ADDR" accepts one connection and writes
// "hello"; "dial ADDR" connects and copies what it reads to stdout.
const helperEnv = "NETNS_TEST_HELPER"

// TestMain runs the helper instead of the tests when the test binary is
// re-executed as one inside a namespace.
func TestMain(m *testing.M) {
	if mode, addr, ok := strings.Cut(os.Getenv(helperEnv), " "); ok {
		if err := helper(mode, addr); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(mode, addr string) error {
	switch mode {
	case "listen":
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		fmt.Println("ready")
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		io.WriteString(c, "hello")
		return c.Close()
	case "dial":
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			return err
		}
		_, err = io.Copy(os.Stdout, c)
		return err
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// TestPair checks that a process in A reaches one in B over the veth, that
// the namespaces hold nothing but lo and the veth, and that Limit works.
func TestPair(t *testing.T) {
	p := NewPair(t)
	addr := net.JoinHostPort(p.AddrB.String(), "4711")

	listener := p.Command(p.B, os.Args[0])
	listener.Env = append(os.Environ(), helperEnv+"=listen "+addr)
	stdout, err := listener.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := listener.Start(); err != nil {
		t.Fatal(err)
	}
	defer listener.Wait()
	defer listener.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("listener in B did not start: %q, %v", line, err)
	}

	dialer := p.Command(p.A, os.Args[0])
	dialer.Env = append(os.Environ(), helperEnv+"=dial "+addr)
	out, err := dialer.CombinedOutput()
	if err != nil || !bytes.HasPrefix(out, []byte("hello")) {
		t.Fatalf("dialing B from A: %v: %s", err, out)
	}

	links, err := p.Command(p.B, "ip", "-o", "link").CombinedOutput()
	if err != nil {
		t.Fatalf("listing links in B: %v: %s", err, links)
	}
	if n := bytes.Count(links, []byte("\n")); n != 2 {
		t.Errorf("B has %d links, want lo and %s only:\n%s", n, p.VethB, links)
	}
	if !bytes.Contains(links, []byte(p.VethB+"@")) || !bytes.Contains(links, []byte("MULTICAST")) {
		t.Errorf("B's links lack %s with multicast:\n%s", p.VethB, links)
	}
	if err := p.Limit("100mbit"); err != nil {
		t.Fatal(err)
	}
}
