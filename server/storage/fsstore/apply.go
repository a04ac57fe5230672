package fsstore

import (
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// apply applies journal records to a session in memory. chain is nil until
// the session record has been applied; apply returns the chain to use from
// then on. The nodes of records after sequence number materialized (the
// manifest's journalSeq: what the files are known to hold) are marked
// unverified: their files may lag behind. A record that repeats a sequence
// number, or a thought already loaded with other content, means two
// processes wrote the session at once; it is reported as damage, never
// dropped silently.
func (s *Store) apply(sf *sessionFiles, chain *storage.Chain, records []record, materialized int) *storage.Chain {
	for _, r := range records {
		sf.mu.Lock()
		last := sf.seq
		if r.Seq > sf.seq {
			sf.seq = r.Seq
		}
		sf.mu.Unlock()
		if r.Seq <= last {
			sf.problem(fmt.Sprintf("Journal record %d (%s) comes after record %d: two servers wrote this session at the same time, and a thought may be missing", r.Seq, r.Op, last))
		}
		switch r.Op {
		case opSession:
			if chain != nil || r.Session == nil {
				continue
			}
			sess := *r.Session
			sess.PartitionPath = sf.partition
			chain = storage.NewChain(sess, sf, s.now)
			sf.mu.Lock()
			sf.setMeta(&sess)
			sf.mu.Unlock()
		case opMeta:
			if chain != nil && r.Session != nil {
				chain.SetMetadata(*r.Session)
				sf.mu.Lock()
				sf.setMeta(r.Session)
				sf.mu.Unlock()
			}
		case opAdd:
			if chain == nil || r.Node == nil {
				continue
			}
			if !chain.Load(*r.Node) {
				if have, _ := chain.Node(r.Node.ID); !reflect.DeepEqual(have.Data, r.Node.Data) {
					sf.problem(fmt.Sprintf("Journal holds two different thoughts %s (record %d was not loaded): two servers wrote this session at the same time", r.File, r.Seq))
				}
				continue
			}
			bid := ""
			if r.Node.BranchID != nil {
				bid = *r.Node.BranchID
			}
			sf.mu.Lock()
			sf.files.add(bid, filepath.Base(r.File))
			if r.Seq > materialized {
				sf.unverified[r.Node.ID] = true
				if r.Node.Prev != nil {
					sf.unverified[*r.Node.Prev] = true
				}
			}
			sf.mu.Unlock()
		case opRewrite:
			if chain != nil && r.Node != nil {
				chain.Reload(*r.Node)
				if r.Seq > materialized {
					sf.mu.Lock()
					sf.unverified[r.Node.ID] = true
					sf.mu.Unlock()
				}
			}
		}
	}
	return chain
}
