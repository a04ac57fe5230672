package mentalmodels

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkGetModel measures one get_model call (decode, look-up, pretty JSON).
func BenchmarkGetModel(b *testing.B) {
	args := json.RawMessage(`{"operation":"get_model","model":"decomposition"}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := Handle(context.Background(), nil, args); r.IsError {
			b.Fatal(r.FirstText())
		}
	}
}

// BenchmarkListModels measures a filtered list_models call.
func BenchmarkListModels(b *testing.B) {
	args := json.RawMessage(`{"operation":"list_models","tags":["planning"]}`)
	b.ReportAllocs()
	for b.Loop() {
		Handle(context.Background(), nil, args)
	}
}
