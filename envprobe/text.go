package envprobe

import "strings"

// Text renders the snapshot as a compact block for a model's instructions:
//
//	Shell: bash 5.2.15
//	OS: Linux 6.18.0 x86_64
//	Working directory: /work
//	Tools: git 2.39.5, go 1.26.8; not found: docker; not checked: node (timed out after 5s)
//
// Lines with nothing to say are left out.
func (s *Snapshot) Text() string {
	var b strings.Builder
	line := func(label string, parts ...string) {
		v := strings.Join(nonEmpty(parts), " ")
		if v != "" {
			b.WriteString(label + ": " + v + "\n")
		}
	}
	line("Shell", s.Shell, s.ShellVersion)
	line("OS", s.OS, s.Kernel, s.Arch)
	line("Working directory", s.Workdir)

	var found, missing, unchecked []string
	for _, t := range s.Tools {
		switch {
		case t.Found && t.Error != "":
			found = append(found, t.Name+" ("+short(t.Error)+")")
		case t.Found:
			found = append(found, strings.Join(nonEmpty([]string{t.Name, t.Version}), " "))
		case t.Error != "":
			unchecked = append(unchecked, t.Name+" ("+short(t.Error)+")")
		default:
			missing = append(missing, t.Name)
		}
	}
	var groups []string
	if len(found) > 0 {
		groups = append(groups, strings.Join(found, ", "))
	}
	if len(missing) > 0 {
		groups = append(groups, "not found: "+strings.Join(missing, ", "))
	}
	if len(unchecked) > 0 {
		groups = append(groups, "not checked: "+strings.Join(unchecked, ", "))
	}
	line("Tools", strings.Join(groups, "; "))
	return strings.TrimSuffix(b.String(), "\n")
}

func nonEmpty(parts []string) []string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// short keeps a reason to one line of at most 80 characters.
func short(s string) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}
