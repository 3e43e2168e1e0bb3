package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/container"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/sandbox"
)

// A Note says what [Tighten] did with one key of an untrusted layer.
type Note struct {
	// Key is the key path, such as "policy.denied_commands".
	Key string
	// Accepted reports whether the layer's value (or, for the deny lists,
	// its additions) was kept.
	Accepted bool
	// Msg says why a value was refused, or how it was merged.
	Msg string
}

// String returns "KEY: MESSAGE".
func (n Note) String() string { return n.Key + ": " + n.Msg }

// Tighten returns the part of untrusted, a configuration file the user has
// not trusted (one found in the workspace or the current directory), that
// only makes the configuration base stricter, and a note for every key it
// refused or merged. base is the merge of the layers the user controls
// (their configuration file, the SHELLCAP_* environment, the flags); the
// result is meant to be merged above base's file layer and below the
// environment and the flags, so those still override it.
//
// "Stricter" is decided key by key against base's effective value (the
// value base sets, else the library's default), as the package
// documentation's table says: lower limits and shorter timeouts, more
// denials (merged into the lower layers' lists, never replacing them),
// fewer tools, commands, variables and hosts, a stricter sandbox, network
// and approval mode. A value equal to the effective one is accepted. A key
// whose values cannot be ordered (the workspace, the shell, env, the
// server's address and token, ...) is refused, and so is every key the
// table does not name: a new key is refused until it is classified.
func Tighten(base, untrusted *File) (*File, []Note) {
	out := &File{}
	var notes []Note
	for i := range fields {
		fd := &fields[i]
		if !isSet(fd.value(untrusted)) {
			continue
		}
		rule, ok := tightenRules[fd.key]
		if !ok {
			rule = refuse("not classified as tightening or loosening")
		}
		n := rule(base, untrusted, out, fd)
		n.Key = fd.key
		notes = append(notes, n)
	}
	return out, notes
}

// A tightenRule judges one key: it copies what it accepts from the
// untrusted layer u into out and says what it did.
type tightenRule func(base, u, out *File, fd *field) Note

