package config

import (
	"strings"
	"testing"
)

// TestEveryKeyIsDocumented checks that every key has a flag, a SHELLCAP_
// variable FromEnv reads, a library field and a description, and that no
// two keys share a flag.
func TestEveryKeyIsDocumented(t *testing.T) {
	flags := map[string]string{}
	for _, k := range Keys() {
		if k.Flag == "" || k.Field == "" || k.Usage == "" || !strings.HasPrefix(k.Env, "SHELLCAP_") {
			t.Errorf("%s: incomplete: %+v", k.Key, k)
		}
		if other, dup := flags[k.Flag]; dup {
			t.Errorf("--%s sets both %s and %s", k.Flag, other, k.Key)
		}
		flags[k.Flag] = k.Key
		if k.Kind == "map" {
			continue // set entry by entry: SHELLCAP_ENV_NAME
		}
		if _, err := FromEnv([]string{k.Env + "=" + sampleValue(k)}); err != nil {
			t.Errorf("%s: %v", k.Env, err)
		}
	}
	for key := range keyDocs {
		if fieldByKey(key) == nil {
			t.Errorf("keyDocs documents %s, which is no key", key)
		}
	}
}

func sampleValue(k Key) string {
	switch k.Kind {
	case "duration":
		return "1s"
	case "size", "int":
		return "1"
	case "bool":
		return "true"
	case "list":
		return "[]"
	}
	switch k.Key {
	case "approval_mode":
		return "ask"
	case "sandbox":
		return "read-only"
	case "sandbox_network":
		return "none"
	case "executor":
		return "container"
	case "container.mode":
		return "persistent"
	case "container.runtime":
		return "podman"
	}
	return "x"
}
