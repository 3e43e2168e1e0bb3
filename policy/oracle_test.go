//go:build linux

package policy

// The bash oracle: the analyser says which commands a command line runs;
// real bash, run where nothing real can be executed, says which ones it
// actually reached. The two must agree: every program bash executed or
// tried to run, and every command its DEBUG trap saw, must be one the
// analyser judged, unless the analyser denied the command or asked about
// something only known at run time.
//
// Each case runs in a throwaway root made for the oracle: a tmpfs holding a
// copy of bash and its libraries, a /usr/bin whose every entry (one for each
// name on the host's PATH and each word of the corpus) is a recorder, and a
// few real wrappers (env, nice, ...) that only start other programs. No host
// program is reachable, so rm -rf / records "rm" and does nothing. The root
// lives in private mount, PID, network, IPC and UTS namespaces whose init is
// this test binary (made in a user namespace when the test is not root);
// bash runs in it as nobody, with CPU, process, file-size and memory limits
// and a wall-clock timeout, and every process left over from a case is
// killed before the next one starts.

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

const oracleInitEnv = "SHELLCAP_POLICY_ORACLE_INIT"

// TestMain lets the test binary serve as the oracle's init process.
func TestMain(m *testing.M) {
	if os.Getenv(oracleInitEnv) != "" {
		oracleInit()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// oracleConfig is the first message from the test to an oracle init.
type oracleConfig struct {
	Root  string   // an empty directory to mount the root on
	Bash  string   // the host's bash
	Names []string // names to give a recorder in /usr/bin
	Pass  []string // host paths of wrappers that really run (env, nice, ...)
	// User reports namespaces made without root, in a user namespace: no
	// device nodes can be made and no other user can be switched to.
	User bool
}

type oracleRequest struct {
	Command string
	Timeout time.Duration
}

// oracleResult is what bash reached for one command.
type oracleResult struct {
	Err      string   `json:",omitempty"`
	Execs    []string `json:",omitempty"` // base names of the programs executed, or looked up and not found
	Reached  []string `json:",omitempty"` // the commands the DEBUG trap saw ($BASH_COMMAND)
	TimedOut bool     `json:",omitempty"`
	// Truncated reports a log too long to read whole (a loop that ran
	// distinct commands until the timeout).
	Truncated bool   `json:",omitempty"`
	Stderr    string `json:",omitempty"`
}

// oracleShells are the shells whose recorder runs the oracle's bash, so that
// the code they are given is observed too.
var oracleShells = []string{"bash", "sh", "dash", "ash", "rbash"}

// oraclePass are the wrappers copied from the host that really run: they
// only start the program they are given (which is a recorder, or a shell).
var oraclePass = []string{"env", "nice", "nohup", "timeout", "xargs", "setsid"}

const oraclePrelude = `set -T
command_not_found_handle() { __ORACLE=1 builtin printf 'N %s\n' "${1@Q}" >>/.oracle/log; __ORACLE=127; builtin return $__ORACLE; }
trap 'builtin printf "D %s\n" "${BASH_COMMAND@Q}" >>/.oracle/log' DEBUG
if [[ -n ${__ORACLE_BE-} ]]; then __ORACLE=1 export BASH_ENV=$__ORACLE_BE; __ORACLE=1 builtin . "$__ORACLE_BE"; else __ORACLE=1 builtin unset BASH_ENV; fi
__ORACLE=1 builtin unset __ORACLE_BE
`

// The recorder logs the program it stands for and exits 0; for a shell it
// then runs the oracle's bash with the prelude, keeping a BASH_ENV the
// command set; for a real wrapper it runs the wrapper. Read as a script
// (bash finds "sh 0" on the PATH), it fails as a binary would.
const oracleRecorder = `#!/.oracle/bash -p
[[ $- == *p* ]] || { __ORACLE=1 builtin trap - DEBUG; __ORACLE=126; builtin return $__ORACLE 2>/dev/null || builtin exit $__ORACLE; }
n=${0##*/}
l="X ${n@Q}"
for a in "$@"; do l+=" ${a@Q}"; done
builtin printf '%s\n' "$l" >>/.oracle/log
case $n in
` + "SHELLS) export __ORACLE_BE=${BASH_ENV-} BASH_ENV=/.oracle/prelude; exec -a bash /.oracle/bash \"$@\";;\nPASS) exec \"/.oracle/pass/$n\" \"$@\";;\n" + `esac
exit 0
`

const oracleWrapper = `ulimit -t 4 -u 512 -f 16384 -v 1000000 2>/dev/null
__ORACLE_BE= BASH_ENV=/.oracle/prelude exec -a bash /.oracle/bash -c "$1"`

// oracleInit runs as PID 1 of the oracle's namespaces.
func oracleInit() {
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	var cfg oracleConfig
	if err := dec.Decode(&cfg); err != nil {
		os.Exit(2)
	}
	if err := oracleSetup(cfg); err != nil {
		enc.Encode(oracleResult{Err: err.Error()})
		os.Exit(1)
	}
	enc.Encode(oracleResult{})
	for {
		var req oracleRequest
		if err := dec.Decode(&req); err != nil {
			return
		}
		enc.Encode(oracleCase(cfg, req))
	}
}

func oracleSetup(cfg oracleConfig) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	root := cfg.Root
	if err := syscall.Mount("tmpfs", root, "tmpfs", syscall.MS_NOSUID, "size=256m,mode=0755"); err != nil {
		return fmt.Errorf("mounting the root: %w", err)
	}
	for _, d := range []string{"usr/bin", "usr/local/bin", "usr/local/sbin", ".oracle/pass", "work", "dev", "proc", "etc"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "tmp"), 0o1777); err != nil {
		return err
	}
	os.Chmod(filepath.Join(root, "tmp"), 0o1777)
	for link, target := range map[string]string{"bin": "usr/bin", "sbin": "usr/bin", "usr/sbin": "bin",
		"dev/fd": "/proc/self/fd", "dev/stdin": "/proc/self/fd/0", "dev/stdout": "/proc/self/fd/1", "dev/stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			return err
		}
	}
	for name, minor := range map[string]int{"null": 3, "zero": 5} {
		p := filepath.Join(root, "dev", name)
		if cfg.User {
			if err := os.WriteFile(p, nil, 0o666); err != nil {
				return err
			}
			if err := syscall.Mount("/dev/"+name, p, "", syscall.MS_BIND, ""); err != nil {
				return fmt.Errorf("binding %s: %w", p, err)
			}
			continue
		}
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
			return fmt.Errorf("making %s: %w", p, err)
		}
		os.Chmod(p, 0o666)
	}
	if err := syscall.Mount("proc", filepath.Join(root, "proc"), "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting proc: %w", err)
	}
	os.WriteFile(filepath.Join(root, "etc/passwd"), []byte("root:x:0:0::/root:/bin/bash\nnobody:x:65534:65534::/work:/bin/bash\n"), 0o644)
	if err := copyELF(root, cfg.Bash, "/.oracle/bash"); err != nil {
		return err
	}
	var pass []string
	for _, p := range cfg.Pass {
		name := filepath.Base(p)
		if err := copyELF(root, p, "/.oracle/pass/"+name); err == nil {
			pass = append(pass, name)
		}
	}
	rec := strings.Replace(oracleRecorder, "SHELLS", strings.Join(oracleShells, "|"), 1)
	passPattern := "__none__"
	if len(pass) > 0 {
		passPattern = strings.Join(pass, "|")
	}
	rec = strings.Replace(rec, "PASS", passPattern, 1)
	for name, text := range map[string]string{".oracle/rec": rec, ".oracle/prelude": oraclePrelude} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o755); err != nil {
			return err
		}
	}
	for _, n := range cfg.Names {
		os.Symlink("/.oracle/rec", filepath.Join(root, "usr/bin", n))
	}
	for _, n := range oracleShells {
		os.Symlink("/.oracle/rec", filepath.Join(root, "usr/bin", n))
	}
	return nil
}

