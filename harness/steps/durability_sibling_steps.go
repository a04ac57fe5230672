package steps

import (
	"context"
	"errors"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// startSibling starts a second process of the server on the same data.
func (w *World) startSibling() error {
	s, ok := target.As[target.Sibling](w.env.Target)
	if !ok {
		return errors.New("the harness can not start a second process of this target")
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	tg, err := s.Sibling(ctx)
	if err != nil {
		return fmt.Errorf("starting a second server process: %w", err)
	}
	w.durability.sibling = tg
	w.rec.Notef("second server process: %s", tg.Info().Address)
	return nil
}

// openOnSibling opens a named MCP session with the second process. Its
// traffic does not pass the run's sidecar.
func (w *World) openOnSibling(name string) error {
	if w.durability.sibling == nil {
		return errors.New("no second server process started")
	}
	return w.connectTo(w.durability.sibling, name, target.ConnOptions{Bypass: true})
}

// siblingStopsThenReadBack stops the second process, restarts the server and
// reads every acknowledged thought back.
func (w *World) siblingStopsThenReadBack() error {
	w.dropConns("before the second process stops")
	if w.durability.sibling != nil {
		if err := w.durability.sibling.Close(); err != nil {
			return fmt.Errorf("stopping the second server process: %w", err)
		}
		w.durability.sibling = nil
	}
	if err := w.restart(false, nil); err != nil {
		return err
	}
	return w.readBack()
}
