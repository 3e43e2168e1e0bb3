package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shellcap/shellcap"
)

const (
	envPrefix = "SHELLCAP_"
	// envMapPrefix starts the variables that set File.Env entries:
	// SHELLCAP_ENV_FOO=bar sets env.FOO.
	envMapPrefix = envPrefix + "ENV_"
	envSource    = "environment"
)

// EnvConfigFile is the variable that names the configuration file. It is
// for the CLI; [FromEnv] skips it.
const EnvConfigFile = "SHELLCAP_CONFIG"

// envAliases are further names of some variables. SHELLCAP_TOKEN is the
// shorter name `shellcap serve` documents for SHELLCAP_SERVER_TOKEN.
var envAliases = map[string]string{"SHELLCAP_TOKEN": "SHELLCAP_SERVER_TOKEN"}

// FromEnv reads the SHELLCAP_* variables of environ (os.Environ's format)
// into a File. Each key has a variable named by its key path upper-cased,
// with "_" for ".": SHELLCAP_DEFAULT_TIMEOUT=30s,
// SHELLCAP_POLICY_ALLOWED_COMMANDS=git,go, SHELLCAP_SERVER_TOKEN=...
// SHELLCAP_ENV_NAME=value sets env.NAME. SHELLCAP_TOKEN is accepted for
// SHELLCAP_SERVER_TOKEN; giving both with different values is an error.
//
// Lists are comma-separated (blanks around entries are trimmed, empty
// entries dropped, and an empty value sets an empty list); a value that
// starts with "[" is read as a YAML flow list instead, for entries that
// hold commas: SHELLCAP_POLICY_DENY_PATTERNS='["^x{1,3}$"]'. Booleans
// take strconv.ParseBool's forms. Any other SHELLCAP_ variable, except
// [EnvConfigFile], is an error naming it; variables without the prefix are
// ignored.
func FromEnv(environ []string) (*File, error) {
	f := &File{}
	byName := map[string]*field{}
	for i := range fields {
		if fields[i].typ != mapType { // env is set entry by entry
			byName[fields[i].env] = &fields[i]
		}
	}
	seen := map[string]string{} // canonical name -> the name given
	values := map[string]string{}
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || name == EnvConfigFile {
			continue
		}
		canon := name
		if a, ok := envAliases[name]; ok {
			canon = a
		}
		if first, dup := seen[canon]; dup {
			if first != name && values[canon] != val {
				return nil, &Error{Source: envSource, Key: name, Msg: "conflicts with " + first}
			}
			continue // the first occurrence wins, as in os.Getenv
		}
		seen[canon], values[canon] = name, val
		fd := byName[canon]
		if fd == nil && strings.HasPrefix(name, envMapPrefix) {
			if err := setEnvEntry(f, name, val); err != nil {
				return nil, err
			}
			continue
		}
		if fd == nil {
			return nil, &Error{Source: envSource, Key: name, Msg: "unknown variable"}
		}
		if err := setFromEnv(f, fd, name, val); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func setEnvEntry(f *File, name, val string) error {
	key := strings.TrimPrefix(name, envMapPrefix)
	if !shellcap.ValidEnvName(key) {
		return &Error{Source: envSource, Key: name, Msg: "invalid variable name " + strconv.Quote(key)}
	}
	if strings.ContainsRune(val, 0) {
		return &Error{Source: envSource, Key: name, Msg: "the value contains a NUL byte"}
	}
	if f.Env == nil {
		f.Env = map[string]string{}
	}
	f.Env[key] = val
	return nil
}

func setFromEnv(f *File, fd *field, name, val string) error {
	dst := fd.value(f)
	switch fd.typ {
	case stringsType:
		list, err := envList(val)
		if err != nil {
			return &Error{Source: envSource, Key: name, Msg: err.Error()}
		}
		dst.Set(reflect.ValueOf(list))
	default:
		v, msg := parseScalar(fd.typ.Elem(), val, func(s string) (bool, bool) {
			b, err := strconv.ParseBool(s)
			return b, err == nil
		})
		if msg != "" {
			return &Error{Source: envSource, Key: name, Msg: msg}
		}
		ptr := reflect.New(fd.typ.Elem())
		ptr.Elem().Set(v)
		dst.Set(ptr)
	}
	if p := fd.check(dst); p != nil {
		msg := p.msg
		if p.sub != "" {
			msg = p.sub + ": " + msg // the list index or map entry
		}
		return &Error{Source: envSource, Key: name, Msg: msg}
	}
	return nil
}

// envList splits a list variable.
func envList(val string) ([]string, error) {
	if strings.HasPrefix(strings.TrimSpace(val), "[") {
		var list []string
		if err := yaml.Unmarshal([]byte(val), &list); err != nil {
			return nil, fmt.Errorf("invalid list: %v", err)
		}
		if list == nil {
			list = []string{}
		}
		return list, nil
	}
	list := []string{}
	for _, s := range strings.Split(val, ",") {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	return list, nil
}

// Set sets key in f from text the way a command-line flag gives it: a
// scalar is parsed as in the environment (strconv.ParseBool's booleans),
// a list gets the comma-separated entries of text appended, and the env
// map gets the entry NAME=VALUE. The value is checked as Parse checks it.
// The CLI's flags call it; an error names neither the key nor the flag
// (the caller does).
func (f *File) Set(key, text string) error {
	fd := fieldByKey(key)
	if fd == nil {
		return fmt.Errorf("unknown key %s", key)
	}
	dst := fd.value(f)
	switch fd.typ {
	case mapType:
		name, val, ok := strings.Cut(text, "=")
		if !ok || name == "" {
			return fmt.Errorf("%q: want NAME=VALUE", text)
		}
		if dst.IsNil() {
			dst.Set(reflect.ValueOf(map[string]string{}))
		}
		dst.SetMapIndex(reflect.ValueOf(name), reflect.ValueOf(val))
	case stringsType:
		list := append([]string{}, dst.Interface().([]string)...)
		for _, s := range strings.Split(text, ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		dst.Set(reflect.ValueOf(list))
	default:
		v, msg := parseScalar(fd.typ.Elem(), text, func(s string) (bool, bool) {
			b, err := strconv.ParseBool(s)
			return b, err == nil
		})
		if msg != "" {
			return errors.New(msg)
		}
		ptr := reflect.New(fd.typ.Elem())
		ptr.Elem().Set(v)
		dst.Set(ptr)
	}
	if p := fd.check(dst); p != nil {
		msg := p.msg
		if p.sub != "" {
			msg = strings.TrimPrefix(p.sub, ".") + ": " + msg
		}
		return errors.New(msg)
	}
	return nil
}
