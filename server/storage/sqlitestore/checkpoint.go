package sqlitestore

import (
	"database/sql"
	"time"
)

// checkpointEvery is how often the background checkpointer copies the WAL
// into the database.
const checkpointEvery = 250 * time.Millisecond

// checkpointer copies the write-ahead log into the database file from a
// connection of its own, in small PASSIVE steps that never wait for a
// writer, so that no commit pays for a checkpoint (and its sync of the
// database file): with SQLite's automatic checkpoints the commit that
// crosses the threshold copies the whole log, a stall of tens of
// milliseconds under load. The automatic checkpoint stays as a backstop
// (openDB) for when no checkpointer runs.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

// startCheckpointer opens a second connection to path and checkpoints
// until stopped; it returns nil when that connection cannot be opened
// (the automatic checkpoints then do the work).
func startCheckpointer(path string) *checkpointer {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)")
	if err != nil {
		return nil
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				_, _ = db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
			}
		}
	}()
	return c
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	close(c.stop)
	<-c.done
	return c.db.Close()
}
