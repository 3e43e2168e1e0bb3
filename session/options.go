package session

import (
	"time"

	"github.com/shellcap/shellcap"
)

// Default values used when the matching [Options] field is zero.
const (
	// DefaultInterruptGrace is how long an interrupted command has to
	// return to the prompt before its processes are killed.
	DefaultInterruptGrace = 2 * time.Second
	// DefaultStartTimeout bounds the start of a shell process.
	DefaultStartTimeout = 30 * time.Second
)

// Options configures a [Session]. The zero value is the safe default: the
// Shell's scrubbed environment, commands starting where the previous one
// left off, a 30 s timeout, output capped as in the core. [New] copies the
// options.
type Options struct {
	// Confine starts every command in the workspace root, whatever
	// directory the previous command left the shell in; a command is not
	// run when the shell cannot enter the root. Zero (false) keeps the
	// shell's working directory across calls, as in a terminal.
	Confine bool

	// Env adds variables to the shell's environment, under the Shell's
	// rules (its DeniedEnvPatterns still apply). Nil adds nothing.
	Env map[string]string

	// DefaultTimeout bounds a Request that sets no Timeout. Zero means
	// shellcap.DefaultTimeout (30 s).
	DefaultTimeout time.Duration

	// MaxTimeout is the largest Timeout a Request may ask for; larger ones
	// are refused with a message for the model. Zero means
	// shellcap.DefaultMaxTimeout (10 minutes).
	MaxTimeout time.Duration

	// InterruptGrace is how long a command interrupted by its timeout, a
	// cancelled context or the output cap has to give the prompt back
	// after SIGINT before its processes are killed (and, if the shell
	// itself still does not answer, before the shell is restarted). Zero
	// means DefaultInterruptGrace (2 s).
	InterruptGrace time.Duration

	// MaxOutputBytes caps the bytes one command may print on stdout and
	// stderr together; past it the command is interrupted, the session
	// survives and the result says so. Zero means
	// shellcap.DefaultMaxOutputBytes; negative means no cap.
	MaxOutputBytes int64

	// MaxOutputChars caps the text the model reads (Result.Text), counted
	// in Unicode code points; the beginning is dropped first. Zero means
	// shellcap.DefaultMaxOutputChars; negative means no cap.
	MaxOutputChars int

	// KeepANSI keeps ANSI escape sequences in what the model reads. Zero
	// (false) strips them.
	KeepANSI bool
}

// Request is one command for a [Session].
type Request struct {
	// Command is shell text, run by the session's bash as if typed at its
	// prompt: it may span lines and change the shell's state. It must be
	// valid UTF-8 without NUL bytes.
	Command string

	// Timeout bounds the command. Zero means Options.DefaultTimeout; a
	// negative value or one above Options.MaxTimeout is refused with a
	// message for the model.
	Timeout time.Duration
}

// resolve fills in the defaults.
func (o Options) resolve() Options {
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = shellcap.DefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = shellcap.DefaultMaxTimeout
	}
	if o.DefaultTimeout > o.MaxTimeout {
		o.DefaultTimeout = o.MaxTimeout
	}
	if o.InterruptGrace <= 0 {
		o.InterruptGrace = DefaultInterruptGrace
	}
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = shellcap.DefaultMaxOutputBytes
	}
	if o.MaxOutputChars == 0 {
		o.MaxOutputChars = shellcap.DefaultMaxOutputChars
	}
	if o.Env != nil {
		env := make(map[string]string, len(o.Env))
		for k, v := range o.Env {
			env[k] = v
		}
		o.Env = env
	}
	return o
}
