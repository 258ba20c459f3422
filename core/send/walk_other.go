//go:build !linux

package send

// addDiskFolder walks nothing here: addFolder walks every folder with
// fs.WalkDir.
func (m *manifest) addDiskFolder(root itemRoot) (bool, error) { return false, nil }
