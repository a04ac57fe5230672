package procstat

import (
	"errors"
	"sync"
	"time"
)

// Sampler reads a process's resources at a fixed interval in the background.
type Sampler struct {
	pid      int
	interval time.Duration
	mu       sync.Mutex
	series   Series
	err      error
	stop     chan struct{}
	done     chan struct{}
}

// Start reads process pid at once and then every interval until Stop is
// called or the process is gone. It fails when the first reading does.
func Start(pid int, interval time.Duration) (*Sampler, error) {
	if interval <= 0 {
		return nil, errors.New("procstat: sampling interval must be positive")
	}
	first, err := Read(pid)
	if err != nil {
		return nil, err
	}
	s := &Sampler{pid: pid, interval: interval, series: Series{first}, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s, nil
}

func (s *Sampler) run() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			s.take()
			return
		case <-t.C:
			if !s.take() {
				return
			}
		}
	}
}

// take adds one reading; false when the process is gone or unreadable.
func (s *Sampler) take() bool {
	x, err := Read(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return false
	}
	s.series = append(s.series, x)
	return true
}

// Series returns a copy of the samples taken so far.
func (s *Sampler) Series() Series {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(Series(nil), s.series...)
}

// Stop takes a last sample (when the process is still there), stops the
// sampler and returns all the samples. err is the reading error that ended
// sampling early, if any (it wraps os.ErrNotExist when the process exited).
func (s *Sampler) Stop() (Series, error) {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(Series(nil), s.series...), s.err
}