// copyELF copies an executable and the shared libraries it needs into root.
func copyELF(root, host, dest string) error {
	seen := map[string]bool{}
	var copyOne func(host, dest string) error
	copyOne = func(host, dest string) error {
		if seen[dest] {
			return nil
		}
		seen[dest] = true
		data, err := os.ReadFile(host)
		if err != nil {
			return err
		}
		out := filepath.Join(root, dest)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, data, 0o755); err != nil {
			return err
		}
		f, err := elf.Open(host)
		if err != nil {
			return err
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				b := make([]byte, p.Filesz)
				p.ReadAt(b, 0)
				interp := strings.TrimRight(string(b), "\x00")
				if err := copyOne(interp, interp); err != nil {
					return err
				}
			}
		}
		libs, _ := f.ImportedLibraries()
		for _, lib := range libs {
			found := false
			dirs, _ := filepath.Glob("/lib/*-linux-gnu")
			dirs = append(dirs, "/lib64", "/usr/lib64", "/lib", "/usr/lib")
			for _, d := range dirs {
				p := filepath.Join(d, lib)
				if _, err := os.Stat(p); err == nil {
					if err := copyOne(p, p); err != nil {
						return err
					}
					found = true
					break
				}
			}
			if !found {
				return fmt.Errorf("%s needs %s, which is not found", host, lib)
			}
		}
		return nil
	}
	return copyOne(host, dest)
}

