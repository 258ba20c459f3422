// Package place owns putting received files on this device's disk: which
// names a receiver writes at all, where in the destination folder each
// entry goes, the hidden partial folder and the partial files in it,
// and the last step that gives a verified file its name. core/transfer's
// receiving sessions are its only callers; they decide what to write and
// when, this package decides how it reaches the disk.
//
// # Names
//
// CheckPath refuses, on every OS alike, a path that some receiver
// somewhere would fail on or misread after the bytes arrived: not
// relative and slash-separated, "." or "..", not UTF-8, a control,
// format or default-ignorable code point, a character Windows cannot
// hold, a trailing dot or space, a Windows device name, a name over
// MaxNameBytes or a path over MaxPathBytes, and the partial folder
// under any spelling a file system could take for it (case, Unicode
// normalization, ignorable code points, 8.3 short names). Only a
// Windows receiver also refuses names of the 8.3 short-name shape
// (paths_windows.go). Folding gives the key under which the file
// systems a receiver may write to (NTFS, APFS, HFS+, exFAT, vfat, ext4
// casefold) take two names for one, so that one offer never names one
// file twice. Every refusal wraps ErrRefusedPath.
//
// # The destination
//
// A Dest is the destination folder of one transfer, opened as an
// os.Root: no path, however crafted, and no symlink, however planted,
// reaches outside it, and nothing is written through a symlink inside
// it. Promises:
//
//   - Nothing is overwritten unless the Dest was opened to overwrite: a
//     file whose name is taken is placed as "name (1).ext", "name
//     (2).ext"..., claimed by a rename that cannot replace
//     (RENAME_NOREPLACE on Linux, RENAME_EXCL on darwin; where the file
//     system or the OS has no such rename, a hard link), so that
//     sessions placing files at once never take one name twice. Only
//     where neither works (Windows without links, FAT under FUSE) is
//     the name checked, then renamed into.
//     With overwrite, a file of exactly that name is replaced; a folder
//     never is.
//   - A name the file system finds only under its folding or
//     normalization ("Report.txt" for "report.txt", an 8.3 alias) is a
//     clash, never the same file: each folder is listed, once per
//     transfer, to tell.
//   - A top-level folder merges into an existing folder of its name
//     (MapTops), or, when something else holds the name or a subfolder's
//     name, goes to "name (1)" as a whole.
//   - Files are written under PartialDir (".ferry-partial") until their
//     hash checks out, where nobody but the receiver's user reads them:
//     created 0600, or with their own mode when the partial folder
//     admits nobody else (it is made 0700) and that mode lets the owner
//     read and write. A partial file's name (PartialName)
//     depends on the sender's key, the path, the size and the time, so
//     only the same file from the same device resumes it; a spare
//     (SpareName) is for a file whose own partial file another session
//     writes, and nothing resumes it. The folder goes (RemovePartialDir)
//     only when empty.
//   - On Linux a new file that comes whole, in one chunk, has no name at
//     all until it is verified and named (OpenUnnamed: O_TMPFILE in the
//     partial folder, then one linkat, which never replaces): nobody can
//     open it meanwhile, and a crash leaves nothing of it, where a resume
//     would have sent it again whole anyway. Closed unfinished (a
//     transfer that stops, a file that could not be placed), it becomes
//     its partial file like any other. Where the file system, the
//     kernel or a security policy cannot (FAT, NFS, most FUSE;
//     linkat(2)'s AT_EMPTY_PATH before Linux 6.10 for a process that is
//     not root; Android's apps, which may make no hard link), and with
//     overwrite, every partial file has a name.
//   - A created file or folder gets the sender's permission bits less
//     the receiver's creation mask, read once per transfer from a probe
//     file (umask(2) cannot be read without setting it for the whole
//     process), and the sender's time; a folder that existed is left as
//     it was. A mode or time the file system cannot hold (vfat, exFAT,
//     some FUSE drivers) is dropped, never failing a verified file.
//   - A full disk is ErrNoSpace (DiskError); FreeSpace says what is free
//     where the OS can tell.
//   - Cost per file: a Dest keeps the partial folder and the folder it
//     last placed a file in open (kept.go), so that on Linux a new file
//     costs about as many calls as tar's: one openat relative to the
//     partial folder, its writes, fchmod and futimens on the open file,
//     close, and one renameat2 between the kept folders; and whether a
//     file or a partial file is already there is answered from one
//     listing per folder, not a lookup per file. A file without a name
//     costs the same calls, with linkat for the rename, and less of the
//     kernel's work: one name made, where a named one's is made, then
//     moved across folders.
//
// Errors name paths under the destination and what sits there: they are
// for this device's person. An error for which InTheWay is true (a
// stranger's file where the partial folder or a partial file goes) must
// reach a peer only as "cannot be written here".
package place
