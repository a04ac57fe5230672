package mcpserver_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// TestLoadContextWhileAnotherConnectionAppends loads a session 90 times
// while another connection appends to it: the integrity check must not take
// files the background writer has not written yet for missing ones, and its
// repair must not write an older snapshot over a newer one (which left
// "next": [] on disk while the following file pointed back).
func TestLoadContextWhileAnotherConnectionAppends(t *testing.T) {
	cfg := testConfig(t, "fs")
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	url := httpServe(t, srv)
	w := dialHTTP(t, url)
	w.ready()
	sid := w.gateway("thought", map[string]any{"thought": "first", "nextThoughtNeeded": true}).JSON(t)["sessionId"].(string)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// At most 3,000 thoughts: each integrity check looks at every file.
		for i := 0; i < 3000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			args := map[string]any{"thought": fmt.Sprintf("thought %d", i), "nextThoughtNeeded": true}
			if i%5 == 4 {
				args["branchId"], args["branchFromThought"] = "side", 1
			}
			if r, err := w.callRaw("thought", args); err != nil || r.IsError {
				t.Errorf("append %d: %v %s", i, err, r.Text)
				return
			}
		}
	}()
	r := dialHTTP(t, url)
	damaged := 0
	for i := 0; i < 90; i++ {
		res := r.gateway("load_context", map[string]any{"sessionId": sid})
		if res.IsError {
			damaged++
			if damaged == 1 {
				t.Errorf("load_context of a healthy session while another connection appends: %s", strings.SplitN(res.Text, "\n", 2)[0])
			}
		}
	}
	close(stop)
	wg.Wait()
	if damaged > 0 {
		t.Errorf("%d of 90 load_context calls reported damage", damaged)
	}
	w.c.Close()
	r.c.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	stale, files := staleLinks(t, cfg.DataDir)
	if len(stale) > 0 {
		t.Errorf("%d stale links among %d files, e.g. %s", len(stale), files, stale[0])
	}
}
