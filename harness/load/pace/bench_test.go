//go:build unix

package pace

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkOpen3000 runs the open executor at 3,000 arrivals/s with fast work
// (one arrival per b.N, so ns/op is the arrival interval) and reports the
// achieved rate, the share of dropped arrivals and the schedule lag p99.
// Goal: < 1 % dropped and lag p99 < 1 ms on 2 cores.
//
//	go test -run '^$' -bench Open3000 -benchtime 3s ./harness/load/pace
func BenchmarkOpen3000(b *testing.B) {
	for _, bc := range []struct {
		name  string
		clock Clock
		users int
		work  time.Duration
		rt    RealTime
	}{
		{"noop/spin100us", Real{}, 8, 0, RealTimeOff},
		{"noop/spin30us", Real{Spin: 30 * time.Microsecond}, 8, 0, RealTimeOff},
		{"noop/nospin", Real{Spin: -1}, 8, 0, RealTimeOff},
		{"noop/realtime", Real{}, 8, 0, RealTimeAuto},
		{"work100us", Real{}, 16, 100 * time.Microsecond, RealTimeOff},
		{"work100us/realtime", Real{}, 16, 100 * time.Microsecond, RealTimeAuto},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const rate = 3000
			d := max(time.Duration(b.N)*time.Second/rate, 100*time.Millisecond)
			o := &Open{Pacer: Constant{Rate: rate}, Duration: d, MaxUsers: bc.users, Clock: bc.clock, RealTime: bc.rt}
			fn := func(context.Context, int, time.Time) {}
			if bc.work > 0 {
				fn = func(context.Context, int, time.Time) { busy(bc.work) }
			}
			cpu0 := cpuTime()
			b.ResetTimer()
			res, err := o.Run(context.Background(), fn)
			b.StopTimer()
			cpu := 100 * (cpuTime() - cpu0).Seconds() / res.End.Sub(res.Start).Seconds()
			if err != nil {
				b.Fatal(err)
			}
			dropped := 100 * res.DroppedRatio()
			p99 := res.LagQuantile(99)
			b.ReportMetric(res.Rate(), "arrivals/s")
			b.ReportMetric(dropped, "dropped%")
			b.ReportMetric(float64(p99.Microseconds()), "lag-p99-µs")
			b.ReportMetric(cpu, "cpu%")
			fmt.Printf("open %s: %d arrivals in %v: %.0f/s, dropped %.3f%%, lag p50 %v p99 %v max %v, cpu %.0f%%, real-time %v %v\n",
				bc.name, res.Arrivals(), d, res.Rate(), dropped, res.LagQuantile(50), p99, res.LagQuantile(100), cpu, res.RealTime, res.RealTimeErr)
		})
	}
}

// busy spins for d, standing in for fast CPU-bound work.
func busy(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
