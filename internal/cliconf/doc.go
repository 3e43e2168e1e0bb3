// Package cliconf is what the shellcap command and the Temporal worker
// (shellcap-temporal worker) share to turn a command line into a Shell:
// the option flags (one per configuration key), the configuration's
// sources and their precedence (Flags.Load), the tightening of untrusted
// workspace files and the trust store, the sandbox a configuration asks
// for and how it degrades (PlanSandbox, OpenShell), the Shell of a server
// (OpenServer) and the job options that go with it (JobOptions).
//
// Every binary that runs commands for an agent builds its Shell here, so
// that a setting the user gives is honoured the same way by each.
//
// # Security
//
// The default sandbox is the workspace-write profile without network. It
// degrades with a warning only where the machine cannot enforce it and no
// profile was named; a named profile, or a network allowlist, is enforced
// as asked or refused. A workspace's own configuration file, which the
// commands it configures can write, only tightens the others unless the
// user trusted its present content.
package cliconf
