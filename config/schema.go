package config

import (
	"fmt"
	"net"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/policy"
)

// A field is one configurable key, found by reflection over File so that
// parsing, the environment, merging and printing can never miss one.
type field struct {
	key   string       // dotted key path, "policy.allowed_commands"
	env   string       // SHELLCAP_POLICY_ALLOWED_COMMANDS
	index []int        // for reflect.Value.FieldByIndex
	typ   reflect.Type // the field's Go type
}

// sections are the nested mappings ("policy", "server").
var (
	fields   []field
	sections = map[string]bool{}
)

func init() {
	collect(reflect.TypeFor[File](), "", nil)
	buildKeys()
}

func collect(t reflect.Type, prefix string, index []int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		key := prefix + sf.Tag.Get("yaml")
		idx := append(slices.Clone(index), i)
		if sf.Type.Kind() == reflect.Struct {
			sections[key] = true
			collect(sf.Type, key+".", idx)
			continue
		}
		fields = append(fields, field{
			key:   key,
			env:   envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_")),
			index: idx,
			typ:   sf.Type,
		})
	}
}

func fieldByKey(key string) *field {
	for i := range fields {
		if fields[i].key == key {
			return &fields[i]
		}
	}
	return nil
}

// value returns the addressable field in f.
func (fd *field) value(f *File) reflect.Value {
	return reflect.ValueOf(f).Elem().FieldByIndex(fd.index)
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	approvalType = reflect.TypeFor[shellcap.ApprovalMode]()
	stringsType  = reflect.TypeFor[[]string]()
	mapType      = reflect.TypeFor[map[string]string]()
)

// parseScalar converts the text of a scalar to the element type of a
// pointer field, or returns a message saying why it cannot. boolOK reads
// a boolean the way its source writes them (YAML resolves booleans
// itself; the environment uses strconv.ParseBool).
func parseScalar(t reflect.Type, s string, boolOK func(string) (bool, bool)) (reflect.Value, string) {
	v := reflect.New(t).Elem()
	switch {
	case t == durationType:
		d, err := time.ParseDuration(s)
		if err != nil {
			return v, fmt.Sprintf("%q: invalid duration (write a number with a unit, such as \"30s\" or \"5m\")", s)
		}
		v.SetInt(int64(d))
	case t == approvalType:
		m, ok := parseApprovalMode(s)
		if !ok {
			return v, fmt.Sprintf("%q: invalid approval mode (want ask, all or none)", s)
		}
		v.SetInt(int64(m))
	case t.Kind() == reflect.String:
		v.SetString(s)
	case t.Kind() == reflect.Bool:
		b, ok := boolOK(s)
		if !ok {
			return v, fmt.Sprintf("%q: invalid boolean (want true or false)", s)
		}
		v.SetBool(b)
	case t.Kind() == reflect.Int64:
		n, err := ParseSize(s)
		if err != nil {
			return v, fmt.Sprintf("%q: invalid size (want a byte count or a size such as \"64MiB\")", s)
		}
		v.SetInt(n)
	case t.Kind() == reflect.Int:
		n, ok := parseInt(s)
		if !ok {
			return v, fmt.Sprintf("%q: invalid integer", s)
		}
		v.SetInt(n)
	default:
		panic("config: unsupported field type " + t.String())
	}
	return v, ""
}

func parseApprovalMode(s string) (shellcap.ApprovalMode, bool) {
	for _, m := range []shellcap.ApprovalMode{shellcap.ApproveAsk, shellcap.ApproveAll, shellcap.ApproveNone} {
		if s == m.String() {
			return m, true
		}
	}
	return 0, false
}

// A problem is a check failure: the key path suffix ("[2]", ".NAME") and
// the message.
type problem struct {
	sub, msg string
}

