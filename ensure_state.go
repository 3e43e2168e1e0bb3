package shellcap

import (
	"fmt"

	"github.com/shellcap/shellcap/internal/safefs"
)

// ensureStateDir creates <workspace>/.shellcap (with its .gitignore) on
// the host, so that it exists before any sandbox of the workspace starts:
// the sandbox hides a state directory that exists, and one that a
// confined command could create itself could be a symlink. A state
// directory that is already a symlink, or someone else's, is refused.
func ensureStateDir(root string) error {
	st, err := safefs.OpenState(root, true)
	if err != nil {
		return fmt.Errorf("shellcap: state directory: %w", err)
	}
	return st.Close()
}
