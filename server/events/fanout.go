package events

// Fanout returns an emitter that gives every event to each of emitters in
// turn, leaving out nil and Nop ones: Nop when none is left, the emitter
// itself when one is. Each emitter must itself never block (Stream and the
// Observatory only queue), so neither can hold up the other or a thought.
func Fanout(emitters ...Emitter) Emitter {
	var live multi
	for _, e := range emitters {
		if e == nil {
			continue
		}
		if _, off := e.(nop); off {
			continue
		}
		live = append(live, e)
	}
	switch len(live) {
	case 0:
		return Nop
	case 1:
		return live[0]
	}
	return live
}

type multi []Emitter

func (m multi) Emit(ev Event) {
	for _, e := range m {
		e.Emit(ev)
	}
}
