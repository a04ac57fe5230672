package storage

// A backend that loads sessions lazily registers, at start-up, a summary
// chain per session: NewChain with the session's metadata, counts included,
// and no thoughts. The registry lists summaries like any chain. The backend
// fills a summary with the session's thoughts (Fill) before it hands the
// chain to anyone.

// SetSummary replaces the metadata of a summary chain, counts included (a
// summary has no thoughts to derive them from): for example when another
// process appended to the session.
func (c *Chain) SetSummary(s Session) {
	c.noteTags(s.Tags)
	defer c.noteTags(nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.Tags == nil {
		s.Tags = []string{}
	}
	s.ID = c.id
	c.sess = s
	c.moved()
}

// Fill gives c the metadata and every thought of src, a chain of the same
// session built apart (loaded from storage), in one step: readers of c see
// the summary or the whole session, never a half-loaded one. src must not
// be used afterwards.
func (c *Chain) Fill(src *Chain) {
	if src == c {
		return
	}
	c.noteTags(src.tags())
	defer c.noteTags(nil)
	src.mu.Lock()
	defer src.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.p, c.now = src.p, src.now
	c.sess = src.sess
	c.sess.ID = c.id
	c.moved()
	c.byID, c.order = src.byID, src.order
	c.main, c.mainSorted, c.mainDirty = src.main, src.mainSorted, src.mainDirty
	c.branches, c.branchOrder = src.branches, src.branchOrder
	c.tail, c.maxMain = src.tail, src.maxMain
}
