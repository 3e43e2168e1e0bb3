// Package safefs reads and writes files beneath a directory the host
// trusts without ever following a symbolic link below it: shellcap's own
// state (.shellcap in a workspace: kept outputs, job records, logs, stdin
// FIFOs) lives where a confined command may have planted links, and the
// host must never act on a path the command chose.
//
// Every name given to a Dir is relative, "/"-separated, and may not hold
// "", "." or ".." components. On Linux each open goes through openat2
// with RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS when
// the kernel has it (5.6 and later), and otherwise walks the components
// with openat and O_NOFOLLOW from the directory's descriptor; elsewhere on
// Unix it always walks. Either way a symlink anywhere in the name, the
// last component included, is refused with an error wrapping ErrUnsafe,
// as is a file or directory that the current user does not own, and a
// regular file with more than one link (a hard link to a file elsewhere).
//
// # Quick start
//
//	st, err := safefs.OpenState(workspace, true) // creates .shellcap and its .gitignore
//	if err != nil { ... }
//	defer st.Close()
//	out, err := st.MkdirAll("output", 0o700)
//	f, err := out.OpenFile("x.stdout", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
package safefs
