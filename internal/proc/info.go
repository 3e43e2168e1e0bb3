package proc

// Info describes one process.
type Info struct {
	PID   int
	PPID  int
	Comm  string // the executable name the kernel records (truncated)
	State byte   // R, S, D, Z, T, ...; Z is a zombie
	PGID  int
	// StartTicks is the process's start time in the platform's unit
	// (see TicksAt); together with PID it identifies a process across
	// PID reuse. Values from one platform compare only with each other.
	StartTicks uint64
	// ExitCode is the wait status of a zombie (State 'Z'), as waitpid
	// would report it, where the platform tells; 0 otherwise.
	ExitCode int
}

// gone reports whether the process has exited (a zombie or dead).
func (i Info) gone() bool { return i.State == 'Z' || i.State == 'X' }
