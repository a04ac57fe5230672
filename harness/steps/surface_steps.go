package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// surfaceState is what the resource, prompt and completion steps remember
// within a scenario.
type surfaceState struct {
	list        []string // the names, URIs or URI templates last listed
	readErr     error    // the JSON-RPC error of the last read, prompt get or completion
	promptText  string
	completions []string
}

// The valid values the mental_models errors must list (upstream spec §1).
var validLists = map[string][]string{
	"models": {"rubber-duck", "five-whys", "pre-mortem", "assumption-surfacing", "steelmanning", "trade-off-matrix", "fermi-estimation",
		"abstraction-laddering", "decomposition", "adversarial-thinking", "opportunity-cost", "constraint-relaxation", "time-horizon-shifting",
		"impact-effort-grid", "inversion"},
	"tags":       {"debugging", "planning", "decision-making", "risk-analysis", "estimation", "prioritization", "communication", "architecture", "validation"},
	"operations": {"get_model", "list_models", "list_tags", "get_capability_graph"},
}

func registerSurface(sc *godog.ScenarioContext, w *World) {
	sc.Step(compiled(`^the error lists the valid (models|tags|operations)$`), w.errorListsValid)
	sc.Step(compiled(`^the answer's "([^"]*)" names are "([^"]*)"$`), w.answerFieldNames)
	sc.Step(compiled(`^I list the (resources|resource templates|prompts)$`), w.listSurface)
	sc.Step(compiled(`^the list is, in order:$`), w.listIs)
	sc.Step(compiled(`^the list contains, in this order:$`), w.listContains)
	sc.Step(compiled(`^the list has (\d+) entries$`), w.listHas)
	sc.Step(compiled(`^reading the resource "([^"]*)" fails$`), w.readFails)
	sc.Step(compiled(`^reading the resource "([^"]*)" succeeds$`), w.readResource)
	sc.Step(compiled(`^the resource JSON "([^"]*)" is (.+)$`), w.resourceJSONIs)
	sc.Step(compiled(`^the resource JSON "([^"]*)" has (\d+) items$`), w.resourceJSONItems)
	sc.Step(compiled(`^the resource text contains "([^"]*)"$`), w.resourceContains)
	sc.Step(compiled(`^I get the prompt "([^"]*)"$`), func(name string) error { return w.getPrompt(name, nil) })
	sc.Step(compiled(`^I get the prompt "([^"]*)" with:$`), w.getPrompt)
	sc.Step(compiled(`^I try to get the prompt "([^"]*)" with:$`), w.tryPrompt)
	sc.Step(compiled(`^the prompt text contains "([^"]*)"$`), w.promptContains)
	sc.Step(compiled(`^the request fails naming "([^"]*)"$`), w.requestFailsNaming)
	sc.Step(compiled(`^the request fails$`), w.requestFails)
	sc.Step(compiled(`^I complete the argument "([^"]*)" of the prompt "([^"]*)" from "([^"]*)"$`), w.completePrompt)
	sc.Step(compiled(`^I complete the variable "([^"]*)" of the template "([^"]*)" from "([^"]*)" with:$`), w.completeTemplate)
	sc.Step(compiled(`^the completions are "([^"]*)"$`), w.completionsAre)
}

// errorListsValid finds, anywhere in the error's JSON, an array of strings
// holding exactly the valid values (in any order): the wording and the field
// name are the server's own.
func (w *World) errorListsValid(kind string) error {
	if err := w.callFails(); err != nil {
		return err
	}
	want := slices.Sorted(slices.Values(validLists[kind]))
	var v any
	if err := json.Unmarshal([]byte(w.last.Text()), &v); err != nil {
		return fmt.Errorf("the error is not JSON, so it lists no %s: %s", kind, clipText(w.last.Text()))
	}
	if found := findList(v, want); !found {
		return fmt.Errorf("the error does not list the %d valid %s: %s", len(want), kind, clipText(w.last.Text()))
	}
	return nil
}

func findList(v any, want []string) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if findList(e, want) {
				return true
			}
		}
	case []any:
		var got []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return false
			}
			got = append(got, s)
		}
		slices.Sort(got)
		return slices.Equal(got, want)
	}
	return false
}

// answerFieldNames compares the "name" fields of an array of the answer, in order.
func (w *World) answerFieldNames(path, names string) error {
	got, err := w.lookup(path)
	if err != nil {
		return err
	}
	items, _ := got.([]any)
	var have []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		s, _ := m["name"].(string)
		have = append(have, s)
	}
	if strings.Join(have, ", ") != names {
		return fmt.Errorf("%s names are %q, want %q", path, strings.Join(have, ", "), names)
	}
	return nil
}

func (w *World) listSurface(kind string) error {
	method, field, key := "resources/list", "resources", "uri"
	switch kind {
	case "resource templates":
		method, field, key = "resources/templates/list", "resourceTemplates", "uriTemplate"
	case "prompts":
		method, field, key = "prompts/list", "prompts", "name"
	}
	raw, err := w.request(method, map[string]any{})
	if err != nil {
		return err
	}
	var res map[string][]map[string]any
	if err := json.Unmarshal(raw, &map[string]any{}); err != nil {
		return err
	}
	_ = json.Unmarshal(raw, &res)
	w.surface.list = nil
	for _, it := range res[field] {
		s, _ := it[key].(string)
		w.surface.list = append(w.surface.list, s)
	}
	return nil
}