// tightenRules classifies every key. TestTightenRulesCoverEveryKey keeps
// it complete.
var tightenRules = map[string]tightenRule{
	"workspace":            refuse("a workspace file cannot choose the workspace"),
	"read_only":            onlyBool(true, false),
	"shell":                refuse("a workspace file cannot choose the program that runs commands"),
	"default_timeout":      lowerDuration(shellcap.DefaultTimeout),
	"max_timeout":          lowerDuration(shellcap.DefaultMaxTimeout),
	"kill_grace":           lowerDuration(shellcap.DefaultKillGrace),
	"max_output_bytes":     lowerCap(shellcap.DefaultMaxOutputBytes),
	"max_output_chars":     lowerCap(shellcap.DefaultMaxOutputChars),
	"head_and_tail":        refuse("a presentation setting, neither stricter nor looser"),
	"stdout_head_chars":    refuse("a presentation setting, neither stricter nor looser"),
	"stdout_tail_chars":    refuse("a presentation setting, neither stricter nor looser"),
	"stderr_head_chars":    refuse("a presentation setting, neither stricter nor looser"),
	"stderr_tail_chars":    refuse("a presentation setting, neither stricter nor looser"),
	"keep_ansi":            onlyBool(false, false),
	"disable_output_files": onlyBool(true, false),
	"output_retention":     lowerDuration(shellcap.DefaultOutputRetention),
	"max_file_bytes":       lowerLimit(),
	"memory_limit":         lowerLimit(),
	"cpu_time":             lowerLimit(),
	"max_processes":        lowerLimit(),
	"env":                  refuse("added variables (PATH, LD_PRELOAD, ...) change what commands run"),
	"pass_env":             subset(nil, "passes more host variables to commands"),
	"denied_env_patterns":  union(func(*File) []string { return nil }),
	"persist_cwd":          refuse("neither stricter nor looser"),
	"policy.allowed_commands": func(base, u, out *File, fd *field) Note {
		if len(base.Policy.AllowedCommands) == 0 {
			return Note{Msg: "refused: an allow list replaces the deny list, so it can let a denied command through; narrow an allow list the user set instead"}
		}
		return subset(nil, "allows commands the user's allow list does not")(base, u, out, fd)
	},
	"policy.denied_commands": func(base, u, out *File, fd *field) Note {
		if len(base.Policy.AllowedCommands) > 0 {
			return Note{Msg: "refused: the configuration has an allow list (policy.allowed_commands), which a deny list cannot join"}
		}
		return union(func(b *File) []string {
			if b.Policy.DeniedCommands == nil {
				return policy.DefaultDeniedCommands()
			}
			return b.Policy.DeniedCommands
		})(base, u, out, fd)
	},
	"policy.denied_operators":      union(func(*File) []string { return nil }),
	"policy.allow_interactive":     onlyBool(false, false),
	"policy.deny_patterns":         union(func(*File) []string { return nil }),
	"policy.allow_patterns":        allowPatterns,
	"policy.approval":              onlyBool(true, false),
	"approval_mode":                ordered(func(f *File) any { return deref(f.ApprovalMode) }, shellcap.ApproveNone, shellcap.ApproveAsk, shellcap.ApproveAll),
	"acknowledge_unsafe":           onlyBool(false, false),
	"tools":                        subset(ToolNames, "offers tools the user's configuration does not"),
	"sandbox":                      ordered(func(f *File) any { return effectiveSandbox(f) }, "full-access", "workspace-write", "read-only"),
	"sandbox_network":              sandboxNetwork,
	"sandbox_allow":                sandboxAllow,
	"sandbox_read_everything":      onlyBool(false, false),
	"sandbox_process_limit":        lowerCap(sandbox.DefaultProcessLimit),
	"sandbox_tmp_size":             lowerCap(sandbox.DefaultTmpSize),
	"sandbox_proxy_max_conns":      lowerCap(sandbox.DefaultProxyConns),
	"sandbox_proxy_idle_timeout":   lowerDuration(sandbox.DefaultProxyIdle),
	"die_with_process":             onlyBool(true, false),
	"executor":                     refuse("a workspace file cannot choose what runs commands"),
	"session.start_in_root":        refuse("neither stricter nor looser"),
	"session.default_timeout":      lowerDurationOr("default_timeout", shellcap.DefaultTimeout),
	"session.max_timeout":          lowerDurationOr("max_timeout", shellcap.DefaultMaxTimeout),
	"session.interrupt_grace":      lowerDurationOr("kill_grace", shellcap.DefaultKillGrace),
	"session.max_output_bytes":     lowerCapOr("max_output_bytes", shellcap.DefaultMaxOutputBytes),
	"session.max_output_chars":     lowerCapOr("max_output_chars", shellcap.DefaultMaxOutputChars),
	"session.keep_ansi":            onlyBool(false, false),
	"session.head_and_tail":        refuse("a presentation setting, neither stricter nor looser"),
	"session.soft_timeout":         refuse("neither stricter nor looser: it changes when a command becomes a job"),
	"jobs.max_jobs":                lowerCap(jobs.DefaultMaxJobs),
	"jobs.retention":               lowerDuration(jobs.DefaultRetention),
	"jobs.kill_grace":              lowerDurationOr("kill_grace", shellcap.DefaultKillGrace),
	"jobs.max_log_bytes":           lowerCap(jobs.DefaultMaxLogBytes),
	"jobs.max_output_chars":        lowerCapOr("max_output_chars", shellcap.DefaultMaxOutputChars),
	"jobs.keep_ansi":               onlyBool(false, false),
	"jobs.stop_on_close":           onlyBool(true, false),
	"jobs.key_dir":                 refuse("a workspace file cannot choose where the job signing key is kept"),
	"container.image":              refuse("a workspace file cannot choose the image commands run in"),
	"container.rootfs":             refuse("a workspace file cannot choose the root filesystem commands run in"),
	"container.runtime":            refuse("a workspace file cannot choose the program that runs containers"),
	"container.engine_args":        refuse("a workspace file cannot choose how the container engine runs"),
	"container.mode":               ordered(func(f *File) any { return effectiveMode(f) }, "persistent", "stateless"),
	"container.writable_workspace": onlyBool(false, false),
	"container.shell":              refuse("a workspace file cannot choose the program that runs commands"),
	"container.memory":             lowerCap(container.DefaultMemory),
	"container.pids":               lowerCap(container.DefaultPids),
	"container.tmpfs_size":         lowerCap(container.DefaultTmpfsSize),
	"container.nofile":             lowerCap(container.DefaultNoFile),
	"container.nproc":              lowerCap(container.DefaultNProc),
	"container.engine_timeout":     lowerDuration(defaultEngineTimeout),
	"server.foreground_timeout":    refuse("neither stricter nor looser"),
	"server.addr":                  refuse("a workspace file cannot choose where the server listens"),
	"server.token":                 refuse("a workspace file cannot choose the server's token"),
	"server.allowed_origins":       subsetOfSet("lets more browser origins reach the server"),
	"server.max_body_bytes":        lowerCap(defaultMaxBodyBytes),
	"server.session_idle_timeout":  lowerDuration(defaultSessionIdle),
	"server.max_sessions":          lowerThanSet(),
	"server.share_jobs":            onlyBool(false, false),
	"server.token_file":            refuse("a workspace file cannot choose the server's token"),
	"server.probe_tools":           subset(envprobe.DefaultTools, "runs programs the user's configuration does not probe"),
	"server.probe_timeout":         lowerDuration(envprobe.DefaultTimeout),
}

