package demodata

import "testing"

// BenchmarkBuild1M measures a benchmark-scale build. Run it once:
//
//	go test -run '^$' -bench Build1M -benchtime 1x -benchmem ./rsclient/rstest/demodata/
func BenchmarkBuild1M(b *testing.B) {
	for b.Loop() {
		ds, err := Build(Options{Records: 1_000_000})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(ds.Records)), "records")
	}
}

// BenchmarkBuildDefault measures the demo-size build.
func BenchmarkBuildDefault(b *testing.B) {
	for b.Loop() {
		if _, err := Build(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
