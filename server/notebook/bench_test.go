package notebook

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkColdJavaScriptRun measures run_cell of a small JavaScript cell:
// a new node process each time (the target is under 300 ms a run).
func BenchmarkColdJavaScriptRun(b *testing.B) {
	s := newService(b, false)
	id := create(b, s, JavaScript)
	cell := addCode(b, s, id, "bench.js", "console.log(6 * 7)")
	raw, _ := json.Marshal(map[string]any{"operation": "run_cell", "notebookId": id, "cellId": cell})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := s.Call(context.Background(), raw); r.IsError {
			b.Fatal(r.FirstText())
		}
	}
}
