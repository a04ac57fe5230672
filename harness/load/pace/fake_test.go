package pace

import (
	"context"
	"errors"
	"testing"
	"time"
)

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func TestFakeSleepWakesOnAdvance(t *testing.T) {
	clk := NewFake(epoch)
	done := make(chan error, 1)
	go func() { done <- clk.Sleep(context.Background(), time.Second) }()
	if err := clk.BlockUntil(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(999 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("woke before its deadline")
	case <-time.After(20 * time.Millisecond):
	}
	clk.Advance(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatalf("Sleep = %v, want nil", err)
	}
	if got := clk.Now().Sub(epoch); got != time.Second {
		t.Fatalf("Now = %v after start, want 1s", got)
	}
	if clk.Sleepers() != 0 {
		t.Fatalf("%d sleepers left", clk.Sleepers())
	}
}

func TestFakeSleepCancelled(t *testing.T) {
	clk := NewFake(epoch)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- clk.Sleep(ctx, time.Hour) }()
	if err := clk.BlockUntil(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v, want context.Canceled", err)
	}
	if clk.Sleepers() != 0 {
		t.Fatal("a cancelled sleeper stays registered")
	}
	if err := clk.Sleep(context.Background(), 0); err != nil {
		t.Fatalf("Sleep(0) = %v", err)
	}
}

func TestFakeAdvanceToNext(t *testing.T) {
	clk := NewFake(epoch)
	if _, ok := clk.AdvanceToNext(); ok {
		t.Fatal("AdvanceToNext without sleepers reported a move")
	}
	woke := make(chan time.Duration, 2)
	for _, d := range []time.Duration{3 * time.Second, time.Second} {
		go func() {
			_ = clk.Sleep(context.Background(), d)
			woke <- d
		}()
	}
	if err := clk.BlockUntil(ctxT(t), 2); err != nil {
		t.Fatal(err)
	}
	if next, _ := clk.NextDeadline(); next != epoch.Add(time.Second) {
		t.Fatalf("NextDeadline = %v", next)
	}
	now, ok := clk.AdvanceToNext()
	if !ok || now != epoch.Add(time.Second) {
		t.Fatalf("AdvanceToNext = %v, %v", now, ok)
	}
	if d := <-woke; d != time.Second {
		t.Fatalf("woke the %v sleeper first", d)
	}
	now, _ = clk.AdvanceToNext()
	if now != epoch.Add(3*time.Second) || <-woke != 3*time.Second {
		t.Fatalf("second AdvanceToNext = %v", now)
	}
	clk.Set(epoch) // never backwards
	if clk.Now() != epoch.Add(3*time.Second) {
		t.Fatal("Set moved the clock backwards")
	}
}

func TestRealSleep(t *testing.T) {
	for _, clk := range []Real{{}, {Spin: -1}, {Spin: time.Millisecond}} {
		start := time.Now()
		if err := clk.Sleep(context.Background(), 3*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got < 3*time.Millisecond {
			t.Fatalf("%+v: slept %v, want >= 3ms", clk, got)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := (Real{}).Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sleep = %v, want deadline exceeded", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("cancelled Sleep did not return promptly")
	}
}

// ctxT returns a context that ends with the test or after 10 s.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
