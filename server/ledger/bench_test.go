package ledger_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
	"github.com/thoughtbox-bench/tbbench/server/storage/sqlitestore"
)

func openStore(b *testing.B, kind string) storage.Store {
	b.Helper()
	if kind == "memory" {
		return memstore.New()
	}
	if kind == "sqlite" {
		s, err := sqlitestore.Open(b.TempDir(), "_default", sqlitestore.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	s, err := fsstore.Open(b.TempDir(), "_default", fsstore.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// thoughtArgs are realistic thought arguments of about 200 bytes.
func thoughtArgs(i int) json.RawMessage {
	return json.RawMessage(`{"thought":"Step ` + strconv.Itoa(i) + `: the cache returns stale entries because the TTL is computed from the write time, not from the time the upstream value changed; check the invalidation path next.","nextThoughtNeeded":true}`)
}

// BenchmarkThought measures the ledger and storage without transport: one
// connection recording thoughts back to back into one session.
func BenchmarkThought(b *testing.B) {
	for _, kind := range []string{"memory", "fs", "sqlite"} {
		b.Run(kind, func(b *testing.B) {
			store := openStore(b, kind)
			h := ledger.New(&ledger.Config{Store: store, Exports: export.Writer{Dir: b.TempDir()}}, nil)
			args := make([]json.RawMessage, 64)
			for i := range args {
				args[i] = thoughtArgs(i)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if r := h.Thought(ctx, args[i%len(args)]); r.IsError {
					b.Fatal(r.FirstText())
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "thoughts/s")
		})
	}
}

// BenchmarkSessionLength writes sessions of 10,000 thoughts and compares the
// median cost of thoughts 1-100 with that of thoughts 9,901-10,000: the cost
// of a thought must not grow with the length of its session.
func BenchmarkSessionLength(b *testing.B) {
	const length = 10000
	for _, kind := range []string{"memory", "fs", "sqlite"} {
		b.Run(kind, func(b *testing.B) {
			var early, late []time.Duration
			ctx := context.Background()
			for n := 0; n < b.N; n++ {
				store := openStore(b, kind)
				h := ledger.New(&ledger.Config{Store: store, Exports: export.Writer{Dir: b.TempDir()}}, nil)
				for i := 1; i <= length; i++ {
					args := thoughtArgs(i)
					t0 := time.Now()
					if r := h.Thought(ctx, args); r.IsError {
						b.Fatal(r.FirstText())
					}
					d := time.Since(t0)
					if i <= 100 {
						early = append(early, d)
					} else if i > length-100 {
						late = append(late, d)
					}
				}
			}
			e, l := median(early), median(late)
			b.ReportMetric(float64(e.Nanoseconds()), "ns/thought@1-100")
			b.ReportMetric(float64(l.Nanoseconds()), "ns/thought@9901-10000")
			b.ReportMetric(float64(l)/float64(e), "late/early")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
