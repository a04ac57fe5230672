package resources_test

import (
	"context"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/prompts"
	"github.com/thoughtbox-bench/tbbench/server/resources"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

// BenchmarkReadModelResource reads thoughtbox://mental-models/{tag}/{model}
// (front matter plus body) through its template.
func BenchmarkReadModelResource(b *testing.B) {
	cat := resources.New(resources.Deps{})
	t, _ := cat.FindTemplate("thoughtbox://mental-models/{tag}/{model}")
	vars := map[string]string{"tag": "planning", "model": "decomposition"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.Read(context.Background(), "thoughtbox://mental-models/planning/decomposition", vars); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadRootDirectory renders thoughtbox://mental-models (JSON).
func BenchmarkReadRootDirectory(b *testing.B) {
	r, _ := resources.New(resources.Deps{}).Find("thoughtbox://mental-models")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkThoughtQuery reads thoughtbox://thoughts/{sessionId}/{type} over
// a session of 50 thoughts.
func BenchmarkThoughtQuery(b *testing.B) {
	store := memstore.New()
	ch, err := store.Create(storage.CreateParams{Title: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		kind := "H"
		if i%2 == 0 {
			kind = "E"
		}
		if _, err := ch.Append(storage.Entry{Thought: "S1|" + kind + "|—|x", ThoughtNumber: i, TotalThoughts: 50, NextThoughtNeeded: true}); err != nil {
			b.Fatal(err)
		}
	}
	cat := resources.New(resources.Deps{Store: store})
	t, _ := cat.FindTemplate("thoughtbox://thoughts/{sessionId}/{type}")
	vars := map[string]string{"sessionId": ch.ID(), "type": "H"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.Read(context.Background(), "u", vars); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetPrompt renders the interleaved-thinking prompt with arguments.
func BenchmarkGetPrompt(b *testing.B) {
	set := prompts.New(resources.New(resources.Deps{}))
	args := map[string]string{"task": "fix the bug", "thoughts_limit": "20"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := set.Get("interleaved-thinking", args); err != nil {
			b.Fatal(err)
		}
	}
}
