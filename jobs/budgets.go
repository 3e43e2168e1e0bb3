package jobs

import (
	"io"
	"os"
	"path/filepath"

	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/core"
)

// streamTotals are the bytes each stream of a finished Run command printed,
// for the streams [Manager.budgets] cut; -1 for one it left alone.
type streamTotals struct{ stdout, stderr int64 }

// budgets cuts each log of a finished Run command to the Shell's head and
// tail budget of its stream (shellcap.Options.StdoutBudget, StderrBudget),
// as Shell.Run cuts its capture: the first Head and last Tail characters
// around a "[... N bytes omitted ...]" line. A stream with the zero
// Budget, or whose log lost its beginning to Options.MaxLogBytes (so that
// its head is gone), keeps what report gave it.
func (m *Manager) budgets(j *job, st *status, rep *JobResult) streamTotals {
	s := core.Of(m.sh).Settings
	totals := streamTotals{-1, -1}
	for _, t := range []struct {
		name    string
		budget  core.Budget
		dropped int64
		text    *string
		omitted *int64
		total   *int64
	}{
		{stdoutName, s.StdoutBudget, st.StdoutDropped, &rep.Stdout, &rep.StdoutOmitted, &totals.stdout},
		{stderrName, s.StderrBudget, st.StderrDropped, &rep.Stderr, &rep.StderrOmitted, &totals.stderr},
	} {
		if t.budget.IsZero() || t.dropped > 0 {
			continue
		}
		f, err := os.Open(filepath.Join(j.dir, t.name))
		if err != nil {
			continue
		}
		head, tail := t.budget.KeepBytes(s.MaxOutputChars, s.MaxOutputBytes)
		buf := capture.New(head, tail, nil)
		_, err = io.Copy(buf, f)
		_ = f.Close()
		_ = buf.Close()
		if err != nil {
			continue
		}
		out, omitted := buf.BytesWithin(t.budget.Head, t.budget.Tail)
		*t.text, *t.omitted, *t.total = m.clean(out), omitted, buf.Total()
	}
	return totals
}
