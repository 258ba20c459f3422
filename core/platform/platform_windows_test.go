//go:build windows

package platform

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

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

// TestOutsidersTable checks private files' rule on security descriptors
// built here from SDDL (no file needed): any entry but a denial grants
// what its mask says, the owner must be this user, SYSTEM or the
// Administrators, and OWNER RIGHTS counts as trusted only under such an
// owner.
func TestOutsidersTable(t *testing.T) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	me := tu.User.Sid.String()
	other := "S-1-5-21-1111111111-2222222222-3333333333-1001"
	tr, err := trusteesFor(tu.User.Sid)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sddl string
		want       string // a word of the answer; "" for private
	}{
		{"only me", "O:" + me + "D:P(A;;FA;;;" + me + ")", ""},
		{"me, system, admins, owner rights", "O:" + me + "D:P(A;;FA;;;" + me + ")(A;;FA;;;SY)(A;;FA;;;BA)(A;;FA;;;OW)", ""},
		{"owned by system", "O:SYD:P(A;;FA;;;" + me + ")", ""},
		{"owned by admins", "O:BAD:P(A;;FA;;;" + me + ")", ""},
		{"everyone reads", "O:" + me + "D:P(A;;FA;;;" + me + ")(A;;FR;;;WD)", "lets"},
		{"denial only takes away", "O:" + me + "D:P(D;;FA;;;WD)(A;;FA;;;" + me + ")", ""},
		{"inherit-only is for children", "O:" + me + "D:P(A;OICIIO;FA;;;WD)(A;;FA;;;" + me + ")", ""},
		{"no data access", "O:" + me + "D:P(A;;FA;;;" + me + ")(A;;0x100000;;;WD)", ""},
		{"owned by another user", "O:" + other + "D:P(A;;FA;;;" + me + ")", "owned by"},
		{"owner rights under another owner", "O:" + other + "D:P(A;;FA;;;OW)", "owned by"},
		{"owned by everyone", "O:WDD:P(A;;FA;;;" + me + ")", "owned by"},
		{"no access list", "O:" + me, "no access list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sd, err := windows.SecurityDescriptorFromString(tt.sddl)
			if err != nil {
				t.Fatalf("building %q: %v", tt.sddl, err)
			}
			got, err := tr.outsiders(sd)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("%s: %q, want %q", tt.sddl, got, tt.want)
			}
		})
	}
}

// TestOutsidersRawEntries: entry types that SDDL cannot express, or that
// Wine's SDDL parser refuses (object and callback entries: "Invalid
// string UUID"), built byte by byte, and a null access list.
func TestOutsidersRawEntries(t *testing.T) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	me := tu.User.Sid
	tr, err := trusteesFor(me)
	if err != nil {
		t.Fatal(err)
	}
	everyone, _ := windows.CreateWellKnownSid(windows.WinWorldSid)
	ownerRights, _ := windows.CreateWellKnownSid(windows.WinCreatorOwnerRightsSid)
	other, _ := windows.StringToSid("S-1-5-21-1111111111-2222222222-3333333333-1001")
	guid := bytes.Repeat([]byte{0xab}, 16)
	const read = windows.FILE_READ_DATA
	full := rawACE(windows.ACCESS_ALLOWED_ACE_TYPE, 0, windows.GENERIC_ALL, sidBytes(me))
	tests := []struct {
		name  string
		owner *windows.SID
		dacl  []byte // nil: a null access list
		want  string
	}{
		{"object entry, both GUIDs", me, rawACL(full, rawACE(aceAllowedObject, 0, read, le32(3), guid, guid, sidBytes(everyone))), "Everyone"},
		{"object entry, one GUID", me, rawACL(full, rawACE(aceAllowedObject, 0, read, le32(aceInheritedObjectTypePresent), guid, sidBytes(everyone))), "Everyone"},
		{"object entry, no GUID", me, rawACL(full, rawACE(aceAllowedObject, 0, read, le32(0), sidBytes(everyone))), "Everyone"},
		{"object entry for me", me, rawACL(rawACE(aceAllowedObject, 0, read, le32(1), guid, sidBytes(me))), ""},
		{"callback entry", me, rawACL(full, rawACE(aceAllowedCallback, 0, read, sidBytes(everyone), []byte("artx"))), "Everyone"},
		{"callback object entry", me, rawACL(full, rawACE(aceAllowedCallbackObject, 0, read, le32(0), sidBytes(everyone))), "Everyone"},
		{"denied callback entry", me, rawACL(full, rawACE(aceDeniedCallback, 0, read, sidBytes(everyone), []byte("artx"))), ""},
		{"denied object entry", me, rawACL(full, rawACE(aceDeniedObject, 0, read, le32(0), sidBytes(everyone))), ""},
		{"unknown entry type", me, rawACL(full, rawACE(0x13, 0, read, sidBytes(me))), "unknown type 19"},
		{"owner rights under me", me, rawACL(rawACE(windows.ACCESS_ALLOWED_ACE_TYPE, 0, windows.GENERIC_ALL, sidBytes(ownerRights))), ""},
		{"owner rights under another", other, rawACL(rawACE(windows.ACCESS_ALLOWED_ACE_TYPE, 0, windows.GENERIC_ALL, sidBytes(ownerRights))), "owned by"},
		{"null access list", me, nil, "no access list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sd, err := windows.NewSecurityDescriptor()
			if err != nil {
				t.Fatal(err)
			}
			if err := sd.SetOwner(tt.owner, false); err != nil {
				t.Fatal(err)
			}
			var acl *windows.ACL
			if tt.dacl != nil {
				acl = (*windows.ACL)(unsafe.Pointer(&tt.dacl[0]))
			}
			if err := sd.SetDACL(acl, true, false); err != nil {
				t.Fatal(err)
			}
			got, err := tr.outsiders(sd)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("%q, want %q", got, tt.want)
			}
		})
	}
}

func sidBytes(s *windows.SID) []byte {
	return bytes.Clone(unsafe.Slice((*byte)(unsafe.Pointer(s)), windows.GetLengthSid(s)))
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// rawACE is an access entry: its header, its mask, then body.
func rawACE(typ, flags byte, mask uint32, body ...[]byte) []byte {
	b := []byte{typ, flags, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, mask)
	for _, p := range body {
		b = append(b, p...)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	binary.LittleEndian.PutUint16(b[2:], uint16(len(b)))
	return b
}

// rawACL is an access list (revision 4, which object entries need).
func rawACL(aces ...[]byte) []byte {
	b := make([]byte, 8, 256)
	b[0] = 4
	for _, a := range aces {
		b = append(b, a...)
	}
	binary.LittleEndian.PutUint16(b[2:], uint16(len(b)))
	binary.LittleEndian.PutUint16(b[4:], uint16(len(aces)))
	return b
}
