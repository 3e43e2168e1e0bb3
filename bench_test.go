package shellcap_test

import (
	"testing"

	"github.com/shellcap/shellcap/internal/bench"
)

// BenchmarkRunTrue reports Run("true") against `bash -c true` spawned
// directly with os/exec (output captured, and bare), interleaved in the
// same run; the ratios are the figures to watch.
func BenchmarkRunTrue(b *testing.B) {
	rows, err := bench.RunTrue(b.Context(), b.TempDir(), max(b.N, 20))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(rows[0].Ours, "ms/run")
	b.ReportMetric(rows[0].Raw, "ms/raw-captured")
	b.ReportMetric(rows[0].Ratio, "ratio-captured")
	b.ReportMetric(rows[1].Raw, "ms/raw-bare")
	b.ReportMetric(rows[1].Ratio, "ratio-bare")
}

// BenchmarkLargeOutput reads 256 MiB of output through Run and through a
// plain pipe read, reporting the throughput ratio and peak memory growth.
func BenchmarkLargeOutput(b *testing.B) {
	for range b.N {
		rows, err := bench.LargeOutput(b.Context(), b.TempDir(), 256<<20)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rows[0].Ratio, "throughput-ratio")
		b.ReportMetric(rows[1].Ours, "MiB-rss-growth")
	}
}

// BenchmarkPolicyCheck reports the policy check of a typical 100-character
// pipeline as a fraction of a Run("true") measured in the same run.
func BenchmarkPolicyCheck(b *testing.B) {
	row, err := bench.PolicyCheck(b.Context(), b.TempDir(), max(b.N, 10))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(row.Ours, "µs/check")
	b.ReportMetric(row.Ratio, "ratio")
}
