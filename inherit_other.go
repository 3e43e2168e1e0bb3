//go:build !unix

package shellcap

// closeInheritedOnExec does nothing where commands cannot run.
func closeInheritedOnExec() error { return nil }
