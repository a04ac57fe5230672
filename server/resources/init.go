package resources

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// InitURI is the entry page of the init flow.
const InitURI = "thoughtbox://init"

// InitModes are the valid values of the {mode} segment.
var InitModes = []string{"new", "continue"}

// StandardAspects are the aspects every task offers.
var StandardAspects = []string{"understanding", "design", "implementing", "debugging", "reviewing", "documenting"}

var initVars = []string{"mode", "project", "task", "aspect"}

func (c *Catalog) initTemplates() []Template {
	specs := []struct{ name, desc string }{
		{"Init Mode Selection", "Select new or continue mode"},
		{"Init Project Selection", "Select project for context"},
		{"Init Task Selection", "Select task within project"},
		{"Init Context Loaded", "Context loaded - ready to work"},
	}
	var out []Template
	for i, s := range specs {
		vars := initVars[:i+1]
		out = append(out, Template{
			URITemplate: InitURI + "/{" + strings.Join(vars, "}/{") + "}",
			Name:        s.name, Description: s.desc, MIMEType: Markdown, Listed: true,
			Read: func(_ context.Context, uri string, v map[string]string) (Contents, error) {
				var params []string
				for _, name := range vars {
					params = append(params, v[name])
				}
				text, err := c.initPage(params)
				return Contents{URI: uri, MIMEType: Markdown, Text: text}, err
			},
			Complete: c.completeInit,
		})
	}
	return out
}

// scopeIndex is what the stored sessions' project:, task: and aspect: tags
// say: projects, their tasks, and the sessions of each task.
type scopeIndex struct {
	projects []string
	tasks    map[string][]string
	sessions map[string][]storage.Session // "project/task" -> newest first
}

func (c *Catalog) index() scopeIndex {
	ix := scopeIndex{tasks: map[string][]string{}, sessions: map[string][]storage.Session{}}
	if c.deps.Store == nil {
		return ix
	}
	for _, s := range c.deps.Store.List(storage.Filter{}) {
		p, t, _ := scopeTags(s.Tags)
		if p == "" {
			continue
		}
		if !slices.Contains(ix.projects, p) {
			ix.projects = append(ix.projects, p)
		}
		if t != "" {
			if !slices.Contains(ix.tasks[p], t) {
				ix.tasks[p] = append(ix.tasks[p], t)
			}
			ix.sessions[p+"/"+t] = append(ix.sessions[p+"/"+t], s)
		}
	}
	return ix
}

func scopeTags(tags []string) (project, task, aspect string) {
	for _, t := range tags {
		switch {
		case strings.HasPrefix(t, "project:") && project == "":
			project = strings.TrimPrefix(t, "project:")
		case strings.HasPrefix(t, "task:") && task == "":
			task = strings.TrimPrefix(t, "task:")
		case strings.HasPrefix(t, "aspect:") && aspect == "":
			aspect = strings.TrimPrefix(t, "aspect:")
		}
	}
	return
}

func initLink(parts ...string) string {
	u := InitURI
	for _, p := range parts {
		u += "/" + url.PathEscape(p)
	}
	return u
}

// initPage renders the page for params (mode, project, task, aspect; as
// many as the URI had).
func (c *Catalog) initPage(params []string) (string, error) {
	for i, p := range params {
		if u, err := url.PathUnescape(p); err == nil {
			params[i] = u
		}
	}
	if len(params) == 0 {
		return entryPage, nil
	}
	mode := params[0]
	if !slices.Contains(InitModes, mode) {
		return "", fmt.Errorf("Invalid mode: %s. Must be one of: %s", clip.String(mode), strings.Join(InitModes, ", "))
	}
	if mode == "new" {
		return newWorkPage(params[1:]), nil
	}
	ix := c.index()
	switch len(params) {
	case 1:
		return projectPage(ix, c.deps.Now()), nil
	case 2:
		return c.taskPage(ix, params[1]), nil
	case 3:
		return c.aspectPage(ix, params[1], params[2]), nil
	default:
		return c.contextPage(ix, params[1], params[2], params[3]), nil
	}
}

const entryPage = "# Thoughtbox Initialization\n\n" +
	"Thoughtbox keeps your reasoning as numbered, linked thoughts that survive between conversations.\n\n" +
	"## Getting Started\n\nChoose how to begin:\n\n" +
	"- `thoughtbox://init/continue` — pick up earlier work (projects, tasks, aspects)\n" +
	"- `thoughtbox://init/new` — start fresh work with good tags\n\n" +
	"## Tools\n\n" +
	"- `thoughtbox_gateway` — every operation: `start_new` / `load_context`, then `cipher`, then `thought`, `read_thoughts`, `session`, `mental_models`...\n" +
	"- `observability_gateway` — health, metrics and sessions\n"

func newWorkPage(rest []string) string {
	project, task := "my-project", "feature-x"
	if len(rest) > 0 && rest[0] != "" {
		project = rest[0]
	}
	if len(rest) > 1 && rest[1] != "" {
		task = rest[1]
	}
	var b strings.Builder
	b.WriteString("# Start New Work\n\nTag new sessions so later work can find them. Recommended call:\n\n```json\n")
	fmt.Fprintf(&b, "{\"operation\": \"start_new\", \"args\": {\"newWork\": {\"project\": %q, \"task\": %q, \"aspect\": \"understanding\"}}}\n```\n\n", project, task)
	b.WriteString("## Tag Conventions\n\n- `project:<name>` — the codebase or effort\n- `task:<name>` — one piece of work within it\n- `aspect:<name>` — the kind of thinking\n\n")
	b.WriteString("## Standard Aspects\n\n")
	for _, a := range StandardAspects {
		b.WriteString("- " + a + "\n")
	}
	b.WriteString("\n## Why Tag\n\n- `thoughtbox://init/continue` lists your projects and tasks\n- `load_context` finds prior sessions by tag\n- analyses can compare sessions of one task\n")
	return b.String()
}

