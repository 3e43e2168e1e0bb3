package policy

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Verdict is the outcome of a policy check. The zero Verdict is invalid:
// a Decision nobody filled in must never let a command run, so every
// consumer here treats the zero value, and any value other than Allow and
// Ask, as Deny.
type Verdict int

const (
	// Allow means the command may run.
	Allow Verdict = iota + 1
	// Ask means the command may run only if a person (or an approval hook) says so.
	Ask
	// Deny means the command must not run.
	Deny
)

// Valid reports whether v is Allow, Ask or Deny.
func (v Verdict) Valid() bool { return v >= Allow && v <= Deny }

// String returns "allow", "ask" or "deny".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "Verdict(" + strconv.Itoa(int(v)) + ")"
}

// MarshalText encodes the verdict as "allow", "ask" or "deny".
func (v Verdict) MarshalText() ([]byte, error) {
	if !v.Valid() {
		return nil, fmt.Errorf("policy: invalid verdict %d", int(v))
	}
	return []byte(v.String()), nil
}

// UnmarshalText decodes "allow", "ask" or "deny".
func (v *Verdict) UnmarshalText(text []byte) error {
	switch string(text) {
	case "allow":
		*v = Allow
	case "ask":
		*v = Ask
	case "deny":
		*v = Deny
	default:
		return fmt.Errorf("policy: unknown verdict %q (want allow, ask or deny)", text)
	}
	return nil
}

// Pos is a position in the checked command text. Line and Col start at 1 and
// Col counts bytes, as in mvdan.cc/sh/v3/syntax; Offset is the 0-based byte
// offset. For code the policy found inside a string (bash -c '...', eval, an
// alias), Pos points into that string when it maps byte for byte onto the
// command text, and at the start of the string otherwise.
type Pos struct {
	Offset int `json:"offset"`
	Line   int `json:"line"`
	Col    int `json:"col"`
}

// String formats the position as "line:col".
func (p Pos) String() string { return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) }

// Decision is the policy's answer for one command string.
type Decision struct {
	// Verdict is allow, ask or deny.
	Verdict Verdict `json:"verdict"`
	// Rule is the stable identifier of the rule that decided, for example
	// "denied-command" or "operator". The rules are listed in the package
	// documentation.
	Rule string `json:"rule"`
	// Reason is written for the model: what was refused and what to do
	// instead. It is empty when the command is allowed.
	Reason string `json:"reason"`
	// Word is the offending word or operator as written, if there is one.
	Word string `json:"word,omitempty"`
	// Pos is where Word (or the offending construct) starts.
	Pos Pos `json:"pos"`
}

// Allowed reports whether the verdict is Allow.
func (d Decision) Allowed() bool { return d.Verdict == Allow }

// String formats the decision on one line, for logs:
// "deny denied-command 1:5: Command 'rm' is denied."
func (d Decision) String() string {
	var b strings.Builder
	b.WriteString(d.Verdict.String())
	b.WriteByte(' ')
	b.WriteString(d.Rule)
	if d.Pos.Line > 0 {
		b.WriteByte(' ')
		b.WriteString(d.Pos.String())
	}
	if d.Reason != "" {
		b.WriteString(": ")
		b.WriteString(d.Reason)
	}
	return b.String()
}

// Rule identifiers. They are part of the API: a caller may switch on them.
const (
	ruleInvalidInput  = "invalid-input"
	ruleTooLong       = "too-long"
	ruleTooDeep       = "too-deep"
	ruleParseError    = "parse-error"
	ruleDeniedCommand = "denied-command"
	ruleAllowedCmds   = "allowed-commands"
	ruleOperator      = "operator"
	ruleInteractive   = "interactive"
	ruleDynamic       = "dynamic-command"
	ruleGitConfig     = "git-config"
	ruleDenyPattern   = "deny-pattern"
	ruleAllowPattern  = "allow-pattern"
	ruleCustom        = "custom"
	ruleReadOnly      = "approval-read-only"
	ruleDestructive   = "approval-destructive"
	ruleApprovalAsk   = "approval-default"
	ruleDefault       = "default"
	ruleWrapper       = "possible-wrapper"
	ruleEnvironment   = "environment"
)

// The four messages below keep pydantic-ai-harness's wording, so that models
// and tests written against it read the same text.

func msgDenied(name string) string { return "Command " + pyRepr(name) + " is denied." }

func msgNotAllowed(name string) string {
	return "Command " + pyRepr(name) + " is not in the allowed list."
}

func msgOperator(op string) string { return "Shell operator " + pyRepr(op) + " is not allowed." }

func msgInteractive(command string) string {
	return "Interactive commands are not allowed. Command: " + pyRepr(command)
}

// pyRepr formats s the way Python's repr() formats a str, so that messages
// match those of Python tools byte for byte: single quotes unless s contains
// a single quote and no double quote, backslash escapes for quotes,
// backslashes and non-printable characters. Bytes that are not valid UTF-8
// are shown as Python shows surrogate-escaped bytes ('\udcff').
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\udc%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || (r > ' ' && unicode.IsPrint(r)):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