// oracleCase runs one command in a clean work directory and returns what
// bash reached.
func oracleCase(cfg oracleConfig, req oracleRequest) oracleResult {
	root := cfg.Root
	var res oracleResult
	for _, d := range []string{"work", "tmp"} {
		p := filepath.Join(root, d)
		os.RemoveAll(p)
		os.Mkdir(p, 0o755)
		os.Chown(p, 65534, 65534)
	}
	os.Chmod(filepath.Join(root, "tmp"), 0o1777)
	logPath, errPath := filepath.Join(root, ".oracle/log"), filepath.Join(root, ".oracle/err")
	for _, p := range []string{logPath, errPath} {
		os.WriteFile(p, nil, 0o666)
		os.Chmod(p, 0o666)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return oracleResult{Err: err.Error()}
	}
	defer devnull.Close()
	errFile, err := os.OpenFile(errPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return oracleResult{Err: err.Error()}
	}
	sys := &syscall.SysProcAttr{Chroot: root, Setpgid: true,
		Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	wrapper := oracleWrapper
	if cfg.User {
		// Only one user is mapped: bash runs as it. The process limit
		// would count the user's processes outside too, so it is left out.
		sys.Credential = nil
		wrapper = strings.Replace(wrapper, " -u 512", "", 1)
	}
	pid, err := syscall.ForkExec("/.oracle/bash", []string{"bash", "-c", wrapper, "bash", req.Command}, &syscall.ProcAttr{
		Dir:   "/work",
		Env:   []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/work", "LC_ALL=C", "USER=nobody"},
		Files: []uintptr{devnull.Fd(), devnull.Fd(), errFile.Fd()},
		Sys:   sys,
	})
	errFile.Close()
	if err != nil {
		return oracleResult{Err: "starting bash: " + err.Error()}
	}
	deadline := time.Now().Add(req.Timeout)
	var grace time.Time // after bash exits, how long stragglers may finish
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.ECHILD) {
			break
		}
		if p == pid {
			grace = time.Now().Add(100 * time.Millisecond)
		}
		if p > 0 {
			continue
		}
		now := time.Now()
		if now.After(deadline) && grace.IsZero() {
			res.TimedOut = true
			syscall.Kill(-1, syscall.SIGKILL)
			deadline = now.Add(time.Hour)
		}
		if !grace.IsZero() && now.After(grace) {
			syscall.Kill(-1, syscall.SIGKILL)
		}
		time.Sleep(200 * time.Microsecond)
	}
	if b, err := os.ReadFile(errPath); err == nil {
		res.Stderr = string(b[:min(len(b), 2048)])
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	// An endless loop logs the same few lines for as long as it runs:
	// each distinct line is decoded once.
	seen := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if seen[line] {
			continue
		}
		if len(seen) >= 20000 {
			res.Truncated = true
			break
		}
		seen[line] = true
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "X", "N":
			words := bashWords(rest)
			if len(words) > 0 {
				res.Execs = append(res.Execs, words[0])
			}
		case "D":
			if words := bashWords(rest); len(words) == 1 && !strings.Contains(words[0], "__ORACLE") && !strings.Contains(words[0], "/.oracle/") {
				res.Reached = append(res.Reached, words[0])
			}
		}
	}
	return res
}

