package main

import (
	"fmt"
	"os"

	"github.com/ferry-project/ferry/core/secure"
)

// thisDevice loads (or, the first time, creates) this device's key and
// picks the name it shows the other end: --name, or else the host name.
func thisDevice(flagName string) (*secure.Identity, string, error) {
	id, err := secure.LoadOrCreateIdentity("")
	if err != nil {
		return nil, "", fmt.Errorf("loading this device's key: %w", err)
	}
	name := flagName
	if name == "" {
		name = hostname()
	}
	return id, name, nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "ferry"
	}
	return h
}
