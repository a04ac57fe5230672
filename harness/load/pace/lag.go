package pace

import (
	"runtime"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// lagShards records schedule lag from many users with little contention:
// user u records into shard u % len(shards).
type lagShards struct {
	shards []lagShard
}

type lagShard struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
	_  [40]byte // keep neighbouring shards' mutexes off one cache line
}

func newLagShards(users int) *lagShards {
	n := min(users, 2*runtime.GOMAXPROCS(0))
	n = max(n, 1)
	s := &lagShards{shards: make([]lagShard, n)}
	for i := range s.shards {
		s.shards[i].h = newLagHistogram()
	}
	return s
}

func (s *lagShards) record(user int, d time.Duration) {
	sh := &s.shards[user%len(s.shards)]
	sh.mu.Lock()
	recordLag(sh.h, d)
	sh.mu.Unlock()
}

// merged returns one histogram holding every shard's values.
func (s *lagShards) merged() *hdrhistogram.Histogram {
	out := newLagHistogram()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		out.Merge(sh.h)
		sh.mu.Unlock()
	}
	return out
}