// The MCP server's defaults for its HTTP settings (mcpserver.HTTPOptions).
const (
	defaultMaxBodyBytes = 4 << 20
	defaultSessionIdle  = 30 * time.Minute
)

// defaultEngineTimeout is container.Options.EngineTimeout's default.
const defaultEngineTimeout = 60 * time.Second

// effectiveMode is the container mode a configuration asks for; unset
// and "" are stateless.
func effectiveMode(f *File) string {
	if f.Container.Mode == nil || *f.Container.Mode == "" {
		return "stateless"
	}
	return *f.Container.Mode
}

// inheritedInt is the value base gives the key parent when it sets a
// positive one (for a setting that inherits the Shell's when zero), else
// def.
func inheritedInt(base *File, parent string, def int64) int64 {
	if v := fieldByKey(parent).value(base); isSet(v) && v.Elem().Int() > 0 {
		return v.Elem().Int()
	}
	return def
}

// lowerDurationOr is lowerDuration for a setting that inherits the value
// of the key parent when unset or zero.
func lowerDurationOr(parent string, def time.Duration) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		return lowerDuration(time.Duration(inheritedInt(base, parent, int64(def))))(base, u, out, fd)
	}
}

// lowerCapOr is lowerCap for a cap that inherits the key parent's when
// unset or zero (a negative parent means no cap).
func lowerCapOr(parent string, def int64) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		if v := fieldByKey(parent).value(base); isSet(v) && v.Elem().Int() < 0 {
			if bv := fd.value(base); !isSet(bv) || bv.Elem().Int() == 0 {
				b := *base // a shallow copy: only the pointer to fd changes
				none := reflect.New(fd.typ.Elem())
				none.Elem().SetInt(-1)
				fd.value(&b).Set(none)
				return lowerCap(def)(&b, u, out, fd)
			}
		}
		return lowerCap(inheritedInt(base, parent, def))(base, u, out, fd)
	}
}

func refuse(why string) tightenRule {
	return func(_, _, _ *File, _ *field) Note { return Note{Msg: "refused: " + why} }
}

// accept copies the untrusted value of fd into out.
func accept(u, out *File, fd *field) Note {
	fd.value(out).Set(fd.value(u))
	return Note{Accepted: true, Msg: "accepted: stricter than, or equal to, the user's configuration"}
}

func refusedValue(v reflect.Value, why string) Note {
	return Note{Msg: fmt.Sprintf("refused %s: %s", show(v), why)}
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Duration:
		return formatDuration(x)
	case shellcap.ApprovalMode:
		return x.String()
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	}
	return fmt.Sprint(v.Interface())
}

// onlyBool accepts strict, the stricter of the two values, and def's
// opposite only when base already has it.
func onlyBool(strict, def bool) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		b := def
		if bv := fd.value(base); isSet(bv) {
			b = bv.Elem().Bool()
		}
		if p := fd.value(u).Elem().Bool(); p == strict || p == b {
			return accept(u, out, fd)
		}
		return refusedValue(fd.value(u), fmt.Sprintf("only %v is stricter", strict))
	}
}

// lowerDuration accepts a positive duration no longer than base's, whose
// zero means def.
func lowerDuration(def time.Duration) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		b := def
		if bv := fd.value(base); isSet(bv) && bv.Elem().Int() > 0 {
			b = time.Duration(bv.Elem().Int())
		}
		p := time.Duration(fd.value(u).Elem().Int())
		if p > 0 && p <= b {
			return accept(u, out, fd)
		}
		return refusedValue(fd.value(u), "longer than "+formatDuration(b)+" (only a shorter one is stricter)")
	}
}

// lowerCap accepts a positive cap no higher than base's, whose zero means
// def and whose negative value means no cap.
func lowerCap(def int64) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		b, none := def, false
		if bv := fd.value(base); isSet(bv) {
			switch n := bv.Elem().Int(); {
			case n < 0:
				none = true
			case n > 0:
				b = n
			}
		}
		p := fd.value(u).Elem().Int()
		if p > 0 && (none || p <= b) {
			return accept(u, out, fd)
		}
		return refusedValue(fd.value(u), fmt.Sprintf("not a cap at or below %d", b))
	}
}

// lowerLimit accepts a positive limit no higher than base's, whose zero
// means no limit.
func lowerLimit() tightenRule {
	return func(base, u, out *File, fd *field) Note {
		var b int64
		if bv := fd.value(base); isSet(bv) {
			b = bv.Elem().Int()
		}
		p := fd.value(u).Elem().Int()
		if p > 0 && (b <= 0 || p <= b) {
			return accept(u, out, fd)
		}
		if p <= 0 {
			return refusedValue(fd.value(u), "zero means no limit")
		}
		return refusedValue(fd.value(u), fmt.Sprintf("higher than %s", show(fd.value(base))))
	}
}

