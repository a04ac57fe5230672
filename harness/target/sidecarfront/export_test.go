package sidecarfront

// CloseListener stops the proxy's listener: only a hop in memory reaches
// the proxy afterwards.
func (f *Front) CloseListener() error { return f.lb.Close(nil) }
