package sandbox

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	valid := []struct{ in, canon string }{
		{"example.com:443", "example.com:443"},
		{"EXAMPLE.Com:443", "example.com:443"},
		{"example.com.:443", "example.com:443"},
		{"*.example.com:443", "*.example.com:443"},
		{"*.Example.COM:8080", "*.example.com:8080"},
		{"localhost:1", "localhost:1"},
		{"a-b_c.d9:65535", "a-b_c.d9:65535"},
		{"127.0.0.1:8080", "127.0.0.1:8080"},
		{"169.254.169.254:80", "169.254.169.254:80"},
		{"[::1]:8080", "[::1]:8080"},
		{"[2001:DB8::7]:443", "[2001:db8::7]:443"},
		{"[::ffff:127.0.0.1]:80", "[::ffff:127.0.0.1]:80"},
		{"example.com:0443", "example.com:443"},
	}
	for _, c := range valid {
		r, err := parseRule(c.in)
		if err != nil {
			t.Errorf("parseRule(%q): %v", c.in, err)
			continue
		}
		if r.String() != c.canon {
			t.Errorf("parseRule(%q) = %s, want %s", c.in, r, c.canon)
		}
	}
	invalid := []struct{ in, why string }{
		{"", "empty"},
		{"example.com", "missing :port"},
		{"example.com:", "port"},
		{"example.com:0", "port"},
		{"example.com:65536", "port"},
		{"example.com:+80", "port"},
		{"example.com:-1", "port"},
		{"example.com:http", "port"},
		{"example.com:443 ", "port"},
		{":443", "missing host"},
		{"*:443", `"*"`},
		{"*.:443", "missing host"},
		{"**.example.com:443", `"*"`},
		{"a.*.example.com:443", `"*"`},
		{"*example.com:443", `"*"`},
		{"*.*.example.com:443", `"*"`},
		{"*.[::1]:443", "not IP"},
		{"*.1.2.3.4:443", "last label"},
		{"::1:80", "brackets"},
		{"[::1:80", "brackets"},
		{"[1.2.3.4]:80", "IPv6"},
		{"[fe80::1%eth0]:80", "zone"},
		{"[example.com]:80", "IPv6"},
		{"127.1:80", "last label"},
		{"0x7f000001:80", "last label"},
		{"2130706433:80", "last label"},
		{"1.2.3.256:80", "last label"},
		{"exa mple.com:80", "letters"},
		{"user@example.com:80", "letters"},
		{"example.com/x:80", "letters"},
		{"-example.com:80", "'-'"},
		{"example-.com:80", "'-'"},
		{"a..b:80", "1 to 63"},
		{".example.com:80", "1 to 63"},
		{"ex\x00ample.com:80", "letters"},
		{"exämple.com:80", "letters"},
		{strings.Repeat("a", 64) + ".com:80", "1 to 63"},
		{strings.Repeat("a.", 127) + "com:80", "1 to 253"},
	}
	for _, c := range invalid {
		_, err := parseRule(c.in)
		var re *RuleError
		if !errors.As(err, &re) {
			t.Errorf("parseRule(%q) = %v, want a *RuleError", c.in, err)
			continue
		}
		if re.Rule != c.in || !strings.Contains(re.Error(), c.why) {
			t.Errorf("parseRule(%q): %v, want the rule and %q", c.in, err, c.why)
		}
	}
}

func TestAllowlistAllows(t *testing.T) {
	rules, _, err := parseAllowlist([]string{
		"example.com:443", "*.x.test:443", "127.0.0.1:8080", "[::1]:8080", "Mixed.Case:80",
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		dest string
		want bool
	}{
		{"example.com:443", true},
		{"EXAMPLE.COM:443", true},
		{"example.com.:443", true},
		{"example.com:80", false},
		{"www.example.com:443", false},
		{"evil-example.com:443", false},
		{"example.com.evil.test:443", false},
		{"a.x.test:443", true},
		{"a.b.x.test:443", true},
		{"x.test:443", false},
		{"evil-x.test:443", false},
		{"ax.test:443", false},
		{"a.x.test:444", false},
		{"mixed.case:80", true},
		{"127.0.0.1:8080", true},
		{"127.0.0.1:8081", false},
		{"127.0.0.2:8080", false},
		{"localhost:8080", false},
		{"[::1]:8080", true},
		{"[::ffff:127.0.0.1]:8080", false},
		{"[0:0:0:0:0:0:0:1]:8080", true},
		{"169.254.169.254:80", false},
	}
	for _, c := range cases {
		tg, err := parseTarget(c.dest)
		if err != nil {
			t.Errorf("parseTarget(%q): %v", c.dest, err)
			continue
		}
		if got := rules.allows(tg); got != c.want {
			t.Errorf("allows(%s) = %v, want %v", c.dest, got, c.want)
		}
	}
	for _, bad := range []string{"*.x.test:443", "example.com", "127.1:8080", "[fe80::1%lo]:80", "a b:80", "example.com:99999"} {
		if tg, err := parseTarget(bad); err == nil {
			t.Errorf("parseTarget(%q) = %v, want an error", bad, tg)
		}
	}
}

func TestParseAllowlistNamesBadRule(t *testing.T) {
	_, _, err := parseAllowlist([]string{"ok.test:443", "bad.test"})
	var re *RuleError
	if !errors.As(err, &re) || re.Rule != "bad.test" || !strings.Contains(err.Error(), `"bad.test"`) {
		t.Fatalf("want a RuleError naming bad.test, got %v", err)
	}
}

// FuzzParseRule checks that parsing never panics, that an accepted rule
// prints in a canonical form that parses back to the same rule, and that
// an exact rule allows its own destination but not the next port.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"example.com:443", "*.example.com:443", "[::1]:8080", "127.0.0.1:80",
		"EXAMPLE.com.:1", "127.1:80", "*.:1", "[fe80::1%lo]:1", "a..b:2", "x:65535",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRule(s)
		if err != nil {
			var re *RuleError
			if !errors.As(err, &re) || re.Rule != s || re.Reason == "" {
				t.Fatalf("parseRule(%q): error %v is not a complete RuleError", s, err)
			}
			return
		}
		if r.port == 0 {
			t.Fatalf("parseRule(%q): port 0 accepted", s)
		}
		back, err := parseRule(r.String())
		if err != nil || back != r {
			t.Fatalf("parseRule(%q) = %s, which reads back as %+v, %v", s, r, back, err)
		}
		if r.wildcard {
			return
		}
		tg, err := parseTarget(r.String())
		if err != nil {
			t.Fatalf("parseTarget(%s): %v", r, err)
		}
		if !(allowlist{r}).allows(tg) {
			t.Fatalf("rule %s does not allow its own destination", r)
		}
		tg.port++
		if tg.port != 0 && (allowlist{r}).allows(tg) {
			t.Fatalf("rule %s allows another port", r)
		}
	})
}
