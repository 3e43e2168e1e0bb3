package policy

import "fmt"

// judge applies the rules to one command, in order: a command the policy
// cannot name, the allow or deny list, interactive commands, deny patterns,
// allow patterns, the approval tiers, and last the Custom function. The
// first rule that denies decides; Custom may replace an ask or an allow.
func (c *checker) judge(cl *call) {
	c.observe(cl)
	p := c.p
	head := cl.words[0]
	off := head.off
	c.gitEnvironment(cl.assigns)
	if head.lit {
		c.readsIntoCode(cl)
		c.computedOptions(cl, identity(baseName(head.val)))
	}
	switch cl.name() {
	case "export", "declare", "typeset", "local", "readonly":
		c.gitEnvironment(cl.args())
	}
	if !head.lit {
		if p.exclusive() {
			c.add(Deny, ruleDynamic, fmt.Sprintf("The command name %s is only known at run time, so the policy cannot check which program runs, and only allowed commands may run. Write the program's name literally.", pyRepr(short(head.val))), head.written(), off)
			return
		}
	} else {
		name := identity(baseName(head.val))
		if p.allowed != nil && !p.allowedProgram(head.val) {
			c.add(Deny, ruleAllowedCmds, msgNotAllowed(head.val), head.written(), off)
			return
		}
		if p.isDenied(name) {
			c.add(Deny, ruleDeniedCommand, msgDenied(head.val), head.written(), off)
			return
		}
		if d, at := p.deniedEquivalent(cl, name); d != "" {
			c.add(Deny, ruleDeniedCommand, fmt.Sprintf("Command %s does what %s does, and %s is denied.", pyRepr(short(cl.text())), pyRepr(d), pyRepr(d)), at.written(), at.off)
			return
		}
		if name == "find" && c.findDelete(cl) {
			return
		}
		if c.hijack(cl) {
			return
		}
		if !p.interactive && c.later == 0 && c.interactive(cl) {
			c.found = append(c.found, finding{d: Decision{Verdict: Deny, Rule: ruleInteractive, Word: head.written()}, off: off, interactive: true})
			return
		}
	}
	if len(p.denyRE) > 0 || p.allowREOn {
		text := patternText(cl)
		for _, re := range p.denyRE {
			if re.MatchString(text) {
				c.add(Deny, ruleDenyPattern, fmt.Sprintf("Command %s is denied by the pattern %s.", pyRepr(short(text)), pyRepr(re.String())), head.written(), off)
				return
			}
		}
		if w, re, ok := c.probeDenyPatterns(cl); ok {
			c.add(Ask, ruleDenyPattern, fmt.Sprintf("Command %s has the argument %s, only known at run time, which could make it match the deny pattern %s, so it is decided at run time and the policy cannot check it. Write the argument out literally.", pyRepr(short(text)), pyRepr(short(w.val)), pyRepr(re)), w.written(), w.off)
		}
		if p.allowREOn {
			allowed := false
			for _, re := range p.allowRE {
				if re.MatchString(text) {
					allowed = true
					break
				}
			}
			if !allowed {
				c.add(Deny, ruleAllowPattern, fmt.Sprintf("Command %s does not match any allowed pattern.", pyRepr(short(text))), head.written(), off)
				return
			}
		}
	}
	var out *finding
	switch {
	case !head.lit:
		out = &finding{d: Decision{Verdict: Ask, Rule: ruleDynamic, Word: head.written(),
			Reason: fmt.Sprintf("The command name %s is only known at run time, so the policy cannot check which program runs. Write the program's name literally.", pyRepr(short(head.val)))}, off: off}
	case p.approval:
		v := c.approve(cl)
		switch v.d.Verdict {
		case Deny:
			c.found = append(c.found, v)
			return
		case Ask:
			out = &v
		}
	}
	if p.custom != nil {
		pos := c.pos(off)
		d, ok := p.custom(cl.command(pos))
		if ok {
			if d.Rule == "" {
				d.Rule = ruleCustom
			}
			if d.Pos == (Pos{}) {
				d.Pos = pos
			}
			if !d.Verdict.Valid() {
				d.Reason = fmt.Sprintf("The custom rule returned an invalid verdict (%d), so the command is denied. %s", int(d.Verdict), d.Reason)
				d.Verdict = Deny
			}
			if d.Verdict == Allow {
				c.custom = true
				return
			}
			c.found = append(c.found, finding{d: d, off: d.Pos.Offset})
			return
		}
	}
	if out != nil {
		c.found = append(c.found, *out)
	}
}
