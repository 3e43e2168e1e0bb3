package session

import (
	"fmt"
	"maps"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

// DefaultStartTimeout bounds the start of a shell process.
const DefaultStartTimeout = 30 * time.Second

// Options configures a [Session]. The zero value is the safe default: the
// Shell's scrubbed environment, commands starting where the previous one
// left off, and every limit the Shell's own (a zero field means the
// Shell's value, see the table in the package documentation). [New]
// copies the options and refuses inconsistent ones with a
// *shellcap.OptionError naming the field.
type Options struct {
	// StartInRoot starts every command in the workspace root, whatever
	// directory the previous command left the shell in; a command is not
	// run when the shell cannot enter the root. It is not a sandbox:
	// commands can still cd elsewhere. Zero (false) keeps the shell's
	// working directory across calls, as in a terminal.
	StartInRoot bool

	// Env adds variables to the shell's environment, under the Shell's
	// rules (its DeniedEnvPatterns still apply). Nil adds nothing.
	Env map[string]string

	// DefaultTimeout bounds a Request that sets no Timeout. Zero means
	// the Shell's DefaultTimeout. It may not be negative nor above
	// MaxTimeout (as resolved).
	DefaultTimeout time.Duration

	// MaxTimeout is the largest Timeout a Request may ask for; larger ones
	// are refused with a message for the model. Zero means the Shell's
	// MaxTimeout. The Shell's MaxTimeout is a ceiling: a larger value is
	// refused, as is a negative one.
	MaxTimeout time.Duration

	// InterruptGrace is how long a command interrupted by its timeout, a
	// cancelled context or the output cap has to give the prompt back
	// after SIGINT before its processes are killed (and, if the shell
	// itself still does not answer, before the shell is restarted). Zero
	// means the Shell's KillGrace; negative is refused.
	InterruptGrace time.Duration

	// MaxOutputBytes caps the bytes one command may print on stdout and
	// stderr together; past it the command is interrupted, the session
	// survives and the result says so. Zero means the Shell's
	// MaxOutputBytes; negative means no cap.
	MaxOutputBytes int64

	// MaxOutputChars caps the text the model reads (Result.Text), counted
	// in Unicode code points. Zero means the Shell's MaxOutputChars;
	// negative means no cap.
	MaxOutputChars int

	// HeadAndTail makes an over-long Result.Text keep its beginning and
	// its end instead of its end only. Zero (false) means the Shell's
	// HeadAndTail.
	HeadAndTail bool

	// SoftTimeout, when positive, promotes a command still running after
	// it to background job N (numbered from 1 per session): the call
	// returns what the command printed so far with a note, the command
	// goes on in its own shell and the session continues in a new shell
	// with its directory and exported variables (shell functions and
	// unexported variables of the old shell stay with the job). The
	// commands `jobs`, `output N [--new]`, `wait N [DURATION]` and
	// `kill N`, typed as the whole command while job N exists, manage
	// jobs without reaching bash or the policy; wait's DURATION (a Go
	// duration or seconds; without it the Request's Timeout, else
	// DefaultTimeout) is bounded by MaxTimeout. The Request's timeout
	// stays the hard limit: a job that outlives it is stopped as `kill N`
	// stops it. A Request whose timeout is not above SoftTimeout is not
	// promoted. Close kills every job. Zero (the default) promotes
	// nothing; negative is refused.
	SoftTimeout time.Duration

	// KeepANSI keeps ANSI escape sequences in what the model reads. Zero
	// (false) means the Shell's KeepANSI (which strips them by default).
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

// resolve fills the zero fields in from the Shell's settings and checks
// the result.
func (o Options) resolve(sh core.Settings) (Options, error) {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"DefaultTimeout", o.DefaultTimeout}, {"MaxTimeout", o.MaxTimeout}, {"InterruptGrace", o.InterruptGrace}, {"SoftTimeout", o.SoftTimeout}} {
		if d.v < 0 {
			return o, optionErr(d.name, "must not be negative (got %v)", d.v)
		}
	}
	if o.MaxTimeout > sh.MaxTimeout {
		return o, optionErr("MaxTimeout", "%v is above the Shell's MaxTimeout %v", o.MaxTimeout, sh.MaxTimeout)
	}
	if o.MaxTimeout == 0 {
		o.MaxTimeout = sh.MaxTimeout
	}
	switch {
	case o.DefaultTimeout > sh.MaxTimeout:
		return o, optionErr("DefaultTimeout", "%v is above the Shell's MaxTimeout %v", o.DefaultTimeout, sh.MaxTimeout)
	case o.DefaultTimeout > o.MaxTimeout:
		return o, optionErr("DefaultTimeout", "%v is above MaxTimeout %v", o.DefaultTimeout, o.MaxTimeout)
	case o.DefaultTimeout == 0 && sh.DefaultTimeout > o.MaxTimeout:
		return o, optionErr("MaxTimeout", "%v is below the Shell's DefaultTimeout %v, which a session uses when DefaultTimeout is zero; set DefaultTimeout too", o.MaxTimeout, sh.DefaultTimeout)
	case o.DefaultTimeout == 0:
		o.DefaultTimeout = sh.DefaultTimeout
	}
	if o.InterruptGrace == 0 {
		o.InterruptGrace = sh.KillGrace
	}
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = sh.MaxOutputBytes
	}
	if o.MaxOutputChars == 0 {
		o.MaxOutputChars = sh.MaxOutputChars
	}
	o.HeadAndTail = o.HeadAndTail || sh.HeadAndTail
	o.KeepANSI = o.KeepANSI || sh.KeepANSI
	o.Env = maps.Clone(o.Env)
	return o, nil
}

func optionErr(option, format string, args ...any) error {
	return &shellcap.OptionError{Option: option, Reason: fmt.Sprintf(format, args...)}
}
