package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configJSON runs `config print --json` with args and returns the config.
func configJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, status := cli(t, append([]string{"config", "print", "--json"}, args...)...)
	var doc struct {
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || status != 0 {
		t.Fatalf("config print --json %v: %d %q %v", args, status, out, err)
	}
	return doc.Config
}

// TestAllowHostFlag: --allow-host opens the sandbox's network to the
// listed hosts alone (port 443 unless given), through the proxy.
func TestAllowHostFlag(t *testing.T) {
	c := configJSON(t, "--allow-host", "example.com,*.golang.org:8443")
	if c["sandbox_network"] != "allowlist" || strings.Join(toStrings(c["sandbox_allow"]), " ") != "example.com:443 *.golang.org:8443" {
		t.Fatalf("--allow-host: network %v, allow %v", c["sandbox_network"], c["sandbox_allow"])
	}
	if _, status := cli(t, "config", "print", "--allow-host", "example.com", "--sandbox-network", "full"); status != exitFailure {
		t.Fatal("--allow-host with --sandbox-network full was accepted")
	}

	needSandbox(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached") }))
	defer srv.Close()
	hostport := strings.TrimPrefix(srv.URL, "http://")
	get := `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://` + hostport + `/ HTTP/1.1\r\nHost: ` + hostport + `\r\nConnection: close\r\n\r\n' >&3 && cat <&3`
	if out, status := cliRun(t, "-w", t.TempDir(), "--allow-host", hostport, "--", get); status != 0 || !strings.Contains(out, "reached") {
		t.Fatalf("--allow-host %s: %d %q", hostport, status, out)
	}
	// Without the flag the default network is none: no proxy to reach.
	if out, status := cliRun(t, "-w", t.TempDir(), "--", get); status == 0 || strings.Contains(out, "reached") {
		t.Fatalf("the default network reached %s: %d %q", hostport, status, out)
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// TestHomeExpansion: ~ and $HOME are expanded in --workspace, in the
// workspace key of a configuration file, in --config and in --policy.
func TestHomeExpansion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(home, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "mine.yaml"), []byte("workspace: $HOME/proj\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, "proj")
	for _, args := range [][]string{{"-w", "~/proj"}, {"-w", "$HOME/proj"}, {"--config", "~/mine.yaml"}} {
		if c := configJSON(t, args...); c["workspace"] != want {
			t.Errorf("%v: workspace %v, want %s", args, c["workspace"], want)
		}
	}
	out, status := cliRun(t, "-w", "~/proj", "--", "pwd")
	if status != 0 || !strings.Contains(out, want) {
		t.Fatalf("run -w ~/proj: %d %q", status, out)
	}
	if err := os.WriteFile(filepath.Join(home, "policy.yaml"), []byte("denied_commands: [seq]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, status := cliRun(t, "-w", "~/proj", "--policy", "~/policy.yaml", "--", "seq 1"); status != exitFailure {
		t.Fatalf("--policy ~/policy.yaml: %d %q", status, out)
	}
}
