package main

import (
	"fmt"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/errkind"
)

// The form of a code is core/app's (CheckCodeForm): both ends check it
// before anything touches the network.

// codeHint says what a code looks like, for every message about one.
const codeHint = "a code is the digits the receiver shows, like 123456 (one chosen with 'ferry receive --code' has 6 to 64 letters, digits or dashes)"

// codeFlagError is the usage error for a --code that fails
// app.CheckCodeForm; nil when it passes.
func codeFlagError(code string) error {
	if err := app.CheckCodeForm(code); err != nil {
		return &usageError{kind: string(errkind.BadCode), hint: codeHint,
			msg: fmt.Sprintf("bad --code \"%s\": %v", safeCap(code, 24), err)}
	}
	return nil
}
