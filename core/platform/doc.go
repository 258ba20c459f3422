// Package platform holds what differs between the operating systems that
// Ferry runs on, so that the rest of the code asks one question and each
// OS answers it in a build-tagged file of its own:
//
//   - where this user's folders are (ConfigDir, DownloadDir), through
//     github.com/adrg/xdg, the same function for the CLI and the GUI;
//   - whether a file holding a secret is private to this user
//     (CheckPrivate, MakePrivate): Unix mode bits, or on Windows the
//     file's access list, since Go reports every Windows file as 0666;
//   - how a replaced file is made durable (ReplaceFile): a synced folder
//     on Unix, a write-through MoveFileEx on Windows, where a folder
//     cannot be opened for flushing (retried while a reader still has the
//     old file open, which Windows does not allow to be replaced);
//   - what an OS error means (IsNoSpace, IsAddrInUse, IsUnreachable):
//     ENOSPC and its kin on Unix, ERROR_DISK_FULL and the WSA codes on
//     Windows, which syscall's E-constants do not match there;
//   - how a program starts at login (LoginItem).
//
// In a browser (GOOS=js, the core compiled to WebAssembly for a page)
// the errors are read as on Unix, and no file can be private:
// CheckPrivate and MakePrivate fail, so no secret is ever written there
// (the page keeps its identity in memory). The folders and ReplaceFile
// are not built there.
//
// # Folders
//
// ConfigDir is ferry's folder for its static key and trust file:
// $XDG_CONFIG_HOME/ferry (default ~/.config/ferry) on Linux and the BSDs,
// ~/Library/Application Support/ferry on macOS, and %LOCALAPPDATA%\ferry
// on Windows. Windows gets the local, not the roaming, application data
// folder on purpose: a roaming profile copies %APPDATA% to every PC the
// person logs on to, and two PCs with one static key would be one device
// to their peers and to the trust store.
//
// DownloadDir is where received files go when nothing else is said: the
// Downloads known folder on Windows (which the person may have moved),
// ~/Downloads on macOS, and on Linux and the BSDs $XDG_DOWNLOAD_DIR or the
// XDG_DOWNLOAD_DIR line of user-dirs.dirs (a localized desktop's
// "Téléchargements"), else ~/Downloads. A download folder equal to the
// home folder means "disabled" in the XDG convention and is ~/Downloads
// too, so received files never land loose in home.
//
// Both read the environment when called, not when the program started,
// so a test's or an embedder's environment is the one used.
//
// # Private files
//
// On Unix a file is private when its mode gives group and others nothing
// (mode&0o077 == 0). On Windows it is private when every access-allowed
// entry of its access list that can read or write the file names this
// user, the local system or the Administrators group (the accounts that
// could take the file anyway, like root on Unix); a missing access list
// (which grants everyone everything) is not private. MakePrivate sets
// exactly that list, protected from inheritance. The error says who else
// can read the file and gives the command that fixes it on that OS
// (chmod 600, or icacls).
//
// # Login items
//
// A LoginItem starts the desktop app when the person logs in. On Linux
// and the BSDs it is an XDG autostart entry,
// $XDG_CONFIG_HOME/autostart/ID.desktop (default ~/.config/autostart),
// whose Exec line quotes the program as the Desktop Entry spec says; on
// Windows a value named ID under HKCU\Software\Microsoft\Windows\
// CurrentVersion\Run holding the command line; on macOS a LaunchAgent,
// ~/Library/LaunchAgents/ID.plist, with RunAtLoad. Files are written
// atomically. Only the Linux entry is tested (written, validated with
// desktop-file-validate, its Exec line run, removed): the Windows and
// macOS code is compiled and vetted for those targets but has never run.
package platform
