//go:build !js

package pick

import (
	"context"
	"io/fs"
	"path/filepath"
)

// MeasureFolder is what sending the folder at root would move, as far as
// a front end shows it before the send: the bytes and number of regular
// files under it, symlinks not followed (the engine does not follow them
// either). It stops early when ctx ends. Unreadable entries are skipped:
// the engine will say which one failed, in context, if they are sent.
func MeasureFolder(ctx context.Context, root string) (bytes int64, files int, err error) {
	err = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				bytes += fi.Size()
				files++
			}
		}
		return nil
	})
	return bytes, files, err
}