// lowerThanSet accepts a positive value no higher than base's, and
// nothing when base leaves the default to the server (unknown here).
func lowerThanSet() tightenRule {
	return func(base, u, out *File, fd *field) Note {
		bv := fd.value(base)
		p := fd.value(u).Elem().Int()
		if isSet(bv) && p > 0 && p <= bv.Elem().Int() {
			return accept(u, out, fd)
		}
		return refusedValue(fd.value(u), "only a positive value below one the user set is stricter")
	}
}

// union adds the untrusted entries to base's effective list (def gives it
// when base sets none): a workspace file can add denials, never remove
// one. The note names the entries it could not remove.
func union(def func(*File) []string) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		b := fd.value(base).Interface().([]string)
		if b == nil {
			b = def(base)
		}
		p := fd.value(u).Interface().([]string)
		merged := slices.Clone(b)
		if merged == nil {
			merged = []string{}
		}
		var added []string
		for _, s := range p {
			if !slices.Contains(merged, s) {
				merged = append(merged, s)
				added = append(added, s)
			}
		}
		var kept []string
		for _, s := range b {
			if !slices.Contains(p, s) {
				kept = append(kept, s)
			}
		}
		fd.value(out).Set(reflect.ValueOf(merged))
		msg := "added " + show(reflect.ValueOf(added)) + " to the user's list"
		if len(kept) > 0 {
			msg += "; kept " + show(reflect.ValueOf(kept)) + ", which a workspace file cannot remove"
		}
		return Note{Accepted: len(added) > 0, Msg: msg}
	}
}

// subset accepts a list whose entries are all in base's effective list
// (def when base sets none; nil def means an empty list).
func subset(def []string, why string) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		b := fd.value(base).Interface().([]string)
		if b == nil {
			b = def
		}
		p := fd.value(u).Interface().([]string)
		if extra := missingFrom(p, b); len(extra) > 0 {
			return refusedValue(fd.value(u), why+": "+strings.Join(extra, ", "))
		}
		return accept(u, out, fd)
	}
}

// subsetOfSet is subset for a list whose unset value has no list form
// (the server's default origins): it needs base to set the list.
func subsetOfSet(why string) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		if !isSet(fd.value(base)) {
			return refusedValue(fd.value(u), why)
		}
		return subset(nil, why)(base, u, out, fd)
	}
}

func missingFrom(p, b []string) []string {
	var extra []string
	for _, s := range p {
		if !slices.Contains(b, s) {
			extra = append(extra, s)
		}
	}
	return extra
}

// ordered accepts a value at or above base's in order (loosest first).
func ordered(get func(*File) any, order ...any) tightenRule {
	return func(base, u, out *File, fd *field) Note {
		b, p := slices.Index(order, get(base)), slices.Index(order, get(u))
		if p >= 0 && b >= 0 && p >= b {
			return accept(u, out, fd)
		}
		return refusedValue(fd.value(u), fmt.Sprintf("looser than %v", get(base)))
	}
}

// effectiveSandbox is the profile a configuration asks for; unset and ""
// are the default, workspace-write.
func effectiveSandbox(f *File) string {
	if f.Sandbox == nil || *f.Sandbox == "" {
		return "workspace-write"
	}
	return *f.Sandbox
}

// effectiveNetwork is the sandbox network a configuration asks for; unset
// and "" are none.
func effectiveNetwork(f *File) string {
	if f.SandboxNetwork == nil || *f.SandboxNetwork == "" {
		return "none"
	}
	return *f.SandboxNetwork
}

func sandboxNetwork(base, u, out *File, fd *field) Note {
	return ordered(func(f *File) any { return effectiveNetwork(f) }, "full", "allowlist", "none")(base, u, out, fd)
}

// sandboxAllow accepts fewer destinations than base's allowlist, or any
// list when the untrusted layer narrows the full network to an allowlist.
func sandboxAllow(base, u, out *File, fd *field) Note {
	switch {
	case effectiveNetwork(base) == "full" && u.SandboxNetwork != nil && *u.SandboxNetwork == "allowlist":
		return accept(u, out, fd)
	case effectiveNetwork(base) == "allowlist":
		return subset(nil, "reaches hosts the user's allowlist does not")(base, u, out, fd)
	}
	return refusedValue(fd.value(u), "the network is "+effectiveNetwork(base)+", and a list of hosts would only open it")
}

// allowPatterns accepts a new exclusive allow list (it only denies more:
// deny rules still apply), or fewer patterns than base's.
func allowPatterns(base, u, out *File, fd *field) Note {
	if base.Policy.AllowPatterns == nil {
		return accept(u, out, fd)
	}
	return subset(nil, "allows patterns the user's list does not")(base, u, out, fd)
}
