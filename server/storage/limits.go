package storage

import "math"

// MaxThoughtNumber is the highest thought number, of the main chain or of a
// branch, the ledger accepts or assigns (2,147,483,647): the same limit
// applies to thoughtNumber, totalThoughts, branchFromThought,
// revisesThought and to every read that names a thought.
const MaxThoughtNumber = math.MaxInt32

func limitErr() error {
	return ruleErr("the thought number limit (%d) is reached: this chain cannot take another auto-numbered thought; start a new reasoning session", MaxThoughtNumber)
}

// CheckFirst reports whether e would be accepted as the first thought of a
// new, empty session, without creating one: a refused first thought must
// leave nothing behind.
func CheckFirst(e Entry) error {
	_, _, _, _, err := NewChain(Session{}, nil, nil).plan(e)
	return err
}
