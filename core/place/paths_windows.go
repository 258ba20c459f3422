package place

import "fmt"

// platformName adds to checkName what only a Windows receiver refuses: a
// name of the 8.3 short-name shape ("PROGRA~1", "REPORT~2.PDF"). NTFS
// generates such aliases for long names on most system volumes, so the
// name may already open an existing file or folder under another name;
// Ferry's clash check would catch that (see Dest.exact), but refusing
// the name keeps it from racing a file created meanwhile. Elsewhere the
// shape is an ordinary name and only the partial folder's aliases are
// refused (isPartialDir), since a Linux receiver writing to vfat meets
// those too.
func platformName(c string) error {
	if isShortName(c) {
		return fmt.Errorf("name %q has the shape of a Windows 8.3 short name, which may alias another file: %w", c, ErrRefusedPath)
	}
	return nil
}
