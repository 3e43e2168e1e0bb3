package policy

import "testing"

// BenchmarkCheck measures the check of a typical 100-character pipeline.
func BenchmarkCheck(b *testing.B) {
	const cmd = `cd src && grep -rn "TODO" --include='*.go' . | sort | uniq -c | sort -rn | head -20 > /tmp/todo.txt`
	for _, bc := range []struct {
		name  string
		rules Rules
	}{
		{"default", Rules{}},
		{"approval", Rules{Approval: true}},
		{"patterns", Rules{DenyPatterns: []string{`^git push\b.*--force`}, AllowPatterns: []string{`^(cd|grep|sort|uniq|head)\b`}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := mustNew(bc.rules)
			b.ReportAllocs()
			b.SetBytes(int64(len(cmd)))
			for b.Loop() {
				if d := p.Check(cmd); d.Verdict == Deny {
					b.Fatal(d)
				}
			}
		})
	}
}