func errorPage(msg string) string {
	return "# Error\n\n" + msg + "\n\nNavigate back to:\n- `" + InitURI + "` — Start over\n"
}

func projectPage(ix scopeIndex, now time.Time) string {
	if len(ix.projects) == 0 {
		return "# No Projects Found\n\nNo stored session carries a `project:` tag yet.\n\n- `thoughtbox://init/new` — start new work\n"
	}
	var b strings.Builder
	b.WriteString("# Select Project\n\n")
	for _, p := range ix.projects {
		n, last := 0, ""
		for _, t := range ix.tasks[p] {
			for _, s := range ix.sessions[p+"/"+t] {
				n++
				if s.UpdatedAt > last {
					last = s.UpdatedAt
				}
			}
		}
		fmt.Fprintf(&b, "- `%s` — **%s** (%d sessions, last worked %s)\n", initLink("continue", p), p, n, relative(last, now))
	}
	return b.String()
}

func (c *Catalog) taskPage(ix scopeIndex, project string) string {
	if !slices.Contains(ix.projects, project) {
		return errorPage("Project not found: " + clip.String(project))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Select Task: %s\n\n", project)
	for _, t := range ix.tasks[project] {
		fmt.Fprintf(&b, "- `%s` — **%s** (%d sessions)\n", initLink("continue", project, t), t, len(ix.sessions[project+"/"+t]))
	}
	if len(ix.tasks[project]) == 0 {
		b.WriteString("No sessions of this project carry a `task:` tag.\n")
	}
	return b.String()
}

func (c *Catalog) aspectPage(ix scopeIndex, project, task string) string {
	sessions, ok := ix.sessions[project+"/"+task]
	if !ok {
		return errorPage("Task not found: " + clip.String(project) + "/" + clip.String(task))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Select Aspect: %s/%s\n\n## Previous Aspects\n\n", project, task)
	var seen []string
	for _, s := range sessions {
		if _, _, a := scopeTags(s.Tags); a != "" && !slices.Contains(seen, a) {
			seen = append(seen, a)
			fmt.Fprintf(&b, "- `%s` — %s\n", initLink("continue", project, task, a), a)
		}
	}
	if len(seen) == 0 {
		b.WriteString("(none)\n")
	}
	b.WriteString("\n## Standard Aspects\n\n")
	for _, a := range StandardAspects {
		fmt.Fprintf(&b, "- `%s`\n", initLink("continue", project, task, a))
	}
	return b.String()
}

func (c *Catalog) contextPage(ix scopeIndex, project, task, aspect string) string {
	sessions, ok := ix.sessions[project+"/"+task]
	if !ok {
		return errorPage("Task not found: " + clip.String(project) + "/" + clip.String(task))
	}
	now := c.deps.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "# Context Loaded: %s/%s (%s)\n\n## Recent Sessions\n\n", project, task, aspect)
	shown := 0
	for _, s := range sessions {
		if _, _, a := scopeTags(s.Tags); a != aspect || shown == 5 {
			continue
		}
		shown++
		fmt.Fprintf(&b, "### %s (%s)\n\n- Thoughts: %d\n- Created: %s\n- Session id: `%s` (open with `load_context` or `session get`)\n", s.Title, relative(s.UpdatedAt, now), s.ThoughtCount, s.CreatedAt, s.ID)
		if c.deps.Store != nil {
			if ch, err := c.deps.Store.Get(s.ID); err == nil {
				if last := ch.LastMain(1); len(last) == 1 {
					fmt.Fprintf(&b, "\n> %s\n", clip.String(last[0].Data.Thought))
				}
			}
		}
		b.WriteString("\n")
	}
	if shown == 0 {
		b.WriteString("No earlier session of this task has this aspect.\n\n")
	}
	b.WriteString("## Tools Available\n\n- `thoughtbox_gateway` `load_context` — load one of these sessions\n- `thoughtbox_gateway` `start_new` — start a new session with these tags\n\n")
	b.WriteString("## Suggested Start\n\n```json\n")
	fmt.Fprintf(&b, "{\"sessionTitle\": %q, \"tags\": [%q, %q, %q]}\n```\n", task+": "+aspect, "project:"+project, "task:"+task, "aspect:"+aspect)
	return b.String()
}

func relative(ts string, now time.Time) string {
	t, err := time.Parse(storage.TimeLayout, ts)
	if err != nil {
		return "at an unknown time"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days ago", int(d.Hours()/24))
	}
}

// completeInit offers modes, then the projects, tasks and aspects the
// stored sessions name.
func (c *Catalog) completeInit(_ context.Context, variable string, chosen map[string]string) []string {
	switch variable {
	case "mode":
		return InitModes
	case "project":
		return c.index().projects
	case "task":
		return c.index().tasks[chosen["project"]]
	case "aspect":
		return StandardAspects
	}
	return nil
}
