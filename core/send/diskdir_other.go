//go:build !linux

package send

import "io/fs"

// openFile is os.DirFS's Open here.
func (d diskDir) openFile(name string) (fs.File, error) { return d.fsys.Open(name) }
