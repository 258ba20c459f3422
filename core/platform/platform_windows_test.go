//go:build windows

package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

const fixWord = "icacls"

var noSpaceErrnos = []error{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL, windows.ERROR_DISK_QUOTA_EXCEEDED}

// openToOthers adds an entry that lets Everyone read the file.
func openToOthers(t *testing.T, path string) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	everyone, err := windows.CreateWellKnownSid(windows.WinWorldSid)
	if err != nil {
		t.Fatal(err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_READ,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee:           windows.TRUSTEE{TrusteeForm: windows.TRUSTEE_IS_SID, TrusteeValue: windows.TrusteeValueFromSID(everyone)},
	}}, dacl)
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		t.Fatal(err)
	}
}

// TestConfigDirIsLocal: the key lives under the local application data
// known folder, never the roaming one.
func TestConfigDirIsLocal(t *testing.T) {
	dir, err := ConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	local, err := windows.KnownFolderPath(windows.FOLDERID_LocalAppData, windows.KF_FLAG_DEFAULT)
	if err != nil {
		t.Fatal(err)
	}
	roaming, err := windows.KnownFolderPath(windows.FOLDERID_RoamingAppData, windows.KF_FLAG_DEFAULT)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(local, "ferry") || strings.HasPrefix(dir, roaming+`\`) {
		t.Errorf("ConfigDir() = %q, want %q (local, not %q)", dir, filepath.Join(local, "ferry"), roaming)
	}
}

// TestDownloadDirKnownFolder: the download folder is the Downloads known
// folder, wherever the person moved it.
func TestDownloadDirKnownFolder(t *testing.T) {
	dir, err := DownloadDir()
	if err != nil {
		t.Fatal(err)
	}
	want, err := windows.KnownFolderPath(windows.FOLDERID_Downloads, windows.KF_FLAG_DEFAULT)
	if err != nil {
		t.Fatal(err)
	}
	if dir != want {
		t.Errorf("DownloadDir() = %q, want the Downloads known folder %q", dir, want)
	}
}

// TestLongPathReplace: ReplaceFile takes paths past MAX_PATH.
func TestLongPathReplace(t *testing.T) {
	dir := t.TempDir()
	for len(dir) < 300 {
		dir = filepath.Join(dir, strings.Repeat("d", 60))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	from, to := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(from, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(from, to); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "x" {
		t.Errorf("after ReplaceFile: %q, %v", b, err)
	}
}

// TestReplaceFileWhileRead: a reader that holds the old file open (as
// os.Open does, without FILE_SHARE_DELETE) delays the replace, it does
// not fail it.
func TestReplaceFileWhileRead(t *testing.T) {
	dir := t.TempDir()
	to, from := filepath.Join(dir, "data"), filepath.Join(dir, ".data-tmp")
	if err := os.WriteFile(to, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(from, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(to)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		time.Sleep(200 * time.Millisecond) // a reader that takes its time
		r.Close()
	}()
	if err := ReplaceFile(from, to); err != nil {
		t.Fatalf("ReplaceFile with a reader: %v", err)
	}
	<-closed
	if b, err := os.ReadFile(to); err != nil || string(b) != "new" {
		t.Errorf("after ReplaceFile: %q, %v", b, err)
	}
}
