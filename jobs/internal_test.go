package jobs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTimeoutPrefix(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want time.Duration
		ok   bool
	}{
		{"timeout 5 make", 5 * time.Second, true},
		{"timeout 1.5m make", 90 * time.Second, true},
		{"timeout -s KILL -k 3 2h x", 2 * time.Hour, true},
		{"timeout --signal=INT --preserve-status 10s x", 10 * time.Second, true},
		{"/usr/bin/timeout 1d x", 24 * time.Hour, true},
		{"timeout", 0, false},
		{"timeout abc x", 0, false},
		{"make timeout 5", 0, false},
	} {
		got, ok := timeoutPrefix(c.cmd)
		if got != c.want || ok != c.ok {
			t.Errorf("timeoutPrefix(%q) = %v, %v; want %v, %v", c.cmd, got, ok, c.want, c.ok)
		}
	}
}

func TestValidID(t *testing.T) {
	if id := newID(); !validID(id) || id == newID() {
		t.Fatalf("newID %q", id)
	}
	for _, bad := range []string{"", "0123456789ABCDEF0123456789abcdef", "0123456789abcdef0123456789abcde", "../0123456789abcdef0123456789abc"} {
		if validID(bad) {
			t.Errorf("validID(%q)", bad)
		}
	}
}

func FuzzTimeoutPrefix(f *testing.F) {
	for _, s := range []string{"timeout 5 make", "timeout -k 1 1.5m x", "timeout --signal=INT 1d", "timeout -- 3 x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		d, ok := timeoutPrefix(cmd)
		if ok && d < 0 {
			t.Fatalf("timeoutPrefix(%q) = %v", cmd, d)
		}
	})
}

func FuzzReadLog(f *testing.F) {
	f.Add([]byte("hello\nwörld\n"), int64(0), int64(4))
	f.Add([]byte("€€€"), int64(1), int64(5))
	f.Add([]byte{0xff, 0xe2, 0x82}, int64(0), int64(2))
	f.Fuzz(func(t *testing.T, data []byte, from, window int64) {
		if from < 0 || window <= 0 || window > 1<<20 {
			return
		}
		dir := filepath.Join(t.TempDir(), ".shellcap", "jobs", newID())
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "log")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := readLog(path, from, window)
		if err != nil {
			t.Fatal(err)
		}
		size := int64(len(data))
		if from > size {
			from = 0
		}
		if c.start < from || c.end > size || c.end-c.start != int64(len(c.data)) || c.skipped != c.start-from {
			t.Fatalf("readLog(%q, %d, %d) = %+v", data, from, window, c)
		}
		if !bytes.Equal(c.data, data[c.start:c.end]) {
			t.Fatalf("data %q is not the file's bytes %d..%d", c.data, c.start, c.end)
		}
		// At most a window (plus nothing), starting at most 3 bytes past
		// the window's start, ending at most 3 bytes before the end.
		if int64(len(c.data)) > window || c.start-max(from, size-window) > 3 || size-c.end > 3 {
			t.Fatalf("readLog(%q, %d, %d) = %+v: cut too much", data, from, window, c)
		}
	})
}
