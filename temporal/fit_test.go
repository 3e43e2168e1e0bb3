//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
)

func jsonSize(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// fit leaves a result under the bound as it is, and cuts an over-long one
// to the bound: the streams and structured copies first, the model's text
// only when they do not suffice, every cut marked.
func TestFit(t *testing.T) {
	small := Result{Command: "echo hi", Stdout: "hi\n", Text: "hi", Notes: []string{"a"}}
	if got := fit(small); fmtResult(got) != fmtResult(small) || got.Text != small.Text {
		t.Errorf("a small result changed: %+v", got)
	}

	big := Result{Command: "x", Stdout: strings.Repeat("o", 3<<20), Stderr: strings.Repeat("e", 1<<20), Text: strings.Repeat("t", 200<<10), ExitCode: 3}
	got := fit(big)
	if n := jsonSize(t, got); n > MaxResultBytes {
		t.Fatalf("fitted result is %d bytes, over %d", n, MaxResultBytes)
	}
	if got.Text != big.Text || got.ExitCode != 3 {
		t.Errorf("the text or the exit code changed although the streams sufficed")
	}
	if !strings.Contains(got.Stdout, "bytes omitted: the result would exceed Temporal's payload limit") || !strings.HasPrefix(got.Stdout, "ooo") || !strings.HasSuffix(got.Stdout, "ooo") {
		t.Errorf("stdout is not cut in the middle with a marker: %.80q…", got.Stdout)
	}

	huge := Result{Command: "x", Text: "head " + strings.Repeat("é", 2<<20) + " tail"}
	got = fit(huge)
	if n := jsonSize(t, got); n > MaxResultBytes {
		t.Fatalf("fitted text is %d bytes, over %d", n, MaxResultBytes)
	}
	if !strings.HasPrefix(got.Text, "head é") || !strings.HasSuffix(got.Text, "é tail") || !strings.Contains(got.Text, "bytes omitted") {
		t.Errorf("the text is not cut in the middle with a marker")
	}
	if !strings.Contains(got.Text, "é\n[... ") || strings.ContainsRune(got.Text, '\uFFFD') {
		t.Errorf("the cut split a character")
	}

	structured, _ := json.Marshal(map[string]any{"stdout": strings.Repeat("s", 2<<20), "exit_code": 0, "cwd": "/w"})
	tr := fit(ToolResult{Text: "short", Structured: structured})
	if n := jsonSize(t, tr); n > MaxResultBytes {
		t.Fatalf("fitted tool result is %d bytes", n)
	}
	var m map[string]any
	if err := json.Unmarshal(tr.Structured, &m); err != nil || m["cwd"] != "/w" || m["exit_code"] != 0.0 || tr.Text != "short" {
		t.Errorf("the structured result lost its shape: %v %v", m["cwd"], err)
	}
}

// A command whose result would exceed Temporal's payload limit (a Shell
// with no cap on the text) still comes back, cut, instead of failing the
// activity and losing its output and exit code.
func TestHugeResultFits(t *testing.T) {
	e := newEnv(t, runWorkflow)
	ref := e.host("huge-"+sanitize(t.Name()), func(o *WorkerOptions) {
		o.Shell = func(ws string) shellcap.Options { return shellcap.Options{Workspace: ws, MaxOutputChars: -1} }
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got Result
	if err := e.start(ctx, runWorkflow, ref, Request{Command: "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo end; exit 4"}).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got.ExitCode != 4 || got.StdoutBytes != 3000005 {
		t.Errorf("exit code %d, %d stdout bytes", got.ExitCode, got.StdoutBytes)
	}
	if !strings.Contains(got.Text, "bytes omitted: the result would exceed Temporal's payload limit") || !strings.Contains(got.Text, "end") {
		t.Errorf("the text is not cut with a marker, or lost its end: …%q", got.Text[max(0, len(got.Text)-200):])
	}
}
