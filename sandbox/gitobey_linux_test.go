package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The attacks on what the host's git obeys are proved with the host's git
// itself: each plants something and then the host runs git, unconfined,
// the way a person would after the agent's command; a payload git runs
// appends to a marker file outside the workspace. Plain bash calibrates
// each attack first: unconfined, the marker must appear.

// gitAttack is one attack on what the host's git obeys.
type gitAttack struct {
	name string
	// setup adds to the workspace, on the host, before anything runs.
	setup func(t *testing.T, ws string)
	// scripts are the attacker's commands, one sandboxed command each,
	// run in the workspace with $MARK naming the marker and $PAYLOAD a
	// shell script that appends to it, which each command first writes
	// into the workspace.
	scripts []string
	// host is what the host then runs, unconfined, in the workspace.
	host string
}

var gitEnv = []string{
	"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
	"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
}

// gitIn runs git on the host in dir, failing the test on error.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(dir), gitEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
}

// repoAt makes a repository with one commit at dir.
func repoAt(t *testing.T, dir string, initArgs ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range initArgs {
		if sep, ok := strings.CutPrefix(a, "--separate-git-dir="); ok {
			if err := os.MkdirAll(filepath.Dir(sep), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	gitIn(t, dir, append([]string{"init", "-q"}, initArgs...)...)
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
}

// hostGit is what a person runs: status (fsmonitor), a commit (hooks).
func hostGit(dir string) string {
	return "cd " + dir + " && git status >/dev/null 2>&1; git commit -q --allow-empty -m host >/dev/null 2>&1; true"
}

// writeHook is a script line that plants the payload as hook path.
func writeHook(path string) string {
	q := "\"" + path + "\""
	return "mkdir -p \"$(dirname " + q + ")\" && printf '#!/bin/sh\\necho pwned >> %s\\nexit 1\\n' \"$MARK\" > " + q + " && chmod +x " + q
}

func gitAttacks() []gitAttack {
	fsmon := func(dir string) string {
		return "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" > " + dir + "/config"
	}
	return []gitAttack{
		{
			name:    "commondir redirects config",
			setup:   func(t *testing.T, ws string) { repoAt(t, ws) },
			scripts: []string{"mkdir -p evil && cp -a .git/. evil/ && " + fsmon("evil") + " && echo \"$PWD/evil\" > .git/commondir"},
			host:    hostGit("."),
		},
		{
			name: "config.worktree with worktreeConfig",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				gitIn(t, ws, "config", "extensions.worktreeConfig", "true")
			},
			scripts: []string{"printf '[core]\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" > .git/config.worktree"},
			host:    hostGit("."),
		},
		{
			name: "submodule git directory hook",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				repoAt(t, filepath.Join(ws, "sub"), "--separate-git-dir="+filepath.Join(ws, ".git/modules/sub"))
			},
			scripts: []string{writeHook(".git/modules/sub/hooks/pre-commit")},
			host:    hostGit("sub"),
		},
		{
			name: "submodule git directory config",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				repoAt(t, filepath.Join(ws, "sub"), "--separate-git-dir="+filepath.Join(ws, ".git/modules/sub"))
			},
			scripts: []string{"printf '[core]\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" >> .git/modules/sub/config"},
			host:    hostGit("sub"),
		},
		{
			name: "worktree commondir",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				gitIn(t, ws, "worktree", "add", "-q", filepath.Join(ws, "wt"))
			},
			scripts: []string{"mkdir -p evil && cp -a .git/. evil/ && rm -rf evil/worktrees && " + fsmon("evil") + " && echo \"$PWD/evil\" > .git/worktrees/wt/commondir"},
			host:    hostGit("wt"),
		},
		{
			name: "worktree config.worktree",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				gitIn(t, ws, "config", "extensions.worktreeConfig", "true")
				gitIn(t, ws, "worktree", "add", "-q", filepath.Join(ws, "wt"))
			},
			scripts: []string{"printf '[core]\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" > .git/worktrees/wt/config.worktree"},
			host:    hostGit("wt"),
		},
		{
			name: "hooksPath with a trailing comment",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n\trepositoryformatversion = 0\n\thooksPath = tools/hooks ; kept in the tree\n", 0o644)
				mustWrite(t, filepath.Join(ws, "tools/hooks/README"), "hooks\n", 0o644)
			},
			scripts: []string{writeHook("tools/hooks/pre-commit")},
			host:    hostGit("."),
		},
		{
			name: "hooksPath quoted",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n\trepositoryformatversion = 0\n\thooksPath = \"my hooks\"\n", 0o644)
				mustWrite(t, filepath.Join(ws, "my hooks/README"), "hooks\n", 0o644)
			},
			scripts: []string{writeHook("my hooks/pre-commit")},
			host:    hostGit("."),
		},
		{
			name: "hooksPath last value wins",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n\trepositoryformatversion = 0\n\thooksPath = first\n[CORE]\n\tHooksPath = second\n", 0o644)
				mustWrite(t, filepath.Join(ws, "first/README"), "x\n", 0o644)
				mustWrite(t, filepath.Join(ws, "second/README"), "x\n", 0o644)
			},
			scripts: []string{writeHook("second/pre-commit")},
			host:    hostGit("."),
		},
		{
			name: "included config file",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n\trepositoryformatversion = 0\n[include]\n\tpath = ../conf/git.inc\n", 0o644)
				mustWrite(t, filepath.Join(ws, "conf/git.inc"), "[user]\n\tname = x\n", 0o644)
			},
			scripts: []string{"printf '[core]\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" >> conf/git.inc"},
			host:    hostGit("."),
		},
		{
			name: "includeIf file",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n\trepositoryformatversion = 0\n[includeIf \"gitdir:"+ws+"/\"]\n\tpath = "+ws+"/conf.inc\n", 0o644)
				mustWrite(t, filepath.Join(ws, "conf.inc"), "[user]\n\tname = x\n", 0o644)
			},
			scripts: []string{"printf '[core]\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" >> conf.inc"},
			host:    hostGit("."),
		},
		{
			name: "program a config names",
			setup: func(t *testing.T, ws string) {
				repoAt(t, ws)
				mustWrite(t, filepath.Join(ws, "tools/fsmon.sh"), "#!/bin/sh\nexit 1\n", 0o755)
				gitIn(t, ws, "config", "core.fsmonitor", "./tools/fsmon.sh")
			},
			scripts: []string{"cp \"$PAYLOAD\" tools/fsmon.sh"},
			host:    hostGit("."),
		},
		{
			name:    "repository in node_modules",
			setup:   func(t *testing.T, ws string) { repoAt(t, filepath.Join(ws, "node_modules/pkg")) },
			scripts: []string{writeHook("node_modules/pkg/.git/hooks/pre-commit")},
			host:    hostGit("node_modules/pkg"),
		},
		{
			name:    "repository nested deep",
			setup:   func(t *testing.T, ws string) { repoAt(t, filepath.Join(ws, "a/b/c/d/e/f/vendor/x")) },
			scripts: []string{writeHook("a/b/c/d/e/f/vendor/x/.git/hooks/pre-commit")},
			host:    hostGit("a/b/c/d/e/f/vendor/x"),
		},
		{
			name: "separate git directory",
			setup: func(t *testing.T, ws string) {
				repoAt(t, filepath.Join(ws, "app"), "--separate-git-dir="+filepath.Join(ws, "store/app.git"))
			},
			scripts: []string{writeHook("store/app.git/hooks/pre-commit")},
			host:    hostGit("app"),
		},
		{
			name: "bare repository hook",
			setup: func(t *testing.T, ws string) {
				gitIn(t, ws, "init", "-q", "--bare", "srv.git")
				repoAt(t, filepath.Join(ws, "w"))
			},
			scripts: []string{writeHook("srv.git/hooks/pre-receive")},
			host:    "cd w && git push -q ../srv.git HEAD:refs/heads/x >/dev/null 2>&1; true",
		},
		{
			name: "bare repository config",
			setup: func(t *testing.T, ws string) {
				gitIn(t, ws, "init", "-q", "--bare", "srv.git")
				repoAt(t, filepath.Join(ws, "w"))
			},
			scripts: []string{"printf '[core]\\n\\thooksPath = %s\\n' \"$PWD/evilhooks\" >> srv.git/config && " + writeHook("evilhooks/pre-receive")},
			host:    "cd w && git push -q ../srv.git HEAD:refs/heads/x >/dev/null 2>&1; true",
		},
		{
			name:    "hook in a repository the command makes",
			setup:   func(t *testing.T, ws string) {},
			scripts: []string{"git init -q made && " + writeHook("made/.git/hooks/pre-commit")},
			host:    hostGit("made"),
		},
		{
			name:    "config of a repository the command makes",
			setup:   func(t *testing.T, ws string) {},
			scripts: []string{"git init -q made && printf '[core]\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" >> made/.git/config"},
			host:    hostGit("made"),
		},
		{
			name:    "repository the command clones",
			setup:   func(t *testing.T, ws string) { repoAt(t, filepath.Join(ws, "src")) },
			scripts: []string{"git clone -q src cl && " + writeHook("cl/.git/hooks/pre-commit")},
			host:    hostGit("cl"),
		},
		{
			name:    "separate git directory the command makes",
			setup:   func(t *testing.T, ws string) {},
			scripts: []string{"mkdir -p hidden && git init -q --separate-git-dir=\"$PWD/hidden/g\" w && " + writeHook("hidden/g/hooks/pre-commit")},
			host:    hostGit("w"),
		},
		{
			name:    "new hook in an existing repository without hooks",
			setup:   func(t *testing.T, ws string) { repoAt(t, ws); os.RemoveAll(filepath.Join(ws, ".git/hooks")) },
			scripts: []string{writeHook(".git/hooks/pre-commit")},
			host:    hostGit("."),
		},
		{
			name: "unreadable git directory, then a hook",
			setup: func(t *testing.T, ws string) {
				repoAt(t, filepath.Join(ws, "r"))
			},
			scripts: []string{
				"chmod 000 r/.git",
				"chmod 755 r/.git && " + writeHook("r/.git/hooks/pre-commit") + " && printf '[core]\\n\\tfsmonitor = %s\\n' \"$PAYLOAD\" >> r/.git/config",
			},
			host: "chmod 755 r/.git; " + hostGit("r"),
		},
	}
}

