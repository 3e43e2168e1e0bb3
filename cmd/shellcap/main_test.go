package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/cli")

// TestMain lets the test binary act as the shellcap binary, for tests that
// need a separate process (the stdio MCP server).
func TestMain(m *testing.M) {
	if os.Getenv("SCTEST_BE_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// The user's own configuration directory must not leak into the
	// tests: each gets an empty one unless it sets its own.
	home, err := os.MkdirTemp("", "shellcap-config-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", home)
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// cliCommand returns a command running the CLI with args.
func cliCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SCTEST_BE_CLI=1")
	return cmd
}

func TestMCPOverStdio(t *testing.T) {
	ws := t.TempDir()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cliCommand("mcp", "--workspace", ws)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "pwd -P; ls"}})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(ws)
	if got := res.Content[0].(*mcp.TextContent).Text; got != "[stdout]\n"+real+"\n" {
		t.Fatalf("run_command over stdio: %q", got)
	}
}

// TestTranscripts replays testdata/cli/*.txtar: each archive holds the
// arguments (one per line, run in a fresh workspace $WORK), optional
// environment variables ("env", NAME=VALUE words), files to create in the
// workspace ("file:NAME"), standard input ("stdin"), and the expected
// stdout, stderr and exit status. Run with -update to rewrite them.
func TestTranscripts(t *testing.T) {
	// The transcripts show an installed binary, not one built in this
	// checkout (which would build shellcap-temporal from it).
	defer func(f func() (string, bool)) { findCheckout = f }(findCheckout)
	findCheckout = func() (string, bool) { return "", false }
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
			for name, data := range sections {
				if file, ok := strings.CutPrefix(name, "file:"); ok {
					if err := os.WriteFile(filepath.Join(ws, file), []byte(data), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, kv := range strings.Fields(sections["env"]) {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
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

func TestSandboxDoctor(t *testing.T) {
	out, status := cli(t, "sandbox", "doctor", "--json")
	var caps map[string]any
	if err := json.Unmarshal([]byte(out), &caps); err != nil || status != 0 {
		t.Fatalf("sandbox doctor --json: %d %q %v", status, out, err)
	}
	for _, key := range []string{"os", "arch", "user_namespaces", "landlock_abi", "seccomp"} {
		if _, ok := caps[key]; !ok {
			t.Errorf("no %q in %s", key, out)
		}
	}
}
