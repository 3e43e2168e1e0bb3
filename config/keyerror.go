package config

import (
	"errors"
	"regexp"
	"strings"

	"github.com/shellcap/shellcap"
)

// KeyOfField returns the key that sets a library option, named as in
// [Key.Field] ("shellcap.Options.MaxTimeout", "jobs.Options.MaxLogBytes",
// "mcpserver.HTTPOptions.Addr"). Where two keys set one option
// (server.token and server.token_file), it returns the first.
func KeyOfField(field string) (Key, bool) {
	return keyOfField(field, nil)
}

// keyOfField is KeyOfField preferring, among keys that set one option,
// the one origins says was set.
func keyOfField(field string, origins Origins) (Key, bool) {
	var first *Key
	for i, k := range keys {
		if k.Field != field && !strings.HasPrefix(k.Field, field+" (") {
			continue
		}
		if _, set := origins[k.Key]; set {
			return k, true
		}
		if first == nil {
			first = &keys[i]
		}
	}
	if first == nil {
		return Key{}, false
	}
	return *first, true
}

// optionRE finds the option a library's error names when it is not a
// *shellcap.OptionError: "jobs: option MaxLogBytes: must be at least ...".
var optionRE = regexp.MustCompile(`(?:^|: )option ([A-Z][A-Za-z0-9]*): (.*)$`)

// wordRE finds the words of a reason that may name other options.
var wordRE = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*\b`)

// KeyError rewrites an error that a library constructor returned for one
// of its options (shellcap.New, jobs.New, container.New, session.New,
// mcpserver's HTTP options) so that it names the configuration key the
// user set instead of the library field: "config shellcap.yaml:
// max_timeout: must not be negative (got -1s)". lib is the options type
// the constructor took, as the key registry names it ("shellcap.Options",
// "jobs.Options", "mcpserver.HTTPOptions"); origins says where each key's
// value came from (a file, a flag, a variable), for the message's source.
// Other options the reason names are replaced by their keys too. An error
// that names no option with a key is returned as it is.
//
// The result matches what err matched, and ErrInvalid.
func KeyError(lib string, err error, origins Origins) error {
	if err == nil {
		return nil
	}
	var name, reason string
	var oe *shellcap.OptionError
	if errors.As(err, &oe) {
		name, reason = oe.Option, oe.Reason
	} else if m := optionRE.FindStringSubmatch(err.Error()); m != nil {
		name, reason = m[1], m[2]
	} else {
		return err
	}
	k, ok := keyOfField(lib+"."+name, origins)
	if !ok {
		return err
	}
	libs := []string{lib}
	// An option built from several keys (shellcap.Options.Sandbox from
	// sandbox.Config's) names the inner field it rejects: the error is
	// about that key.
	if _, inner, ok := strings.Cut(k.Field, " ("); ok {
		inner = strings.TrimSuffix(inner, ")")
		if i := strings.LastIndexByte(inner, '.'); i > 0 {
			sub := inner[:i]
			libs = append(libs, sub)
			reason = strings.TrimPrefix(reason, strings.ToLower(sub[:strings.IndexByte(sub+".", '.')])+": ")
			for _, w := range wordRE.FindAllString(reason, -1) {
				if other, ok := keyOfField(sub+"."+w, origins); ok {
					k = other
					break
				}
			}
		}
	}
	reason = wordRE.ReplaceAllStringFunc(reason, func(w string) string {
		for _, l := range libs {
			if other, ok := keyOfField(l+"."+w, origins); ok {
				return other.Key
			}
		}
		return w
	})
	return &keyError{e: Error{Source: origins[k.Key], Key: k.Key, Msg: reason}, cause: err}
}

// keyError is an *Error about a key that also matches the library's error.
type keyError struct {
	e     Error
	cause error
}

func (e *keyError) Error() string   { return e.e.Error() }
func (e *keyError) Unwrap() []error { return []error{&e.e, e.cause} }