// bashWords decodes words quoted by bash's ${x@Q}.
func bashWords(s string) []string {
	f, err := syntax.NewParser().Parse(strings.NewReader(": "+s), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	var out []string
	for _, w := range call.Args[1:] {
		v, ok := literalWord(w)
		if !ok {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// literalWord returns the value of a word made only of literal parts.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			var skel strings.Builder
			v, glob := unescapeUnquoted(x.Value, &skel)
			if glob {
				return "", false
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(decodeANSIC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range x.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// commandName returns the name of the simple command in text (a
// $BASH_COMMAND), when its command word is literal.
func commandName(text string) (string, bool) {
	// bash's internal text escapes its own quoting bytes, \x01 and \x7f,
	// with \x01.
	text = strings.NewReplacer("\x01\x01", "\x01", "\x01\x7f", "\x7f").Replace(text)
	f, err := syntax.NewParser().Parse(strings.NewReader(text), "")
	if err != nil || len(f.Stmts) == 0 {
		return "", false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	name, ok := literalWord(call.Args[0])
	if !ok || name == "" {
		return "", false
	}
	return baseName(name), true
}

// oracle is one running oracle init.
type oracle struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	dec *json.Decoder
}

// oracleAvailable reports why the oracle cannot run here, or "".
func oracleUnavailable() string {
	if runtime.GOOS != "linux" {
		return "the oracle needs Linux namespaces"
	}
	if _, err := exec.LookPath("bash"); err != nil {
		return "bash is not installed"
	}
	return ""
}

// requireOracle skips the test when the oracle cannot run, except under CI.
func requireOracle(tb testing.TB) {
	tb.Helper()
	if why := oracleUnavailable(); why != "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("bash oracle: %s (required under CI)", why)
		}
		tb.Skipf("bash oracle: %s", why)
	}
}

func startOracle(tb testing.TB, names []string) *oracle {
	tb.Helper()
	o, err := newOracle(tb.TempDir(), names)
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("bash oracle: %v", err)
		}
		tb.Skipf("bash oracle: %v", err)
	}
	tb.Cleanup(o.close)
	return o
}

// newOracle starts an oracle init whose root is mounted on root, an empty
// directory.
func newOracle(root string, names []string) (*oracle, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, err
	}
	bash, _ = filepath.EvalSymlinks(bash)
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cfg := oracleConfig{Root: root, Bash: bash, Names: names}
	for _, p := range oraclePass {
		if host, err := exec.LookPath(p); err == nil {
			if host, err = filepath.EvalSymlinks(host); err == nil {
				cfg.Pass = append(cfg.Pass, host)
			}
		}
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), oracleInitEnv+"=1")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
		Pdeathsig:  syscall.SIGKILL,
	}
	if os.Geteuid() != 0 {
		// Without root, a user namespace gives the init the rights it
		// needs inside its namespaces and nowhere else.
		cfg.User = true
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	o := &oracle{cmd: cmd, in: in, dec: json.NewDecoder(bufio.NewReader(out))}
	if err := json.NewEncoder(in).Encode(cfg); err != nil {
		o.close()
		return nil, err
	}
	var ready oracleResult
	if err := o.dec.Decode(&ready); err != nil || ready.Err != "" {
		o.close()
		return nil, fmt.Errorf("setting up: %v %s", err, ready.Err)
	}
	return o, nil
}

// close ends the oracle init, and with it every process of its namespace.
func (o *oracle) close() {
	o.in.Close()
	done := make(chan struct{})
	go func() { o.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		o.cmd.Process.Kill()
		<-done
	}
}

