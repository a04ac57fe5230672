package storage

// Syncer is implemented by persisters that make a change durable after the
// chain's lock is released, so that changes of several writers can share
// one flush (group commit). After every successful Append and SetCritique
// the chain calls WaitDurable outside its lock and returns only when it
// returns: a change is acknowledged once it is durable.
type Syncer interface {
	// WaitDurable returns once every change persisted so far is durable.
	WaitDurable() error
}

func (c *Chain) waitDurable() error {
	if s, ok := c.p.(Syncer); ok {
		return s.WaitDurable()
	}
	return nil
}

// Freeze calls fn with every node in creation order while no change to the
// chain can run, so that what fn does with the nodes (a storage backend
// queueing their files to be rewritten) cannot interleave with an append.
// fn must not call the chain's methods.
func (c *Chain) Freeze(fn func(order []Node)) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	fn(clones(c.order))
}
