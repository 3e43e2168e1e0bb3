// Package config reads shellcap's configuration: a file (shellcap.yaml,
// shellcap.yml or shellcap.json), the SHELLCAP_* environment variables and,
// through the CLI, flags. Each source gives a [File], a layer in which only
// the keys the source sets are set; [Merge] stacks the layers and
// [File.Options] turns the result into shellcap.Options:
//
//	file := &config.File{}
//	if path, ok := config.Find("."); ok {
//		var err error
//		if file, err = config.Load(path); err != nil {
//			return err // "config shellcap.yaml: policy.denied_operatorz: unknown key"
//		}
//	}
//	env, err := config.FromEnv(os.Environ())
//	if err != nil {
//		return err // "config environment: SHELLCAP_DEFAULT_TIMEOUT: "3x": invalid duration"
//	}
//	eff := config.Merge(file, env, flags) // flags > SHELLCAP_* > file
//	opts, err := eff.Options()
//	if err != nil {
//		return err
//	}
//	sh, err := shellcap.New(opts)
//
// testdata/full.yaml documents every key. Keys are snake_case and nest
// under policy: and server:; durations are Go durations ("30s"), sizes
// are byte counts or "64MiB" (see [ParseSize]). A null value leaves a key
// unset. An unknown key, a value of the wrong kind or one that cannot be
// right on its own (a bad duration, an unknown tool, an invalid regular
// expression) is an [*Error] naming the key path, such as
// "policy.deny_patterns[1]". Whether values fit together is left to
// shellcap.New, which names the option.
//
// # Environment variables
//
// Each key has a variable: SHELLCAP_ and its key path upper-cased with "_"
// for ".", so server.token is SHELLCAP_SERVER_TOKEN. Lists are
// comma-separated, or a YAML flow list when the value starts with "[";
// SHELLCAP_ENV_NAME=value sets env.NAME, and SHELLCAP_TOKEN is accepted
// for SHELLCAP_SERVER_TOKEN. An unknown SHELLCAP_ variable is an error,
// except SHELLCAP_CONFIG ([EnvConfigFile]), left for the CLI to name the
// file.
//
// # Printing
//
// [File.Marshal] prints every key, marking with "# default" those no
// layer set, for `shellcap config print`.
//
// # Security
//
// The file can lower every safeguard shellcap has (approval_mode: none,
// an empty deny list, no output cap), so it should be as trusted as the
// command line: do not load one from a directory the agent can write
// without saying so. Marshal redacts the server token and env values whose
// names look like credentials (shellcap.LLMAPIKeyEnvPatterns); prefer
// SHELLCAP_SERVER_TOKEN to writing the token in the file.
package config
