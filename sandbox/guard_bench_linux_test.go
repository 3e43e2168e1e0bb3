package sandbox

import "testing"

// BenchmarkGuard measures a launcher's per-command protection on a
// workspace holding one repository: the check before a command (which
// finds nothing new) and the one after it.
func BenchmarkGuard(b *testing.B) {
	if c := Doctor(); !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		b.Skip("no full sandbox here")
	}
	ws := b.TempDir()
	mustWrite(&testing.T{}, ws+"/.git/config", "[core]\n", 0o644)
	l, err := NewLauncher(Config{Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.Run("before", func(b *testing.B) {
		for b.Loop() {
			if err := l.BeforeCommand(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("after", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.AfterCommand(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("alive", func(b *testing.B) {
		for b.Loop() {
			l.mu.Lock()
			_, err := l.h.alive(0)
			l.mu.Unlock()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