func docLines(doc *godog.DocString) []string {
	var out []string
	for _, l := range strings.Split(doc.Content, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (w *World) listIs(doc *godog.DocString) error {
	if want := docLines(doc); !slices.Equal(w.surface.list, want) {
		return fmt.Errorf("the list is\n%s\nwant\n%s", strings.Join(w.surface.list, "\n"), strings.Join(want, "\n"))
	}
	return nil
}

// listContains checks that the lines appear in the list in this order
// (other entries may come between and around them).
func (w *World) listContains(doc *godog.DocString) error {
	i := 0
	for _, want := range docLines(doc) {
		for i < len(w.surface.list) && w.surface.list[i] != want {
			i++
		}
		if i == len(w.surface.list) {
			return fmt.Errorf("%q is missing or out of order in\n%s", want, strings.Join(w.surface.list, "\n"))
		}
		i++
	}
	return nil
}

func (w *World) listHas(n int) error {
	if len(w.surface.list) != n {
		return fmt.Errorf("the list has %d entries, want %d: %s", len(w.surface.list), n, strings.Join(w.surface.list, ", "))
	}
	return nil
}

func (w *World) readFails(uri string) error {
	uri = w.expand(uri)
	raw, err := w.request("resources/read", map[string]any{"uri": uri})
	var rpc *target.RPCError
	if errors.As(err, &rpc) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("reading %s succeeded: %s", uri, clipText(string(raw)))
}

func (w *World) resourceLookup(path string) (any, error) {
	var cur any
	if err := json.Unmarshal([]byte(w.resource), &cur); err != nil {
		return nil, fmt.Errorf("the resource is not JSON: %s", clipText(w.resource))
	}
	return walk(cur, path, "the resource", w.resource)
}

func (w *World) resourceJSONIs(path, literal string) error {
	got, err := w.resourceLookup(path)
	if err != nil {
		return err
	}
	return w.jsonEqual(path, got, literal)
}

func (w *World) resourceJSONItems(path string, n int) error {
	got, err := w.resourceLookup(path)
	if err != nil {
		return err
	}
	if items, ok := got.([]any); !ok || len(items) != n {
		return fmt.Errorf("%s has %v, want %d items", path, clipText(fmt.Sprint(got)), n)
	}
	return nil
}

func (w *World) resourceContains(s string) error {
	if !strings.Contains(w.resource, w.expand(s)) {
		return fmt.Errorf("the resource does not contain %q: %s", s, clipText(w.resource))
	}
	return nil
}

func (w *World) promptRequest(name string, doc *godog.DocString) (json.RawMessage, error) {
	params := map[string]any{"name": name}
	if doc != nil {
		raw, err := w.args(doc.Content)
		if err != nil {
			return nil, err
		}
		params["arguments"] = raw
	}
	return w.request("prompts/get", params)
}

func (w *World) getPrompt(name string, doc *godog.DocString) error {
	raw, err := w.promptRequest(name, doc)
	if err != nil {
		return err
	}
	var res struct {
		Messages []struct {
			Role    string `json:"role"`
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Messages) == 0 || res.Messages[0].Content.Text == "" {
		return fmt.Errorf("prompts/get %s: no message with text: %s", name, clipText(string(raw)))
	}
	w.surface.promptText = res.Messages[0].Content.Text
	return nil
}

func (w *World) tryPrompt(name string, doc *godog.DocString) error {
	_, err := w.promptRequest(name, doc)
	var rpc *target.RPCError
	if err != nil && !errors.As(err, &rpc) {
		return err
	}
	w.surface.readErr = err
	return nil
}

func (w *World) promptContains(s string) error {
	if !strings.Contains(w.surface.promptText, w.expand(s)) {
		return fmt.Errorf("the prompt text does not contain %q: %s", s, clipText(w.surface.promptText))
	}
	return nil
}

// requestFails checks that the last request got a JSON-RPC error.
func (w *World) requestFails() error {
	var rpc *target.RPCError
	if !errors.As(w.surface.readErr, &rpc) {
		return fmt.Errorf("the request did not fail")
	}
	return nil
}

// requestFailsNaming checks that the last request got a JSON-RPC error
// whose message names the value.
func (w *World) requestFailsNaming(name string) error {
	var rpc *target.RPCError
	if !errors.As(w.surface.readErr, &rpc) {
		return fmt.Errorf("the request did not fail")
	}
	if !strings.Contains(rpc.Message, name) {
		return fmt.Errorf("the error does not name %q: %s", name, clipText(rpc.Message))
	}
	return nil
}

func (w *World) complete(ref map[string]any, arg, value string, chosen json.RawMessage) error {
	params := map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}}
	if chosen != nil {
		params["context"] = map[string]any{"arguments": chosen}
	}
	raw, err := w.request("completion/complete", params)
	if err != nil {
		return err
	}
	var res struct {
		Completion struct {
			Values []string `json:"values"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	w.surface.completions = res.Completion.Values
	return nil
}

func (w *World) completePrompt(arg, prompt, value string) error {
	return w.complete(map[string]any{"type": "ref/prompt", "name": prompt}, arg, value, nil)
}

func (w *World) completeTemplate(variable, tmpl, value string, doc *godog.DocString) error {
	chosen, err := w.args(doc.Content)
	if err != nil {
		return err
	}
	return w.complete(map[string]any{"type": "ref/resource", "uri": tmpl}, variable, value, chosen)
}

func (w *World) completionsAre(list string) error {
	if got := strings.Join(w.surface.completions, ", "); got != list {
		return fmt.Errorf("the completions are %q, want %q", got, list)
	}
	return nil
}
