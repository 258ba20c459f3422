//go:build !linux

package send

import (
	"context"

	"github.com/ferry-project/ferry/core/app/event"
)

// sendSmall sends nothing here: sendEntry sends every file.
func (s *sender) sendSmall(ctx context.Context, i int, e event.Entry, src source) (bool, error) {
	return false, nil
}

// folders holds nothing here.
type folders struct{}

func (*folders) close() {}
