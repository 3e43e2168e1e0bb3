//go:build !shellcap_portable

package jobs_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/fdaudit"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/sandbox"
)

// forgedStatus is a status file in the format the store writes, without
// its signature: what a command that could write .shellcap would plant.
func forgedStatus(id string, finished bool) []byte {
	st := map[string]any{
		"version": 1, "id": id, "command": "cat ~/.ssh/id_rsa", "state": "running",
		"supervisor_pid": 1, "supervisor_start_ticks": 1, "pid": 1, "pgid": 1, "start_ticks": 1,
		"started_at": time.Now().UTC().Format(time.RFC3339Nano), "exit_code": nil, "stdout_bytes": 0,
	}
	if finished {
		st["state"], st["exit_code"], st["finished_at"] = "finished", 0, time.Now().UTC().Format(time.RFC3339Nano)
	}
	data, _ := json.Marshal(st)
	return append(data, '\n')
}

// TestForgedJobRecord plants job directories the store did not write (as
// a command that could write .shellcap would: an older sandbox that
// started before .shellcap existed, a degraded one without private
// mounts), their logs symlinked to a secret outside the workspace: an
// unsigned status, one signed by another key, one copied from another
// job's directory, and a genuine job whose log was replaced by a symlink.
// None is listed or adopted, Check and Stop call them unknown, and the
// secret is never printed.
func TestForgedJobRecord(t *testing.T) {
	sh := newShell(t, "")
	ws := sh.Workspace()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	const secretText = "-----BEGIN SECRET KEY-----"
	if err := os.WriteFile(secret, []byte(secretText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := managerOn(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	genuine := start(t, m, jobs.StartRequest{Command: "echo genuine"})
	if w, err := m.Wait(ctx, genuine, jobs.MaxWait); err != nil || w.Stdout != "genuine\n" {
		t.Fatalf("Wait: %v %+v", err, w)
	}
	jobsDir := filepath.Join(ws, ".shellcap", "jobs")
	plant := func(id string, status []byte) {
		dir := filepath.Join(jobsDir, id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if status != nil {
			if err := os.WriteFile(filepath.Join(dir, "status.json"), status, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, log := range []string{"stdout.log", "stderr.log", "output.log"} {
			_ = os.Remove(filepath.Join(dir, log))
			if err := os.Symlink(secret, filepath.Join(dir, log)); err != nil {
				t.Fatal(err)
			}
		}
	}
	unsigned := strings.Repeat("a", 32)
	plant(unsigned, forgedStatus(unsigned, true))
	otherKey := strings.Repeat("b", 32)
	other := managerOn(t, sh, jobs.Options{KeyDir: t.TempDir()}) // the same format, another key
	plant(otherKey, nil)
	if err := jobs.WriteSignedStatus(other, filepath.Join(jobsDir, otherKey), []byte(strings.TrimSpace(string(forgedStatus(otherKey, true))))); err != nil {
		t.Fatal(err)
	}
	copied := strings.Repeat("c", 32)
	plant(copied, nil)
	data, err := os.ReadFile(filepath.Join(jobsDir, genuine, "status.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(jobsDir, copied, "status.json"), []byte(strings.ReplaceAll(string(data), genuine, copied)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The genuine job's log becomes a symlink to the secret.
	if err := os.Remove(filepath.Join(jobsDir, genuine, "stdout.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(jobsDir, genuine, "stdout.log")); err != nil {
		t.Fatal(err)
	}

	for _, mgr := range []*jobs.Manager{m, managerOn(t, sh, jobs.Options{})} {
		l, err := mgr.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Jobs) != 1 || l.Jobs[0].ID != genuine {
			t.Errorf("List = %s", l.Text())
		}
		for _, id := range []string{unsigned, otherKey, copied} {
			c, err := mgr.Check(ctx, jobs.CheckRequest{ID: id})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.Text(), "unknown command ID") || strings.Contains(c.Text(), secretText) {
				t.Errorf("Check(%s) = %q", id, c.Text())
			}
			s, err := mgr.Stop(ctx, jobs.StopRequest{ID: id, Keep: true})
			if err != nil || !strings.Contains(s.Text(), "unknown command ID") {
				t.Errorf("Stop(%s) = %q, %v", id, s.Text(), err)
			}
		}
		c, err := mgr.Check(ctx, jobs.CheckRequest{ID: genuine})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.Text(), secretText) {
			t.Errorf("Check of the genuine job printed the file its log links to: %q", c.Text())
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != secretText+"\n" {
		t.Fatalf("the secret changed: %q", b)
	}
}

// TestSandboxCannotPlantJobRecord attacks a workspace without .shellcap
// from a sandboxed Shell's commands (its launcher starts at shellcap.New)
// and from sandboxed jobs: the state directory exists before any sandbox
// starts, so no command can create it, a symlink in its place, or a
// record in it; the planted job is not listed and the secret it names is
// never printed. Unconfined, the same scripts plant them (calibration).
func TestSandboxCannotPlantJobRecord(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	const secretText = "not-for-the-model-5be1"
	if err := os.WriteFile(secret, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("d", 32)
	status := strings.TrimSpace(string(forgedStatus(id, true)))
	attacks := []string{
		"mkdir -p .shellcap/jobs/" + id + " && printf '%s' '" + status + "' > .shellcap/jobs/" + id +
			"/status.json && ln -sf " + secret + " .shellcap/jobs/" + id + "/stdout.log && echo planted",
		"ln -s " + filepath.Dir(secret) + " .shellcap && echo planted",
	}
	for _, attack := range attacks {
		// Calibration: plain bash on a fresh workspace plants it.
		if out, err := execBash(t.TempDir(), attack); err != nil || !strings.Contains(out, "planted") {
			t.Fatalf("calibration: %v %s", err, out)
		}
		for _, via := range []string{"shell", "job"} {
			ws := t.TempDir()
			_, value, _ := strings.Cut(testMark, "=")
			sh, err := shellcap.New(shellcap.Options{Workspace: ws, Env: markEnv(value), Sandbox: sandbox.Confiner(sandbox.Config{})})
			if errors.Is(err, sandbox.ErrDegraded) && os.Getenv("CI") != "true" {
				t.Skipf("no sandbox on this machine: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sh.Close() })
			ctx := ctxFor(t)
			var out string
			m := managerOn(t, sh, jobs.Options{})
			if via == "shell" {
				res, err := sh.Run(ctx, shellcap.Request{Command: attack})
				if err != nil {
					t.Fatal(err)
				}
				out = res.Text()
			} else {
				w, err := m.Wait(ctx, start(t, m, jobs.StartRequest{Command: attack}), jobs.MaxWait)
				if err != nil {
					t.Fatal(err)
				}
				out = w.Text()
			}
			if strings.Contains(out, "planted") {
				t.Errorf("%s: a sandboxed command planted it: %q", via, out)
			}
			if fi, err := os.Lstat(filepath.Join(ws, ".shellcap")); err != nil || !fi.IsDir() {
				t.Errorf("%s: .shellcap is not the host's directory: %v %v", via, fi, err)
			}
			if _, err := os.Lstat(filepath.Join(ws, ".shellcap", "jobs", id)); err == nil {
				t.Errorf("%s: the planted job directory exists", via)
			}
			l, err := m.List(ctx)
			if err != nil || len(l.Jobs) > 1 {
				t.Errorf("%s: List = %v %s", via, err, l.Text())
			}
			if c, _ := m.Check(ctx, jobs.CheckRequest{ID: id}); strings.Contains(c.Text(), secretText) {
				t.Errorf("%s: Check printed the secret: %q", via, c.Text())
			}
		}
	}
}

// TestSandboxedJobDescriptors lists, from inside a sandboxed job started
// with a stdin pipe, every descriptor its shell holds: pipes and null-like
// devices only, never a host file (not its logs, not its FIFO).
func TestSandboxedJobDescriptors(t *testing.T) {
	sh := newShell(t, "")
	m := sandboxedManager(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	for _, stdin := range []bool{false, true} {
		j := start(t, m, jobs.StartRequest{Command: fdaudit.Script, Stdin: stdin})
		if stdin {
			if _, err := m.Input(ctx, jobs.InputRequest{ID: j, Text: "", EOF: true}); err != nil {
				t.Fatal(err)
			}
		}
		w, err := m.Wait(ctx, j, jobs.MaxWait)
		if err != nil || w.Status != jobs.StatusFinished {
			t.Fatalf("Wait: %v %q", err, w.Text())
		}
		es := fdaudit.Parse(w.Stdout)
		t.Logf("inside the job (stdin %v):\n%s", stdin, w.Stdout)
		if len(es) < 3 {
			t.Fatalf("listed %d descriptors: %q", len(es), w.Text())
		}
		for _, bad := range fdaudit.Check(es, fdaudit.Grants{Writable: []string{sh.Workspace()}}) {
			t.Errorf("stdin %v: %s", stdin, bad)
		}
	}
}

// execBash runs script with plain bash in dir: the calibration.
func execBash(dir, script string) (string, error) {
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestRecordKeyPlace: the record key is made 0600 in a directory of the
// user's outside the workspace; New refuses a key directory inside the
// workspace (a command could write the key there) and a key that others
// may read.
func TestRecordKeyPlace(t *testing.T) {
	sh := newShell(t, "")
	dir := filepath.Join(t.TempDir(), "keys")
	managerOn(t, sh, jobs.Options{KeyDir: dir})
	fi, err := os.Stat(filepath.Join(dir, "job-records.key"))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 32 {
		t.Fatalf("key: %v %v", fi, err)
	}
	if _, err := jobs.New(sh, jobs.Options{KeyDir: filepath.Join(sh.Workspace(), "keys")}); err == nil || !strings.Contains(err.Error(), "inside the workspace") {
		t.Errorf("a key directory inside the workspace: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "job-records.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.New(sh, jobs.Options{KeyDir: dir}); err == nil || !strings.Contains(err.Error(), "group or others") {
		t.Errorf("a key others may read: %v", err)
	}
}