// payloadPrelude makes the attacker's payload in the workspace: a
// script that appends to $MARK, named by $PAYLOAD.
const payloadPrelude = "PAYLOAD=\"$PWD/.payload.sh\"; printf '#!/bin/sh\\necho pwned >> %s\\nexit 1\\n' \"$MARK\" > \"$PAYLOAD\" && chmod +x \"$PAYLOAD\"; "

// runAttack runs each script of a in ws: unconfined when cfg is nil,
// else sandboxed the given way, checking after each command as a Shell
// does. It returns what was quarantined.
func runAttack(t *testing.T, mode string, cfg *Config, ws, mark string, a gitAttack) []string {
	t.Helper()
	env := append([]string{"MARK=" + mark}, gitEnv...)
	var quarantined []string
	if cfg == nil {
		for _, s := range a.scripts {
			cmd := exec.Command("/bin/bash", "-c", payloadPrelude+s)
			cmd.Dir = ws
			cmd.Env = append(baseEnv(ws), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("unconfined %q: %v\n%s", s, err, out)
			}
		}
		return nil
	}
	switch mode {
	case viaHelper:
		for _, s := range a.scripts {
			g, err := NewGuard(*cfg)
			if err != nil {
				t.Fatal(err)
			}
			o := runIn(t, *cfg, payloadPrelude+s, env...)
			t.Logf("exit %d: %s", o.code, strings.TrimSpace(o.stdout+o.stderr))
			q, err := g.AfterCommand()
			if err != nil {
				t.Errorf("check: %v", err)
			}
			quarantined = append(quarantined, q...)
		}
	default:
		l, err := NewLauncher(*cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for _, s := range a.scripts {
			o := launchIn(t, l, ws, payloadPrelude+s, env...)
			t.Logf("exit %d: %s", o.code, strings.TrimSpace(o.stdout+o.stderr))
			q, err := l.AfterCommand()
			if err != nil {
				t.Errorf("check: %v", err)
			}
			quarantined = append(quarantined, q...)
		}
	}
	return quarantined
}

// hostRun runs script with bash on the host, unconfined, in ws.
func hostRun(t *testing.T, ws, script, mark string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", script)
	cmd.Dir = ws
	cmd.Env = append(baseEnv(ws), append([]string{"MARK=" + mark}, gitEnv...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("host %q: %v %s", script, err, out)
	}
}

// TestGitObeyed runs every attack on what the host's git obeys, first
// unconfined (the host's git must then run the payload), then sandboxed
// both ways under each confined profile: the host's git must not run it.
func TestGitObeyed(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed")
	}
	for _, a := range gitAttacks() {
		t.Run(a.name, func(t *testing.T) {
			out := tempDir(t, "/var/tmp", "shellcap-gitobey-")
			mark := filepath.Join(out, "pwned")
			// The host's git, as the unprivileged user too, appends here.
			must(t, os.Chmod(out, 0o777))
			ws := t.TempDir()
			a.setup(t, ws)
			runAttack(t, "", nil, ws, mark, a)
			hostRun(t, ws, a.host, mark)
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("calibration: unconfined, the host's git did not run the payload (%v)", err)
			}
			for _, mode := range startModes {
				for _, prof := range []Profile{WorkspaceWrite, ReadOnly} {
					t.Run(mode+"/"+string(prof), func(t *testing.T) {
						os.Remove(mark)
						ws := t.TempDir()
						a.setup(t, ws)
						cfg := Config{Profile: prof, Workspace: ws}
						q := runAttack(t, mode, &cfg, ws, mark, a)
						hostRun(t, ws, a.host, mark)
						if _, err := os.Stat(mark); err == nil {
							t.Errorf("the host's git ran what the sandboxed command planted (quarantined: %q)", q)
						}
						if len(q) > 0 {
							t.Logf("quarantined: %q", q)
						}
					})
				}
			}
		})
	}
}

