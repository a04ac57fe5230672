package gateway

import "github.com/thoughtbox-bench/tbbench/server/events"

// advanceAndReport moves the connection forward to s (never backwards) after a successful
// call of op and reports it on the connection's event stream: cipher_loaded
// for the cipher operation, stage_changed when the stage moved.
func (c *Conn) advanceAndReport(op string, s Stage) {
	c.mu.Lock()
	prev := c.stage
	if s > c.stage {
		c.stage = s
	}
	now := c.stage
	c.mu.Unlock()
	e := c.Ledger.Events()
	sid := ""
	if cur := c.Ledger.Current(); cur != nil {
		sid = cur.ID()
	}
	if op == "cipher" {
		e.Emit(events.Event{Type: events.CipherLoaded, SessionID: sid, Data: events.CipherLoadedData{Stage: int(now)}})
	}
	if now != prev {
		e.Emit(events.Event{Type: events.StageChanged, SessionID: sid,
			Data: events.StageChangedData{PreviousStage: int(prev), NewStage: int(now), Trigger: op}})
	}
}
