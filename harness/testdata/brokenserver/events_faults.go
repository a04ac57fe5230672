package brokenserver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The faults of the event stream and observability_gateway
// (features/events.feature). Their scenarios start a server of their own,
// so they are caught by a run against a target whose own servers are
// behind the proxy (with ServerEnv applied to their settings).
const (
	// EventsRevisionUnreported loses every thought_revised event, as a
	// server that reports a revision as a plain thought only (D20).
	EventsRevisionUnreported Fault = "events-revision-unreported"
	// EventsStageNames writes stage_changed stages as names ("entry")
	// instead of the data model's numbers 0-3.
	EventsStageNames Fault = "events-stage-names"
	// ObservabilityErrorsAsSuccess answers an observability_gateway error
	// as a success, as a server that hides an unreachable Prometheus.
	ObservabilityErrorsAsSuccess Fault = "observability-errors-as-success"
	// HealthAlwaysHealthy reports every service healthy, reachable or not.
	HealthAlwaysHealthy Fault = "health-always-healthy"
)

// EventFaults lists the faults the event stream and observability_gateway
// scenarios that start a server of their own must catch.
var EventFaults = []Fault{EventsRevisionUnreported, EventsStageNames, ObservabilityErrorsAsSuccess, HealthAlwaysHealthy}

func isEventStreamFault(f Fault) bool {
	return f == EventsRevisionUnreported || f == EventsStageNames || f == EventPreview101
}

func isObservabilityFault(f Fault) bool {
	return f == ObservabilityErrorsAsSuccess || f == HealthAlwaysHealthy
}

// ServerEnv adjusts the settings env of a server started behind a proxy
// with fault. Under an event stream fault the server writes its events to a
// file of the proxy's own (under tmp), and a relay copies them, mangled, to
// the file env asked for; stop ends the relay after a last copy. For other
// faults env is returned as it is.
func ServerEnv(fault Fault, env []string, tmp string) (out []string, stop func()) {
	const key = "THOUGHTBOX_EVENTS_DEST="
	dest := ""
	for _, e := range env {
		if strings.HasPrefix(e, key) {
			dest = strings.TrimPrefix(e, key)
		}
	}
	if !isEventStreamFault(fault) || dest == "" {
		return env, func() {}
	}
	dir, err := os.MkdirTemp(tmp, "events-")
	if err != nil {
		return env, func() {}
	}
	raw := filepath.Join(dir, "events.jsonl")
	out = append(append([]string{}, env...), key+raw)
	r := &relay{fault: fault, from: raw, to: dest, done: make(chan struct{})}
	r.wg.Add(1)
	go r.run()
	return out, r.stop
}

// relay copies complete lines from one file to another, through the fault.
type relay struct {
	fault    Fault
	from, to string
	offset   int64
	done     chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
}

func (r *relay) run() {
	defer r.wg.Done()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		r.copy()
		select {
		case <-r.done:
			r.copy()
			return
		case <-tick.C:
		}
	}
}

func (r *relay) stop() {
	r.once.Do(func() { close(r.done) })
	r.wg.Wait()
}

func (r *relay) copy() {
	data, err := os.ReadFile(r.from)
	if err != nil || int64(len(data)) <= r.offset {
		return
	}
	chunk := data[r.offset:]
	end := bytes.LastIndexByte(chunk, '\n')
	if end < 0 {
		return
	}
	chunk = chunk[:end+1]
	r.offset += int64(len(chunk))
	var out []byte
	for _, line := range bytes.SplitAfter(chunk, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if l, keep := r.mangle(line); keep {
			out = append(out, l...)
		}
	}
	if err := os.MkdirAll(filepath.Dir(r.to), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(r.to, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Write(out)
	f.Close()
}

// stageNames are the stages' wire names, by number.
var stageNames = []string{"entry", "init_complete", "cipher_loaded", "domain_active"}

func (r *relay) mangle(line []byte) ([]byte, bool) {
	var e map[string]any
	if json.Unmarshal(line, &e) != nil {
		return line, true
	}
	switch {
	case r.fault == EventsRevisionUnreported && e["type"] == "thought_revised":
		return nil, false
	case r.fault == EventPreview101 && e["type"] == "thought_added":
		return previewPast(line, e)
	case r.fault == EventsStageNames && e["type"] == "stage_changed":
		data, _ := e["data"].(map[string]any)
		for _, k := range []string{"previousStage", "newStage"} {
			if n, ok := data[k].(float64); ok && int(n) >= 0 && int(n) < len(stageNames) {
				data[k] = stageNames[int(n)]
			}
		}
		b, _ := json.Marshal(e)
		return append(b, '\n'), true
	}
	return line, true
}

// observabilityResult applies an observability fault to an
// observability_gateway result.
func (p *Proxy) observabilityResult(c call, res, obj map[string]any, jsonText, isError bool, set func()) {
	switch p.fault {
	case ObservabilityErrorsAsSuccess:
		if isError {
			res["isError"] = false
		}
	case HealthAlwaysHealthy:
		if c.Operation != "health" || isError || !jsonText {
			return
		}
		obj["status"] = "healthy"
		if services, ok := obj["services"].(map[string]any); ok {
			for name := range services {
				services[name] = map[string]any{"status": "healthy"}
			}
		}
		set()
	}
}
