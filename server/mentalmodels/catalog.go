// Package mentalmodels is the catalog of the fifteen structured-reasoning
// models and their nine tags, the mental_models gateway operation family
// (get_model, list_models, list_tags, get_capability_graph) and the JSON and
// markdown documents behind the thoughtbox://mental-models resources.
//
// The catalog is fixed at build time: every listing uses the order of Tags
// and Models. Model bodies are markdown files embedded from models/.
package mentalmodels

import (
	"embed"
	"strings"
)

// Tag is one of the nine categories a model can carry.
type Tag struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Model is one mental model: its identity, its tags (in tag order) and its
// markdown body (no front matter).
type Model struct {
	Name        string
	Title       string
	Description string
	Tags        []string
	Content     string
}

// Tags lists the nine tags in their fixed order.
var Tags = []Tag{
	{"debugging", "Finding and fixing issues in code, logic, or systems"},
	{"planning", "Breaking down work, sequencing tasks, project organization"},
	{"decision-making", "Choosing between options under uncertainty"},
	{"risk-analysis", "Identifying what could go wrong and how to prevent it"},
	{"estimation", "Making reasonable guesses with limited information"},
	{"prioritization", "Deciding what to do first, resource allocation"},
	{"communication", "Explaining clearly to humans, documentation"},
	{"architecture", "System design, component relationships, structure"},
	{"validation", "Checking assumptions, testing hypotheses, verification"},
}

//go:embed models/*.md
var bodies embed.FS

// Models lists the fifteen models in their fixed order.
var Models = withContent([]Model{
	{Name: "rubber-duck", Title: "Rubber Duck Debugging", Description: "Explain a problem step-by-step to find issues through articulation", Tags: []string{"debugging", "communication"}},
	{Name: "five-whys", Title: "Five Whys", Description: "Iteratively ask why to drill down from symptoms to root cause", Tags: []string{"debugging", "validation"}},
	{Name: "pre-mortem", Title: "Pre-mortem Analysis", Description: "Imagine failure has occurred, then work backward to identify causes", Tags: []string{"risk-analysis", "planning"}},
	{Name: "assumption-surfacing", Title: "Assumption Surfacing", Description: "Explicitly identify and examine hidden assumptions", Tags: []string{"validation", "planning"}},
	{Name: "steelmanning", Title: "Steelmanning", Description: "Present the strongest version of opposing views before deciding", Tags: []string{"decision-making", "validation"}},
	{Name: "trade-off-matrix", Title: "Trade-off Matrix", Description: "Map competing concerns explicitly to make balanced decisions", Tags: []string{"decision-making", "prioritization"}},
	{Name: "fermi-estimation", Title: "Fermi Estimation", Description: "Make reasonable order-of-magnitude estimates with limited data", Tags: []string{"estimation"}},
	{Name: "abstraction-laddering", Title: "Abstraction Laddering", Description: "Move up and down levels of abstraction to find the right framing", Tags: []string{"architecture", "communication"}},
	{Name: "decomposition", Title: "Decomposition", Description: "Break complex problems into smaller, tractable pieces", Tags: []string{"planning", "architecture"}},
	{Name: "adversarial-thinking", Title: "Adversarial Thinking", Description: "Adopt an attacker mindset to identify vulnerabilities", Tags: []string{"risk-analysis", "validation"}},
	{Name: "opportunity-cost", Title: "Opportunity Cost Analysis", Description: "Consider what you give up by choosing one option over others", Tags: []string{"decision-making", "prioritization"}},
	{Name: "constraint-relaxation", Title: "Constraint Relaxation", Description: "Temporarily remove constraints to explore solution space, then reapply", Tags: []string{"planning", "architecture"}},
	{Name: "time-horizon-shifting", Title: "Time Horizon Shifting", Description: "Evaluate decisions across multiple time scales (1 week, 1 year, 10 years)", Tags: []string{"planning", "decision-making"}},
	{Name: "impact-effort-grid", Title: "Impact/Effort Grid", Description: "Prioritize by plotting options on impact vs effort axes", Tags: []string{"prioritization"}},
	{Name: "inversion", Title: "Inversion", Description: "Instead of seeking success, identify and avoid paths to failure", Tags: []string{"risk-analysis", "planning"}},
})

func withContent(ms []Model) []Model {
	for i := range ms {
		b, err := bodies.ReadFile("models/" + ms[i].Name + ".md")
		if err != nil {
			panic("mentalmodels: no body for " + ms[i].Name)
		}
		ms[i].Content = strings.TrimSpace(string(b))
	}
	return ms
}

// ModelNames lists the models' names in catalog order.
func ModelNames() []string {
	out := make([]string, len(Models))
	for i, m := range Models {
		out[i] = m.Name
	}
	return out
}

// TagNames lists the tags' names in catalog order.
func TagNames() []string {
	out := make([]string, len(Tags))
	for i, t := range Tags {
		out[i] = t.Name
	}
	return out
}

// FindModel returns the model with this name.
func FindModel(name string) (Model, bool) {
	for _, m := range Models {
		if m.Name == name {
			return m, true
		}
	}
	return Model{}, false
}

// FindTag returns the tag with this name.
func FindTag(name string) (Tag, bool) {
	for _, t := range Tags {
		if t.Name == name {
			return t, true
		}
	}
	return Tag{}, false
}

// HasTag reports whether the model carries the tag.
func (m Model) HasTag(tag string) bool {
	for _, t := range m.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// ModelsWithTag lists, in catalog order, the models carrying the tag.
func ModelsWithTag(tag string) []Model {
	var out []Model
	for _, m := range Models {
		if m.HasTag(tag) {
			out = append(out, m)
		}
	}
	return out
}
