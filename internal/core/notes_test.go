package core

import "testing"

func TestFileLimitNote(t *testing.T) {
	for _, c := range []struct {
		limit    int64
		exceeded bool
		want     string
	}{
		{0, true, ""},
		{1024, true, "File-size limit exceeded: max_file_bytes=1024. Reduce file output before retrying."},
		{1024, false, "Command failed with max_file_bytes=1024; file writes may have reached the per-file limit."},
	} {
		if got := FileLimitNote(c.limit, c.exceeded); got != c.want {
			t.Errorf("FileLimitNote(%d, %v) = %q, want %q", c.limit, c.exceeded, got, c.want)
		}
	}
}
