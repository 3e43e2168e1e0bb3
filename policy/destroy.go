package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// allStopping is a policy whose deny list is every program that stops the
// machine, so that the approval tiers can ask deniedEquivalent whether a
// command stops it, whatever the user's own deny list.
var allStopping = &Policy{denied: map[string]bool{"poweroff": true, "halt": true, "reboot": true, "init": true, "shutdown": true}}

// blockDevice reports a path that names a disk or memory device, where a
// write destroys data: /dev/sda, /dev/nvme0n1, /dev/disk/by-id/..., /dev/mem.
func blockDevice(p string) bool {
	rest, ok := strings.CutPrefix(cleanPath(p), "/dev/")
	if !ok {
		return false
	}
	for _, prefix := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "loop", "md", "dm-", "sr", "nbd", "disk/", "mapper/", "mem", "kmem", "port", "rbd", "zd", "bcache", "ubd", "fd"} {
		if strings.HasPrefix(rest, prefix) {
			return prefix != "fd" || len(rest) > 2 && rest[2] >= '0' && rest[2] <= '9' && !strings.Contains(rest, "/")
		}
	}
	return false
}

// redirectTarget is called by the walker for the target of every output
// redirection: under the approval tiers, a write to a disk device is
// destructive.
func (c *checker) redirectTarget(t word) {
	if !t.lit {
		return
	}
	p := c.p
	switch {
	case blockDevice(t.val):
		// A redirection to a disk device does what dd does.
		if d := p.deniedName("dd"); d != "" {
			c.add(Deny, ruleDeniedCommand, fmt.Sprintf("Writing to the disk device %s does what %s does, and %s is denied.", pyRepr(t.val), pyRepr(d), pyRepr(d)), t.written(), t.off)
			return
		}
		if p.approval {
			f, _ := destroy(t, fmt.Sprintf("Writing to the disk device %s destroys the data on it. Ask the user to do it.", pyRepr(t.val)))
			c.found = append(c.found, f)
		}
	case cleanPath(t.val) == "/proc/sysrq-trigger":
		// echo b > /proc/sysrq-trigger reboots, echo o powers off.
		for _, name := range []string{"reboot", "poweroff", "halt", "shutdown"} {
			if d := p.deniedName(name); d != "" {
				c.add(Deny, ruleDeniedCommand, fmt.Sprintf("Writing to /proc/sysrq-trigger can do what %s does, and %s is denied.", pyRepr(d), pyRepr(d)), t.written(), t.off)
				return
			}
		}
		if p.approval {
			f, _ := destroy(t, "Writing to /proc/sysrq-trigger can reboot or stop the machine at once. Ask the user to do it.")
			c.found = append(c.found, f)
		}
	}
}

// findDestructive denies find -delete (which counts as rm) over a whole
// tree, or with no test to narrow what it deletes.
func findDestructive(cl *call) (finding, bool) {
	args := cl.args()
	var del *word
	tests := false
	var starts []word
	expr := false
	for i, a := range args {
		if a.lit && (strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!") {
			expr = true
		}
		if !expr {
			starts = append(starts, a)
			continue
		}
		if a.lit && a.val == "-delete" {
			del = &args[i]
		} else if a.lit && strings.HasPrefix(a.val, "-") {
			switch a.val {
			case "-depth", "-maxdepth", "-mindepth", "-xdev", "-mount", "-follow", "-noleaf", "-ignore_readdir_race", "-daystart", "-print", "-print0", "-true":
			default:
				tests = true
			}
		}
	}
	if del == nil {
		return finding{}, false
	}
	if len(starts) == 0 {
		starts = []word{{val: ".", lit: true}}
	}
	for _, s := range starts {
		if rootLike(s) && (s.val != "." && s.val != "./" || !tests) {
			return destroy(*del, fmt.Sprintf("'find %s -delete' deletes files throughout a whole tree (the root, a system or home directory, or everything here). Delete specific paths inside the project instead, or narrow it with -name and a subdirectory.", s.val))
		}
	}
	return finding{}, false
}

// remoteScript reports a shell that runs code fetched from the network
// through a substitution: bash <(curl URL), sh -c "$(wget -O- URL)".
func remoteScript(cl *call) bool {
	for _, a := range cl.args() {
		if a.node == nil || a.lit {
			continue
		}
		found := false
		syntax.Walk(a.node, func(n syntax.Node) bool {
			var stmts []*syntax.Stmt
			switch x := n.(type) {
			case *syntax.CmdSubst:
				stmts = x.Stmts
			case *syntax.ProcSubst:
				stmts = x.Stmts
			default:
				return !found
			}
			syntax.Walk(&syntax.File{Stmts: stmts}, func(m syntax.Node) bool {
				if ce, ok := m.(*syntax.CallExpr); ok && len(ce.Args) > 0 && len(ce.Args[0].Parts) == 1 {
					if l, ok := ce.Args[0].Parts[0].(*syntax.Lit); ok {
						switch baseName(l.Value) {
						case "curl", "wget", "fetch", "http", "https", "aria2c", "nc", "ncat":
							found = true
						}
					}
				}
				return !found
			})
			return false
		})
		if found {
			return true
		}
	}
	return false
}
