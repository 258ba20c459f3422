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

// trusted returns the SIDs that may hold a secret's file: this user, the
// local system and the Administrators group (who can take any file, as
// root can on Unix), and OWNER RIGHTS (which stands for the owner).
func trusted() ([]*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("finding this user: %w", err)
	}
	sids := []*windows.SID{tu.User.Sid}
	for _, t := range []windows.WELL_KNOWN_SID_TYPE{windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid, windows.WinCreatorOwnerRightsSid} {
		s, err := windows.CreateWellKnownSid(t)
		if err != nil {
			return nil, fmt.Errorf("making a well-known SID: %w", err)
		}
		sids = append(sids, s)
	}
	return sids, nil
}

// CheckPrivate returns a *NotPrivateError when the access list of the
// open file f, whose path is path, lets anyone but this user, the system
// and the Administrators read or write it (see the package doc).
func CheckPrivate(f *os.File, path string) error {
	sd, err := windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("checking who can read %s: %w", path, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		// No access list at all grants everyone everything.
		return &NotPrivateError{Path: path, Who: "no access list: everyone", Fix: icaclsFix(path)}
	}
	ok, err := trusted()
	if err != nil {
		return fmt.Errorf("checking who can read %s: %w", path, err)
	}
	var others []string
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Errorf("checking who can read %s: %w", path, err)
		}
		// Denials only take away, and an inherit-only entry is for the
		// folder's future children, not this file.
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		if ace.Mask&dataAccess == 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if slices.ContainsFunc(ok, sid.Equals) {
			continue
		}
		others = append(others, accountName(sid))
	}
	if len(others) > 0 {
		return &NotPrivateError{Path: path, Who: "its access list lets " + strings.Join(others, ", ") + " in", Fix: icaclsFix(path)}
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
	sids, err := trusted()
	if err != nil {
		return fmt.Errorf("making %s private: %w", path, err)
	}
	var entries []windows.EXPLICIT_ACCESS
	for _, s := range sids[:3] { // OWNER RIGHTS needs no entry of its own
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
