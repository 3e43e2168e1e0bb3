package config

import (
	"bytes"
	"path"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/container"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
)

// Marshal renders the configuration as YAML with every key, for `shellcap
// config print`. A key no layer set shows the value that then applies,
// marked "# default" (null where the default is decided elsewhere, such
// as the server's settings). Secrets are shown as [Redacted]: the server
// token, and the values of env entries whose names match
// shellcap.LLMAPIKeyEnvPatterns. Parse reads the output back (except a
// redacted token, which it refuses).
func (f *File) Marshal() ([]byte, error) { return f.MarshalOrigins(nil) }

// MarshalOrigins is [File.Marshal] with, on each key a layer set, a comment
// saying where its value came from ("# from flag --max-timeout"), as
// [MergeLayers] reported it. Nil origins marks only the defaults.
func (f *File) MarshalOrigins(origins Origins) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	parents := map[string]*yaml.Node{"": root}
	for i := range fields {
		fd := &fields[i]
		section, name := splitKey(fd.key)
		parent := parents[section]
		if parent == nil {
			parent = &yaml.Node{Kind: yaml.MappingNode}
			parents[section] = parent
			root.Content = append(root.Content, scalar(section), parent)
		}
		val, err := f.node(fd)
		if err != nil {
			return nil, err
		}
		key := scalar(name)
		comment := ""
		if !isSet(fd.value(f)) {
			comment = "default"
		} else if o := origins[fd.key]; o != "" {
			comment = "from " + o
		}
		if comment != "" {
			// yaml.v3 prints a comment on the line of the node it belongs
			// to: the key's line for a block list or mapping, else the
			// value's.
			if len(val.Content) > 0 {
				key.LineComment = comment
			} else {
				val.LineComment = comment
			}
		}
		parent.Content = append(parent.Content, key, val)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func splitKey(key string) (section, name string) {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// node renders one field's value, or its default when it is unset.
func (f *File) node(fd *field) (*yaml.Node, error) {
	v := fd.value(f)
	var val any
	if isSet(v) {
		val = v.Interface()
		if fd.typ.Kind() == reflect.Pointer {
			val = v.Elem().Interface()
		}
	} else {
		val = f.defaultValue(fd.key)
	}
	switch x := val.(type) {
	case time.Duration:
		val = formatDuration(x)
	case shellcap.ApprovalMode:
		val = x.String()
	case int64: // every int64 field is a byte size
		if s := FormatSize(x); strings.HasSuffix(s, "B") {
			val = s
		}
	case map[string]string:
		val = redactEnv(x)
	case string:
		if fd.key == "server.token" {
			val = Redacted
		}
	}
	n := &yaml.Node{}
	if val == nil {
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	} else if err := n.Encode(val); err != nil {
		return nil, err
	}
	return n, nil
}

// defaultValue is what an unset key means, in the key's own terms; nil
// when it is decided elsewhere or has no value to show.
func (f *File) defaultValue(key string) any {
	switch key {
	case "default_timeout":
		return shellcap.DefaultTimeout
	case "max_timeout":
		return shellcap.DefaultMaxTimeout
	case "kill_grace":
		return shellcap.DefaultKillGrace
	case "output_retention":
		return shellcap.DefaultOutputRetention
	case "max_output_bytes":
		return int64(shellcap.DefaultMaxOutputBytes)
	case "max_output_chars":
		return shellcap.DefaultMaxOutputChars
	case "approval_mode":
		return shellcap.ApproveAsk
	case "sandbox":
		return "workspace-write" // where the machine can enforce it
	case "sandbox_network":
		return "none"
	case "tools":
		return ToolNames
	case "policy.denied_commands":
		if len(f.Policy.AllowedCommands) > 0 {
			return []string{}
		}
		return policy.DefaultDeniedCommands()
	case "policy.allow_patterns":
		return nil // an empty list would deny everything
	case "server.probe_tools":
		return envprobe.DefaultTools
	case "server.probe_timeout":
		return envprobe.DefaultTimeout
	case "executor":
		return "host"
	case "jobs.max_jobs":
		return jobs.DefaultMaxJobs
	case "jobs.retention":
		return jobs.DefaultRetention
	case "jobs.max_log_bytes":
		return int64(jobs.DefaultMaxLogBytes)
	case "container.mode":
		return container.Stateless.String()
	case "container.shell":
		return container.DefaultShellPath
	case "container.memory":
		return int64(container.DefaultMemory)
	case "container.pids":
		return container.DefaultPids
	case "container.tmpfs_size":
		return int64(container.DefaultTmpfsSize)
	case "container.nofile":
		return container.DefaultNoFile
	case "container.nproc":
		return container.DefaultNProc
	case "container.engine_timeout":
		return defaultEngineTimeout
	case "die_with_process", "container.runtime", "jobs.kill_grace", "jobs.max_output_chars", "jobs.keep_ansi", "jobs.key_dir":
		return nil // decided by the subcommand, the engines on PATH or the Shell
	}
	if strings.HasPrefix(key, "server.") || strings.HasPrefix(key, "session.") {
		return nil // the server's, or the Shell's
	}
	fd := fieldByKey(key)
	t := fd.typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case stringsType:
		return []string{}
	case mapType:
		return map[string]string{}
	}
	return reflect.Zero(t).Interface()
}

func redactEnv(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
		for _, p := range shellcap.LLMAPIKeyEnvPatterns() {
			if ok, _ := path.Match(p, k); ok {
				out[k] = Redacted
				break
			}
		}
	}
	return out
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