// run runs one command under the oracle.
func (o *oracle) run(command string) (oracleResult, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := json.NewEncoder(o.in).Encode(oracleRequest{Command: command, Timeout: 1500 * time.Millisecond}); err != nil {
		return oracleResult{}, err
	}
	var res oracleResult
	if err := o.dec.Decode(&res); err != nil {
		return oracleResult{}, err
	}
	if res.Err != "" {
		return res, errors.New(res.Err)
	}
	return res, nil
}

// oracleNames returns the names that get a recorder: every program on the
// host's PATH and every word of the commands.
func oracleNames(commands []string) []string {
	set := map[string]bool{}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			set[e.Name()] = true
		}
	}
	for _, c := range commands {
		for _, w := range strings.FieldsFunc(c, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r))
		}) {
			set[w] = true
		}
	}
	var out []string
	for n := range set {
		if n != "" && n != "." && n != ".." && len(n) < 200 && !strings.ContainsAny(n, "/\x00") && !slices.Contains(oracleShells, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// judged is what the analyser saw in one check.
type judged struct {
	names   map[string]bool
	runtime bool // something was only known at run time
}

func judgedBy(p *Policy, command string) (Decision, judged) {
	j := judged{names: map[string]bool{}}
	d := p.check(command, func(name string, dynamic bool) {
		if dynamic {
			j.runtime = true
		} else {
			j.names[name] = true
		}
	})
	return d, j
}

// unseen returns what bash reached that the analyser did not judge, when
// the analyser's verdict lets it matter: every verdict but Deny, and not an
// Ask about something only known at run time.
func unseen(d Decision, j judged, r oracleResult) []string {
	if d.Verdict == Deny || d.Verdict == Ask && j.runtime {
		return nil
	}
	var out []string
	for _, name := range r.Execs {
		if n := baseName(name); !j.names[n] {
			out = append(out, "executed "+pyRepr(n))
		}
	}
	for _, text := range r.Reached {
		if n, ok := commandName(text); ok && !j.names[n] {
			out = append(out, "reached "+pyRepr(short(text)))
		}
	}
	return out
}

type oracleCaseInput struct {
	where   string
	ruleset string
	command string
}

// runOracle checks every case against the oracle, on a few oracles in
// parallel, and reports each disagreement.
func runOracle(t *testing.T, cases []oracleCaseInput) (ran, timedOut, denied, reachedDenied int) {
	t.Helper()
	var commands []string
	for _, c := range cases {
		commands = append(commands, c.command)
	}
	names := oracleNames(commands)
	policies := corpusPolicies(t)
	workers := min(max(runtime.GOMAXPROCS(0), 1), 4)
	oracles := make([]*oracle, workers)
	for i := range oracles {
		oracles[i] = startOracle(t, names)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan oracleCaseInput)
	for _, o := range oracles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				d, j := judgedBy(policies[c.ruleset], c.command)
				res, err := o.run(c.command)
				mu.Lock()
				ran++
				if res.TimedOut {
					timedOut++
					if testing.Verbose() {
						t.Logf("%s: timed out: %q", c.where, c.command)
					}
				}
				if err != nil {
					t.Errorf("%s: oracle: %v", c.where, err)
				} else if miss := unseen(d, j, res); len(miss) > 0 {
					t.Errorf("%s [%s] %q: the policy says %s, but bash %s", c.where, c.ruleset, c.command, d, strings.Join(miss, ", "))
				}
				if c.ruleset == "default" && d.Verdict == Deny {
					denied++
					if reachesDenied(res) {
						reachedDenied++
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, c := range cases {
		if strings.IndexByte(c.command, 0) >= 0 {
			continue // a NUL byte cannot be passed to bash
		}
		next <- c
	}
	close(next)
	wg.Wait()
	return ran, timedOut, denied, reachedDenied
}

// reachesDenied reports whether bash reached a program of the default deny
// list: the denial stopped a command that would have run.
func reachesDenied(r oracleResult) bool {
	for _, n := range r.Execs {
		if defaultPolicy.isDenied(baseName(n)) {
			return true
		}
	}
	for _, text := range r.Reached {
		if n, ok := commandName(text); ok && defaultPolicy.isDenied(n) {
			return true
		}
	}
	return false
}

// TestOracleCorpus runs every corpus case through real bash and checks
// that the analyser judged every command bash reached.
func TestOracleCorpus(t *testing.T) {
	requireOracle(t)
	var cases []oracleCaseInput
	for _, c := range readCorpora(t, "testdata/bypass*.txt", true) {
		cases = append(cases, oracleCaseInput{fmt.Sprintf("%s:%d", c.file, c.line), c.ruleset, c.command})
	}
	for _, c := range readCorpora(t, "testdata/everyday*.txt", false) {
		cases = append(cases, oracleCaseInput{fmt.Sprintf("%s:%d", c.file, c.line), c.ruleset, c.command})
	}
	start := time.Now()
	ran, timedOut, denied, reached := runOracle(t, cases)
	t.Logf("%d cases through the bash oracle in %v (%d timed out); of the %d the default rules deny, bash reached a denied program in %d",
		ran, time.Since(start).Round(time.Millisecond), timedOut, denied, reached)
}

// TestOracleCalibration checks the oracle itself: commands it must see run,
// and commands it must not see.
func TestOracleCalibration(t *testing.T) {
	requireOracle(t)
	o := startOracle(t, oracleNames([]string{"rm ls git"}))
	for _, tt := range []struct {
		cmd   string
		execs []string
	}{
		{"rm -rf /", []string{"rm"}},
		{"/bin/rm -rf /; /usr/bin/ls", []string{"rm", "ls"}},
		{"echo '$(rm x)'", nil},
		{"echo \"${x:-'$(rm x)'}\"", []string{"rm"}},
		{"ls # \\\nrm x", []string{"ls", "rm"}},
		{"bash -c 'git status'", []string{"bash", "git"}},
		{"env FOO=1 rm x", []string{"env", "rm"}},
		{"BASH_CMDS[ls]=/bin/rm; ls", []string{"rm"}},
		{"nosuchprogram x", []string{"nosuchprogram"}},
		{"sleep 100 & rm x", []string{"sleep", "rm"}},
	} {
		res, err := o.run(tt.cmd)
		if err != nil {
			t.Fatalf("%q: %v", tt.cmd, err)
		}
		got := slices.Clone(res.Execs)
		sort.Strings(got)
		want := slices.Clone(tt.execs)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: bash executed %q, want %q (stderr %q)", tt.cmd, res.Execs, tt.execs, res.Stderr)
		}
	}
	// The oracle's root holds nothing of the host: a real program outside
	// it cannot be reached by its path.
	res, err := o.run("/usr/local/go/bin/go version; /proc/1/root/usr/bin/rm x; cat /etc/hostname")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Execs, "go") {
		t.Errorf("the oracle ran a host program: %+v", res)
	}
	// A command that never ends is cut off.
	start := time.Now()
	res, err = o.run("while :; do :; done")
	if err != nil || !res.TimedOut {
		t.Errorf("endless loop: %+v %v after %v", res, err, time.Since(start))
	}
}

// TestOracleProbe is a debugging aid that prints what the analyser and bash
// make of commands:
//
//	POLICY_PROBE='ls # \
//	rm x' go test -v -run TestOracleProbe ./policy
func TestOracleProbe(t *testing.T) {
	cmds := os.Getenv("POLICY_PROBE")
	if cmds == "" {
		t.Skip("set POLICY_PROBE to commands separated by lines of ---")
	}
	requireOracle(t)
	list := strings.Split(cmds, "\n---\n")
	o := startOracle(t, oracleNames(list))
	rs := os.Getenv("POLICY_RULES")
	if rs == "" {
		rs = "default"
	}
	p := corpusPolicies(t)[rs]
	for _, cmd := range list {
		d, j := judgedBy(p, cmd)
		res, err := o.run(cmd)
		fmt.Printf("%q\n\tpolicy: %s\n\tjudged: %v runtime=%v\n\tbash executed %q\n\treached %q\n\tunseen %q\n\tstderr %q\n",
			cmd, d, slices.Sorted(maps.Keys(j.names)), j.runtime, res.Execs, res.Reached, unseen(d, j, res), res.Stderr)
		if err != nil {
			fmt.Println("\terror:", err)
		}
	}
}
