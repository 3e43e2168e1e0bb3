package sandbox

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// RuleError reports an invalid entry of Config.Allow.
type RuleError struct {
	// Rule is the entry as given.
	Rule string
	// Reason says what is wrong with it.
	Reason string
}

// Error names the rule and why it is invalid.
func (e *RuleError) Error() string {
	return "sandbox: allow rule " + strconv.Quote(e.Rule) + ": " + e.Reason
}

// rule is one parsed allowlist entry: an exact host name, a wildcard over
// the subdomains of a name, or an IP address, each with one port.
type rule struct {
	// host is the lower-case name without a trailing dot; for a wildcard,
	// the domain after "*.". Empty for an IP rule.
	host     string
	wildcard bool
	addr     netip.Addr // valid for an IP rule
	port     uint16
}

// String renders the rule in its canonical form, which parseRule reads
// back to the same rule.
func (r rule) String() string {
	port := strconv.Itoa(int(r.port))
	switch {
	case r.addr.IsValid():
		return net.JoinHostPort(r.addr.String(), port)
	case r.wildcard:
		return "*." + r.host + ":" + port
	}
	return r.host + ":" + port
}

// parseRule reads "host:port", "*.domain:port", "1.2.3.4:port" or
// "[::1]:port". Host names are case-insensitive; the port is mandatory.
func parseRule(s string) (rule, error) {
	fail := func(reason string) (rule, error) { return rule{}, &RuleError{Rule: s, Reason: reason} }
	if s == "" {
		return fail("empty")
	}
	if strings.Contains(s, "*") && (!strings.HasPrefix(s, "*.") || strings.Contains(s[1:], "*")) {
		return fail(`"*" is only allowed as the whole first label, as in *.example.com:443`)
	}
	if strings.HasPrefix(s, "*.") {
		h, port, reason := splitHostPort(s[2:])
		if reason != "" {
			return fail(reason)
		}
		if strings.HasPrefix(h, "[") {
			return fail("a wildcard applies to host names, not IP addresses")
		}
		name, reason := hostName(h)
		if reason != "" {
			return fail(reason)
		}
		return rule{host: name, wildcard: true, port: port}, nil
	}
	t, reason := parseHostPort(s)
	if reason != "" {
		return fail(reason)
	}
	return rule{host: t.host, addr: t.addr, port: t.port}, nil
}

// parseAllowlist parses every rule and returns them in canonical form too.
func parseAllowlist(rules []string) (allowlist, []string, error) {
	var out allowlist
	var canon []string
	for _, s := range rules {
		r, err := parseRule(s)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, r)
		canon = append(canon, r.String())
	}
	return out, canon, nil
}

// target is a destination a sandboxed command asked the proxy for.
type target struct {
	host string     // lower-case name without a trailing dot; empty for an address
	addr netip.Addr // valid when the target is an IP literal
	port uint16
}

// String is host:port as the proxy dials and reports it.
func (t target) String() string {
	if t.addr.IsValid() {
		return net.JoinHostPort(t.addr.String(), strconv.Itoa(int(t.port)))
	}
	return t.host + ":" + strconv.Itoa(int(t.port))
}

// parseTarget reads the host:port of a CONNECT request or of an absolute
// URL. It accepts what parseRule accepts for exact rules, and nothing else:
// no wildcards, no IPv6 zones, no numeric forms other than dotted quads.
func parseTarget(s string) (target, error) {
	t, reason := parseHostPort(s)
	if reason != "" {
		return target{}, errors.New(reason)
	}
	return t, nil
}

// parseHostPort reads a name or an IP literal and a port, or says why not.
func parseHostPort(s string) (target, string) {
	h, port, reason := splitHostPort(s)
	if reason != "" {
		return target{}, reason
	}
	if strings.HasPrefix(h, "[") {
		a, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return target{}, "brackets must hold an IPv6 address without a zone"
		}
		return target{addr: a, port: port}, ""
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if !a.Is4() {
			return target{}, "an IPv6 address must be in brackets, as in [::1]:8080"
		}
		return target{addr: a, port: port}, ""
	}
	name, reason := hostName(h)
	if reason != "" {
		return target{}, reason
	}
	return target{host: name, port: port}, ""
}

// splitHostPort cuts s at its last colon; the host keeps its brackets.
func splitHostPort(s string) (host string, port uint16, reason string) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, "missing :port"
	}
	host, ps := s[:i], s[i+1:]
	if strings.HasPrefix(host, "[") != strings.HasSuffix(host, "]") || strings.Count(host, "[")+strings.Count(host, "]") > 2 {
		return "", 0, "unbalanced brackets"
	}
	if !strings.HasPrefix(host, "[") && strings.Contains(host, ":") {
		return "", 0, "an IPv6 address must be in brackets, as in [::1]:8080"
	}
	if host == "" || host == "[]" {
		return "", 0, "missing host"
	}
	if ps == "" || len(ps) > 5 || strings.Trim(ps, "0123456789") != "" {
		return "", 0, "the port must be a number from 1 to 65535"
	}
	n, _ := strconv.Atoi(ps)
	if n < 1 || n > 65535 {
		return "", 0, "the port must be a number from 1 to 65535"
	}
	return host, uint16(n), ""
}

// maxName is the longest DNS name in text form.
const maxName = 253

// hostName validates a DNS name and returns it lower-cased without a
// trailing dot. Labels hold letters, digits, '-' and '_', and do not begin
// or end with '-'. The last label must begin with a letter, so that numeric
// forms that resolvers read as addresses (127.1, 0x7f000001, 2130706433)
// are never taken for names.
func hostName(h string) (string, string) {
	name := strings.ToLower(strings.TrimSuffix(h, "."))
	if name == "" || len(name) > maxName {
		return "", "the host name must have 1 to 253 characters"
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", "every label of the host name must have 1 to 63 characters"
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "", "a label of the host name begins or ends with '-'"
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", "the host name may hold only letters, digits, '-', '_' and dots"
			}
		}
	}
	if last := labels[len(labels)-1]; last[0] < 'a' || last[0] > 'z' {
		return "", "the last label of the host name must begin with a letter (IP addresses are written as dotted quads or [IPv6])"
	}
	return name, ""
}

// allowlist is the parsed Config.Allow.
type allowlist []rule

// allows reports whether some rule matches t: the same port and the same
// name, a name strictly below a wildcard's domain, or the same address.
func (a allowlist) allows(t target) bool {
	for _, r := range a {
		if r.port != t.port {
			continue
		}
		switch {
		case r.addr.IsValid():
			if t.addr == r.addr {
				return true
			}
		case t.addr.IsValid():
		case r.wildcard:
			if strings.HasSuffix(t.host, "."+r.host) {
				return true
			}
		case t.host == r.host:
			return true
		}
	}
	return false
}
