// Package config reads shellcap's configuration: a file (shellcap.yaml,
// shellcap.yml or shellcap.json), the SHELLCAP_* environment variables and,
// through the CLI, flags. Each source gives a [File], a layer in which only
// the keys the source sets are set; [Merge] stacks the layers and
// [File.Options] turns the result into shellcap.Options:
//
//	file := &config.File{}
//	if path, ok := config.Find(userDir); ok { // the user's own directory, see UserDir
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
// testdata/full.yaml documents every key, and [Keys] lists them with
// their flags, variables and library options (the README's table is
// generated from it). Keys are snake_case and nest under policy:,
// session:, jobs:, container: and server:; durations are Go durations ("30s"), sizes
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
// layer set; [File.MarshalOrigins] also names, for each key a layer set,
// where its value came from ([MergeLayers]), for `shellcap config print`.
//
// # Where configuration comes from
//
// Configuration that can loosen anything comes only from places the user
// controls: a file named by --config or $SHELLCAP_CONFIG, the user's own
// directory ([UserDir]: $XDG_CONFIG_HOME/shellcap, else
// ~/.config/shellcap), the SHELLCAP_* environment and the flags. A
// shellcap.yaml found in the workspace or the current directory is what a
// cloned repository brings along, and what a command run by the model can
// write: unless the user trusted it, [Tighten] keeps only its keys that make
// the configuration stricter. `shellcap config trust` records a file in a
// [TrustStore] (outside the workspace) with the SHA-256 of its content;
// [LoadWorkspaceFile] then accepts it whole, until its content changes. A
// symlink is never trusted, and the CLI trusts nothing when the trust store
// lies inside the workspace.
//
// What tightens, key by key, against the effective value of the user's
// layers (the value they set, else the default); a key not listed is
// refused:
//
//   - read_only, disable_output_files, policy.approval, die_with_process,
//     jobs.stop_on_close: true only.
//   - keep_ansi, acknowledge_unsafe, sandbox_read_everything,
//     policy.allow_interactive, session.keep_ansi, jobs.keep_ansi,
//     container.writable_workspace: false only.
//   - default_timeout, max_timeout, kill_grace, output_retention,
//     sandbox_proxy_idle_timeout, server.session_idle_timeout,
//     server.probe_timeout, jobs.retention, container.engine_timeout: a
//     positive duration no longer than the effective one.
//   - session.default_timeout, session.max_timeout,
//     session.interrupt_grace, jobs.kill_grace: the same, where the
//     effective value of an unset key is the Shell's (default_timeout,
//     max_timeout, kill_grace).
//   - max_output_bytes, max_output_chars, sandbox_process_limit,
//     sandbox_tmp_size, sandbox_proxy_max_conns, server.max_body_bytes,
//     jobs.max_jobs, jobs.max_log_bytes, container.memory, container.pids,
//     container.tmpfs_size, container.nofile, container.nproc: a positive
//     cap no higher than the effective one (zero means the default, a
//     negative value no cap). session.max_output_bytes,
//     session.max_output_chars and jobs.max_output_chars likewise, with
//     the Shell's cap as the effective value of an unset key.
//   - max_file_bytes, memory_limit, cpu_time, max_processes: a positive
//     limit no higher than the effective one (zero means no limit).
//   - policy.denied_commands, policy.denied_operators, policy.deny_patterns,
//     denied_env_patterns: added to the effective list, never replacing it
//     ("denied_commands: []" removes nothing). denied_commands is refused
//     when the user set an allow list, which a deny list cannot join.
//   - pass_env, tools, server.probe_tools, policy.allowed_commands (only
//     when the user set an allow list), server.allowed_origins (only when
//     the user set the list), sandbox_allow (with an allowlist network): a
//     subset of the effective list.
//   - policy.allow_patterns: any list when the user set none (an allow
//     list only denies more), else a subset.
//   - approval_mode: none < ask < all; sandbox: full-access <
//     workspace-write (the default) < read-only; sandbox_network: full <
//     allowlist < none; container.mode: persistent < stateless. At or
//     above the effective value.
//   - server.max_sessions (with the session cap): a positive value no
//     higher than one the user set; server.share_jobs: false only.
//   - Refused whatever the value: workspace, shell, env (added variables
//     change what runs), head_and_tail, stdout_head_chars, stdout_tail_chars,
//     stderr_head_chars, stderr_tail_chars, session.head_and_tail, persist_cwd, executor,
//     session.start_in_root, session.soft_timeout, jobs.key_dir, container.image,
//     container.engine_args,
//     container.rootfs, container.runtime, container.shell, server.addr,
//     server.token, server.token_file, server.foreground_timeout.
//
// # Security
//
// A file the user loads (--config, $SHELLCAP_CONFIG, the user directory)
// can lower every safeguard shellcap has (approval_mode: none, an empty
// deny list, the sandbox off), so it must be as trusted as the command
// line; so must a workspace file the user trusts. Marshal redacts the
// server token and env values whose names look like credentials
// (shellcap.LLMAPIKeyEnvPatterns); prefer SHELLCAP_SERVER_TOKEN to writing
// the token in a file.
package config
