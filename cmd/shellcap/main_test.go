package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/cli")

// TestTranscripts replays testdata/cli/*.txtar: each archive holds the
// arguments (one per line, run in a fresh workspace), and the expected
// stdout, stderr and exit status. Run with -update to rewrite them.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/cli/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			for _, f := range ar.Files {
				sections[f.Name] = string(f.Data)
			}
			ws := t.TempDir()
			var args []string
			for _, a := range strings.Split(strings.TrimSuffix(sections["args"], "\n"), "\n") {
				args = append(args, strings.ReplaceAll(a, "$WORK", ws))
			}
			var stdout, stderr bytes.Buffer
			status := run(args, strings.NewReader(sections["stdin"]), &stdout, &stderr)
			got := map[string]string{
				"stdout": strings.ReplaceAll(stdout.String(), ws, "$WORK"),
				"stderr": strings.ReplaceAll(stderr.String(), ws, "$WORK"),
				"status": strconv.Itoa(status) + "\n",
			}
			if *update {
				for i, f := range ar.Files {
					if v, ok := got[f.Name]; ok {
						ar.Files[i].Data = []byte(v)
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"stdout", "stderr", "status"} {
				if want, ok := sections[name]; ok && got[name] != want {
					t.Errorf("%s:\n got: %q\nwant: %q", name, got[name], want)
				}
			}
		})
	}
}

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"1024", 1024, false}, {"64K", 64 << 10, false}, {"10MiB", 10 << 20, false}, {"2g", 2 << 30, false},
		{"5 MB", 5 << 20, false}, {"7B", 7, false}, {"", 0, true}, {"-1", 0, true}, {"1.5M", 0, true}, {"9999999999T", 0, true},
	}
	for _, tt := range tests {
		got, err := parseByteSize(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d (error %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestRunJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	status := run([]string{"run", "-w", t.TempDir(), "--json", "--", `printf 'a\033[31mb'; exit 2`}, strings.NewReader(""), &stdout, &stderr)
	var res struct {
		Stdout   string `json:"stdout"`
		ExitCode int    `json:"exit_code"`
		Duration *int64 `json:"duration_ms"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout.String())
	}
	if status != 2 || res.Stdout != "ab" || res.ExitCode != 2 || res.Duration == nil {
		t.Fatalf("status %d result %+v stderr %q", status, res, stderr.String())
	}
}
