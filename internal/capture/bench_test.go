package capture_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/shellcap/shellcap/internal/capture"
)

// BenchmarkWrite measures 32 KiB writes into a buffer with 64 KiB head and
// tail caps, kept in memory or spilled to a file. The spill benchmark starts
// a new stream, truncating the file, every 1024 writes (32 MiB), so the file
// stays small whatever b.N is.
func BenchmarkWrite(b *testing.B) {
	const caps = 64 << 10
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 2<<10) // 32 KiB
	b.Run("memory", func(b *testing.B) {
		buf := capture.New(caps, caps, nil)
		b.SetBytes(int64(len(chunk)))
		b.ReportAllocs()
		for b.Loop() {
			buf.Write(chunk)
		}
	})
	b.Run("spill", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "stream")
		open := func() (io.WriteCloser, int64, error) {
			f, err := os.Create(path)
			return f, 0, err
		}
		buf := capture.New(caps, caps, open)
		b.SetBytes(int64(len(chunk)))
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if n++; n%1024 == 0 {
				if err := buf.Close(); err != nil {
					b.Fatal(err)
				}
				buf = capture.New(caps, caps, open)
			}
			buf.Write(chunk)
		}
		if err := buf.Close(); err != nil {
			b.Fatal(err)
		}
	})
}
