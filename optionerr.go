package shellcap

// causedOptionError is an *OptionError that also matches its cause, so
// that New's error for a sandbox this platform cannot have is both
// ErrInvalidOptions (naming Sandbox) and, say, ErrUnsupported.
type causedOptionError struct {
	opt   *OptionError
	cause error
}

func (e *causedOptionError) Error() string   { return e.opt.Error() }
func (e *causedOptionError) Unwrap() []error { return []error{e.opt, e.cause} }

// optionCause is optionErr for option with err as the reason, keeping err
// matchable with errors.Is.
func optionCause(option string, err error) error {
	return &causedOptionError{opt: &OptionError{Option: option, Reason: err.Error()}, cause: err}
}
