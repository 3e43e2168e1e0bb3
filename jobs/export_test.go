package jobs

import (
	"os"
	"path/filepath"
)

// WriteSignedStatus replaces a job's status file with data (a JSON
// object), signed as m's store signs: for tests that need a status the
// store could have written (stale PIDs after a host restart).
func WriteSignedStatus(m *Manager, dir string, data []byte) error {
	return os.WriteFile(filepath.Join(dir, statusName), m.key.sign(dir, data), 0o600)
}
