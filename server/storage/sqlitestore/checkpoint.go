package sqlitestore

import (
	"database/sql"
	"time"
)

// checkpointEvery is how often the background checkpointer copies the WAL
// into the database.
const checkpointEvery = 250 * time.Millisecond

// checkpointer copies the write-ahead log into the database file in the
// background, so that commits seldom pay for a checkpoint (and its syncs):
// with SQLite's automatic checkpoints the commit that crosses the
// threshold copies the whole log, a stall of tens of milliseconds under
// load. The automatic checkpoint stays as a backstop (openDB) for when no
// checkpointer runs.
//
// The log must also be started over from its beginning now and then,
// which SQLite does only when a transaction begins with every frame of it
// copied. PASSIVE passes from a connection of its own never wait for a
// writer, but while writers commit they seldom leave the log fully copied:
// frames are committed during each pass's copy and sync. A log that is
// never started over grows until the automatic checkpoint, which copies
// in a commit everything since the last pass: a stall of 20-40 ms for
// every writer every 4 s at 600 thoughts/s. So a round repeats its passes
// while frames keep coming, and a log that is still large at the end of
// it gets a last pass on the store's own connection, between its
// transactions; the next transaction then finds the log fully copied and
// starts it over. That pass holds the store's connection for two syncs
// and the few frames committed during the pass before it.
type checkpointer struct {
	db   *sql.DB // the checkpointer's connection
	main *sql.DB // the store's connection
	stop chan struct{}
	done chan struct{}
}

// startCheckpointer opens a second connection to path and checkpoints
// until stopped (see round; main is the store's connection); it returns
// nil when that connection cannot be opened (the automatic checkpoints
// then do the work).
func startCheckpointer(path string, main *sql.DB) *checkpointer {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)")
	if err != nil {
		return nil
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, main: main, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				c.round()
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

// bulkPasses bounds the passes of a round on the checkpointer's own
// connection.
const bulkPasses = 3

// mainPassFrames is the size of the log, in frames (pages of 4 KiB),
// above which a round that has not emptied it ends with a pass on the
// store's connection.
const mainPassFrames = 4096

// round checkpoints the log in PASSIVE passes on the checkpointer's
// connection until one finds no frame committed since the one before (the
// next transaction then starts the log over), or bulkPasses are done. A
// log still above mainPassFrames gets one more pass on the store's
// connection.
func (c *checkpointer) round() {
	last := -1
	for range bulkPasses {
		frames, err := passive(c.db)
		if err != nil || frames == last {
			return
		}
		last = frames
	}
	if last > mainPassFrames {
		_, _ = passive(c.main)
	}
}

// passive runs a PASSIVE checkpoint on db and returns the number of frames
// in the log as that connection saw it.
func passive(db *sql.DB) (int, error) {
	var busy, frames, copied int
	err := db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
	return frames, err
}
