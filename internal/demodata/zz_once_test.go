package demodata
import ("testing";"bytes";"runtime";"time")
func TestZZOnce1M(t *testing.T){
	st := time.Now()
	ds := mustBuild(t, Options{Records: 1_000_000})
	el := time.Since(st)
	runtime.GC()
	var ms runtime.MemStats; runtime.ReadMemStats(&ms)
	t.Logf("build %v, live heap after GC %d MiB, records %d", el, ms.HeapAlloc>>20, len(ds.Records))
	seen := make(map[[3]string]bool, len(ds.Records))
	n := 0
	counts := map[string]int{}
	for _, r := range ds.Records {
		k := [3]string{r.ConnectionID, r.Stream, r.ID}
		if seen[k] { t.Errorf("dup %v", k) }
		seen[k] = true
		n += bytes.Count(bytes.ToLower(r.Data), []byte(LongBodyTerm))
		counts[r.ConnectionID[:8]+" "+r.Stream]++
	}
	t.Logf("term count %d; counts %v", n, counts)
}
