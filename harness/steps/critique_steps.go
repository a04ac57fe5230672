package steps

import (
	"fmt"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// registerCritique binds the steps of critiques by sampling.
func registerCritique(sc *godog.ScenarioContext, w *World) {
	sc.Given(compiled(`^a reasoning session at stage cipher_loaded whose client answers sampling requests$`), w.samplingReady)
	sc.Step(compiled(`^I record a thought asking for a critique$`), w.critiqueThought)
	sc.Step(compiled(`^the answer carries a critique from the client's model$`), w.hasCritique)
	sc.Step(compiled(`^the answer carries no critique$`), w.noCritique)
	sc.Step(compiled(`^the call took less than (\d+) seconds?$`), w.tookLessThan)
}

// samplingReady opens a session whose client declares sampling and answers
// every sampling request, and brings it to cipher_loaded.
func (w *World) samplingReady() error {
	if err := w.samplingSession(); err != nil {
		return err
	}
	return w.reachStage("cipher_loaded")
}

// critiqueThought records a verbose thought with critique: true.
func (w *World) critiqueThought() error {
	w.numbers = nil
	_, err := w.thought(map[string]any{"thought": w.text("A step worth a critique"), "nextThoughtNeeded": true, "critique": true, "verbose": true})
	return err
}

func (w *World) hasCritique() error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	c, ok := m["critique"].(map[string]any)
	if !ok {
		return fmt.Errorf("no critique in %s", clipText(w.last.Text()))
	}
	if c["model"] != target.SamplingModel || c["text"] == "" || c["timestamp"] == nil {
		return fmt.Errorf("critique %v, want text, model %q and timestamp", c, target.SamplingModel)
	}
	return nil
}

func (w *World) noCritique() error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if _, ok := m["critique"]; ok {
		return fmt.Errorf("unexpected critique: %v", m["critique"])
	}
	return nil
}

func (w *World) tookLessThan(seconds int) error {
	if w.elapsed >= time.Duration(seconds)*time.Second {
		return fmt.Errorf("the call took %s", w.elapsed.Round(time.Millisecond))
	}
	return nil
}