// TestGitPerCommand: a launcher protects what exists at each command's
// start, not only at its own: a repository and an agent configuration
// the host makes while the launcher is up are read-only for the next
// command, and stay the host's (nothing is quarantined). What a process
// left running by an earlier command writes between two commands is not
// taken for the host's: it is quarantined before the next one.
func TestGitPerCommand(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	repoAt(t, ws)
	l, err := NewLauncher(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	o := launchIn(t, l, ws, "true")
	if o.code != 0 {
		t.Fatal(o.stderr)
	}
	if q, err := l.AfterCommand(); len(q) > 0 || err != nil {
		t.Fatalf("quarantined %q after an idle command: %v", q, err)
	}

	// The host, between commands.
	repoAt(t, filepath.Join(ws, "later"))
	mustWrite(t, filepath.Join(ws, "later/.git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n", 0o755)
	mustWrite(t, filepath.Join(ws, ".claude/settings.json"), "{}\n", 0o644)
	before := snapshot(t, filepath.Join(ws, "later/.git"), filepath.Join(ws, ".claude"))
	for _, script := range []string{
		"echo pwned >> later/.git/hooks/pre-commit",
		"echo pwned > later/.git/hooks/post-checkout",
		"echo '[core]' >> later/.git/config",
		"echo pwned > .claude/settings.json",
		"mv later/.git later/.git-old",
		"mv later later2",
	} {
		o := launchIn(t, l, ws, script)
		if o.code == 0 {
			t.Errorf("%q succeeded", script)
		}
		q, err := l.AfterCommand()
		if len(q) > 0 || err != nil {
			t.Errorf("%q: quarantined %q: %v", script, q, err)
		}
	}
	after := snapshot(t, filepath.Join(ws, "later/.git"), filepath.Join(ws, ".claude"))
	for p, v := range before {
		if after[p] != v && !strings.Contains(p, "/logs/") && !strings.HasSuffix(p, "/index") {
			t.Errorf("%s changed: %q -> %q", p, v, after[p])
		}
	}

	// A process left running writes commondir after its command ended.
	o = launchIn(t, l, ws, "setsid nohup sh -c 'sleep 0.3; echo \"$PWD/evil\" > .git/commondir' >/dev/null 2>&1 & echo started")
	if o.stdout != "started\n" {
		t.Fatalf("%q %s", o.stdout, o.stderr)
	}
	q, err := l.AfterCommand()
	if len(q) > 0 || err != nil {
		t.Fatalf("quarantined %q before the write: %v", q, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(ws, ".git/commondir")); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the writer has exited: nothing is alive now
	o = launchIn(t, l, ws, "test -e .git/commondir && echo present; true")
	if o.stdout != "" {
		t.Errorf("commondir written by a left-over process survived into the next command: %q", o.stdout)
	}
	q, err = l.AfterCommand()
	if err != nil || len(q) != 1 || q[0] != ".git/commondir" {
		t.Errorf("quarantined %q, want .git/commondir: %v", q, err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/commondir")); err == nil {
		t.Error(".git/commondir is still there")
	}
}

// everydayGit is ordinary git work: add, commit, branch, checkout,
// stash, rebase. It prints the commit count of main and topic.
const everydayGit = `set -e
base=$(git symbolic-ref --short HEAD)
echo a > f && git add f && git commit -qm a
git checkout -qb topic && echo t > t && git add t && git commit -qm t
git checkout -q "$base"
echo b >> f && git commit -qam b
echo wip >> f && git stash -q && git stash pop -q && git checkout -q -- f
git checkout -q topic && git rebase -q "$base" >/dev/null
git branch -q gone && git branch -qD gone
git rev-list --count HEAD`

// TestGitEverydayWork: everyday git work succeeds inside the sandbox, in
// a repository the host made (its config and hooks read-only) and, with a
// launcher, in one an earlier command made (its config quarantined
// since), both ways of starting.
func TestGitEverydayWork(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) {
			ws := t.TempDir()
			repoAt(t, ws)
			o := runVia(t, mode, Config{Workspace: ws}, everydayGit, gitEnv...)
			if o.code != 0 || o.stdout != "4\n" {
				t.Fatalf("exit %d %q %s", o.code, o.stdout, o.stderr)
			}
		})
	}
	ws := t.TempDir()
	l, err := NewLauncher(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	o := launchIn(t, l, ws, "git init -q -b main . && git commit -q --allow-empty -m first", gitEnv...)
	if o.code != 0 {
		t.Fatal(o.stderr)
	}
	if q, err := l.AfterCommand(); err != nil || !slices.Contains(q, ".git/config") {
		t.Fatalf("quarantined %q: %v", q, err)
	}
	o = launchIn(t, l, ws, everydayGit, gitEnv...)
	if o.code != 0 || o.stdout != "4\n" {
		t.Fatalf("in a repository an earlier command made: exit %d %q %s", o.code, o.stdout, o.stderr)
	}
}
