//go:build windows

package platform

import (
	"fmt"
	"os"
	"os/user"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// dataAccess is every right that reads or changes the file's contents or
// who may: an allowed entry with none of them gives nothing away.
const dataAccess = windows.FILE_READ_DATA | windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA |
	windows.GENERIC_READ | windows.GENERIC_WRITE | windows.GENERIC_ALL |
	windows.WRITE_DAC | windows.WRITE_OWNER | windows.DELETE

// ACE types (winnt.h) beyond the two x/sys/windows names. Every type
// that is not a denial counts as granting what its mask says, whatever
// it is (a callback entry grants when its condition holds, which this
// check cannot know; an object entry grants the whole file on a file);
// only denials, which take away, are skipped.
const (
	aceAllowedObject         = 5
	aceDeniedObject          = 6
	aceAllowedCallback       = 9
	aceDeniedCallback        = 10
	aceAllowedCallbackObject = 11
	aceDeniedCallbackObject  = 12

	aceObjectTypePresent          = 1 // ACCESS_ALLOWED_OBJECT_ACE.Flags
	aceInheritedObjectTypePresent = 2
)

// trustees are the accounts that may hold a secret's file: this user,
// the local system and the Administrators group (who can take any file,
// as root can on Unix). OWNER RIGHTS stands for the file's owner, so it
// is one of them only when the owner is.
type trustees struct {
	accounts    []*windows.SID // user, SYSTEM, Administrators
	ownerRights *windows.SID
}

func currentTrustees() (trustees, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return trustees{}, fmt.Errorf("finding this user: %w", err)
	}
	return trusteesFor(tu.User.Sid)
}

func trusteesFor(user *windows.SID) (trustees, error) {
	t := trustees{accounts: []*windows.SID{user}}
	for _, k := range []windows.WELL_KNOWN_SID_TYPE{windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid, windows.WinCreatorOwnerRightsSid} {
		s, err := windows.CreateWellKnownSid(k)
		if err != nil {
			return trustees{}, fmt.Errorf("making a well-known SID: %w", err)
		}
		if k == windows.WinCreatorOwnerRightsSid {
			t.ownerRights = s
		} else {
			t.accounts = append(t.accounts, s)
		}
	}
	return t, nil
}

func (t trustees) trusted(sid *windows.SID) bool { return slices.ContainsFunc(t.accounts, sid.Equals) }

// CheckPrivate returns a *NotPrivateError when the open file f, whose
// path is path, is owned by anyone but this user, the system and the
// Administrators, or its access list lets anyone else read or write it
// (see the package doc).
func CheckPrivate(f *os.File, path string) error {
	sd, err := windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("checking who can read %s: %w", path, err)
	}
	t, err := currentTrustees()
	if err != nil {
		return fmt.Errorf("checking who can read %s: %w", path, err)
	}
	who, err := t.outsiders(sd)
	if err != nil {
		return fmt.Errorf("checking who can read %s: %w", path, err)
	}
	if who != "" {
		return &NotPrivateError{Path: path, Who: who, Fix: icaclsFix(path)}
	}
	return nil
}

// outsiders says who besides t can take or open a file with security
// descriptor sd ("" for nobody): an owner not among t (the owner can
// always rewrite the access list), or any entry that grants data access
// to a SID not among t, OWNER RIGHTS counted as the owner.
func (t trustees) outsiders(sd *windows.SECURITY_DESCRIPTOR) (string, error) {
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return "no owner: anyone may claim it", nil
	}
	if !t.trusted(owner) {
		return "it is owned by " + accountName(owner), nil
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		// No access list at all grants everyone everything.
		return "no access list: everyone", nil
	}
	var others []string
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return "", err
		}
		// An inherit-only entry is for the folder's future children,
		// not this file; denials only take away.
		typ := ace.Header.AceType
		if ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		switch typ {
		case windows.ACCESS_DENIED_ACE_TYPE, aceDeniedObject, aceDeniedCallback, aceDeniedCallbackObject:
			continue
		}
		// The mask is in the same place in every entry type.
		if ace.Mask&dataAccess == 0 {
			continue
		}
		sid := aceSID(ace)
		if sid == nil {
			others = append(others, fmt.Sprintf("an entry of unknown type %d", typ))
			continue
		}
		if t.trusted(sid) || sid.Equals(t.ownerRights) { // the owner is trusted (checked above)
			continue
		}
		others = append(others, accountName(sid))
	}
	if len(others) > 0 {
		return "its access list lets " + strings.Join(others, ", ") + " in", nil
	}
	return "", nil
}

// aceSID is the SID an entry applies to, or nil for a type whose layout
// this check does not know.
func aceSID(ace *windows.ACCESS_ALLOWED_ACE) *windows.SID {
	switch ace.Header.AceType {
	case windows.ACCESS_ALLOWED_ACE_TYPE, aceAllowedCallback:
		return (*windows.SID)(unsafe.Pointer(&ace.SidStart))
	case aceAllowedObject, aceAllowedCallbackObject:
		// Header, Mask, Flags, then each GUID the flags say is there.
		flags := *(*uint32)(unsafe.Pointer(&ace.SidStart))
		off := uintptr(4)
		if flags&aceObjectTypePresent != 0 {
			off += 16
		}
		if flags&aceInheritedObjectTypePresent != 0 {
			off += 16
		}
		if uintptr(ace.Header.AceSize) < 8+off+8 {
			return nil
		}
		return (*windows.SID)(unsafe.Add(unsafe.Pointer(&ace.SidStart), off))
	}
	return nil
}

// accountName is DOMAIN\name for sid, or the SID's string form when the
// account cannot be looked up (a deleted user, say).
func accountName(sid *windows.SID) string {
	name, domain, _, err := sid.LookupAccount("")
	if err != nil {
		return sid.String()
	}
	if domain == "" {
		return name
	}
	return domain + `\` + name
}

// icaclsFix is the command that leaves only this user on path's access
// list, to type in cmd or PowerShell.
func icaclsFix(path string) string {
	who := "%USERNAME%"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	return fmt.Sprintf(`run icacls "%s" /inheritance:r /grant:r "%s:F" on it`, path, who)
}

// MakePrivate replaces the access list of the file at path with one that
// gives full control to this user, the system and the Administrators and
// nobody else, protected from what the folder would pass down. Call it
// before writing the secret.
func MakePrivate(path string) error {
	t, err := currentTrustees()
	if err != nil {
		return fmt.Errorf("making %s private: %w", path, err)
	}
	var entries []windows.EXPLICIT_ACCESS
	for _, s := range t.accounts { // OWNER RIGHTS needs no entry of its own
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL,
			AccessMode:        windows.SET_ACCESS,
			Inheritance:       windows.NO_INHERITANCE,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeValue: windows.TrusteeValueFromSID(s),
			},
		})
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		return fmt.Errorf("making %s private: %w", path, err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fmt.Errorf("making %s private: %w", path, err)
	}
	return nil
}