// check validates the value of a set field; it returns nil when it is
// fine. It covers what can be judged from the value alone; the rest
// (AllowedCommands with DeniedCommands, ApproveNone without the
// acknowledgement, ...) is left to shellcap.New.
func (fd *field) check(v reflect.Value) *problem {
	// No duration means anything negative; some libraries would read
	// one as their default without a word.
	if fd.typ.Kind() == reflect.Pointer && fd.typ.Elem() == durationType {
		if d := time.Duration(v.Elem().Int()); d < 0 {
			return &problem{"", fmt.Sprintf("must not be negative (got %v)", d)}
		}
	}
	switch fd.key {
	case "tools":
		return checkList(v, func(s string) string {
			if !slices.Contains(ToolNames, s) {
				return fmt.Sprintf("%q: unknown tool (known: %s)", s, strings.Join(ToolNames, ", "))
			}
			return ""
		})
	case "sandbox":
		if s := v.Elem().String(); !slices.Contains(SandboxProfiles, s) {
			return &problem{"", fmt.Sprintf("%q: unknown sandbox profile (want \"\", read-only, workspace-write or full-access)", s)}
		}
	case "executor":
		if s := v.Elem().String(); !slices.Contains(Executors, s) {
			return &problem{"", fmt.Sprintf("%q: unknown executor (want host or container)", s)}
		}
	case "container.mode":
		if s := v.Elem().String(); !slices.Contains(ContainerModes, s) {
			return &problem{"", fmt.Sprintf("%q: unknown container mode (want stateless or persistent)", s)}
		}
	case "container.runtime":
		if s := v.Elem().String(); s != "" && s != "podman" && s != "docker" && !strings.HasPrefix(s, "/") {
			return &problem{"", fmt.Sprintf("%q: unknown container runtime (want podman, docker or the absolute path of one of them)", s)}
		}
	case "sandbox_network":
		if s := v.Elem().String(); !slices.Contains(SandboxNetworks, s) {
			return &problem{"", fmt.Sprintf("%q: unknown sandbox network (want none, allowlist or full)", s)}
		}
	case "sandbox_allow":
		return checkList(v, func(s string) string {
			if _, _, err := net.SplitHostPort(s); err != nil || s == "" {
				return fmt.Sprintf("%q: want host:port", s)
			}
			return ""
		})
	case "server.token":
		if v.Elem().String() == Redacted {
			return &problem{"", Redacted + " is a placeholder printed by `config print`, not a token"}
		}
	case "pass_env":
		return checkList(v, func(s string) string {
			if !shellcap.ValidEnvName(s) {
				return fmt.Sprintf("%q: invalid variable name", s)
			}
			return ""
		})
	case "denied_env_patterns":
		return checkList(v, func(s string) string {
			if _, err := path.Match(s, ""); err != nil || s == "" {
				return fmt.Sprintf("%q: invalid pattern (want a glob such as \"*_TOKEN\", or %s)", s, LLMAPIKeys)
			}
			return ""
		})
	case "env":
		for _, k := range sortedKeys(v.Interface().(map[string]string)) {
			if !shellcap.ValidEnvName(k) {
				return &problem{"." + k, "invalid variable name (letters, digits and _, not starting with a digit)"}
			}
			if strings.ContainsRune(v.MapIndex(reflect.ValueOf(k)).String(), 0) {
				return &problem{"." + k, "the value contains a NUL byte"}
			}
		}
	case "policy.allowed_commands", "policy.denied_commands":
		return checkList(v, func(s string) string {
			if strings.TrimSpace(s) == "" || strings.ContainsAny(s, " \t\n\x00") {
				return fmt.Sprintf("%q: not a command name", s)
			}
			return ""
		})
	case "policy.denied_operators":
		return checkList(v, func(s string) string {
			if _, err := policy.New(policy.Rules{DeniedOperators: []string{s}}); err != nil {
				return fmt.Sprintf("%q: %v", s, err)
			}
			return ""
		})
	case "policy.deny_patterns", "policy.allow_patterns":
		return checkList(v, func(s string) string {
			if _, err := regexp.Compile(s); err != nil {
				return fmt.Sprintf("%q: invalid regular expression: %v", s, err)
			}
			return ""
		})
	case "server.max_body_bytes":
		// The library reads zero as its default; a key set to zero or less
		// is a mistake. The library checks the minimum.
		if n := v.Elem().Int(); n <= 0 {
			return &problem{"", fmt.Sprintf("must be greater than zero (got %d)", n)}
		}
	case "server.probe_tools":
		return checkList(v, func(s string) string {
			if !envprobe.ValidToolName(s) {
				return fmt.Sprintf("%q: invalid program name", s)
			}
			return ""
		})
	}
	return nil
}

// checkList applies bad to each element and reports the first failure,
// then rejects duplicates.
func checkList(v reflect.Value, bad func(string) string) *problem {
	list := v.Interface().([]string)
	for i, s := range list {
		if msg := bad(s); msg != "" {
			return &problem{fmt.Sprintf("[%d]", i), msg}
		}
		if slices.Contains(list[:i], s) {
			return &problem{fmt.Sprintf("[%d]", i), fmt.Sprintf("%q is listed twice", s)}
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isSet reports whether a field value is set in its layer.
func isSet(v reflect.Value) bool { return !v.IsNil() }

// Validate checks the value of every set field, as Parse and FromEnv do,
// so that a File built in code (from flags, say) gets the same checks.
func (f *File) Validate() error {
	return f.validate("")
}

func (f *File) validate(source string) error {
	for i := range fields {
		fd := &fields[i]
		v := fd.value(f)
		if !isSet(v) {
			continue
		}
		if p := fd.check(v); p != nil {
			return &Error{Source: source, Key: fd.key + p.sub, Msg: p.msg}
		}
	}
	return nil
}
