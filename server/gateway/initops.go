package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/content"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

const markdown = "text/markdown"

// scope is a project / task / aspect selection.
type scope struct {
	Project string `json:"project"`
	Task    string `json:"task"`
	Aspect  string `json:"aspect"`
}

func (s scope) tags() []string {
	var t []string
	if s.Project != "" {
		t = append(t, "project:"+s.Project)
	}
	if s.Task != "" {
		t = append(t, "task:"+s.Task)
	}
	if s.Aspect != "" {
		t = append(t, "aspect:"+s.Aspect)
	}
	return t
}

func (s scope) path(sep, empty string) string {
	var parts []string
	for _, p := range []string{s.Project, s.Task, s.Aspect} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return empty
	}
	return strings.Join(parts, sep)
}

// scopeOf reads project/task/aspect from a session's tags.
func scopeOf(s storage.Session) scope {
	var sc scope
	for _, t := range s.Tags {
		switch {
		case strings.HasPrefix(t, "project:") && sc.Project == "":
			sc.Project = strings.TrimPrefix(t, "project:")
		case strings.HasPrefix(t, "task:") && sc.Task == "":
			sc.Task = strings.TrimPrefix(t, "task:")
		case strings.HasPrefix(t, "aspect:") && sc.Aspect == "":
			sc.Aspect = strings.TrimPrefix(t, "aspect:")
		}
	}
	return sc
}

// decodeArgs decodes an init operation's args object into v (a nil args
// leaves v zero).
func decodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("invalid args: %v", err)
	}
	return nil
}

// getState reports the connection's navigation state.
func (g *Gateway) getState(_ context.Context, c *Conn, _ json.RawMessage) reply.Reply {
	nav := c.navState()
	lines := []string{fmt.Sprintf("Connection stage: stage_%d", nav.level)}
	for _, kv := range [][2]string{{"Project", nav.project}, {"Task", nav.task}, {"Aspect", nav.aspect}, {"Active session", nav.activeSessionID}} {
		if kv[1] != "" {
			lines = append(lines, kv[0]+": "+kv[1])
		}
	}
	var md strings.Builder
	md.WriteString("# Navigation State\n\n")
	switch nav.level {
	case 1:
		md.WriteString("## Nothing Selected Yet\n\nStart with one of these operations:\n\n- `list_sessions` - see earlier reasoning sessions\n- `navigate` - pick a project, task or aspect\n- `start_new` - begin new work")
	case 2:
		md.WriteString("## Choosing a Context\n\n")
		sc := scope{nav.project, nav.task, nav.aspect}
		if sc.Project != "" {
			md.WriteString("**Selected**: " + sc.path(" / ", "") + "\n\n")
		}
		md.WriteString("Next:\n- `navigate` - narrow the selection\n- `load_context` - continue a session\n- `start_new` - begin new work")
	default:
		md.WriteString("## Context Ready\n\nCall `cipher`, then record thoughts with the `thought` operation.")
		if nav.activeSessionID != "" {
			md.WriteString("\n\nContinuing session: " + nav.activeSessionID)
		}
	}
	if projects := g.projects(); len(projects) > 0 {
		md.WriteString("\n\n## Known Projects\n\n")
		for i, p := range projects {
			if i == 10 {
				break
			}
			fmt.Fprintf(&md, "- **%s** (%d sessions, last: %s)\n", p.name, p.sessions, relativeTime(p.last))
		}
	}
	return reply.PlainText(strings.Join(lines, "\n")).WithResource("thoughtbox://init/state", markdown, strings.TrimRight(md.String(), "\n"))
}

type projectSummary struct {
	name     string
	sessions int
	last     string
}

// projects summarises the sessions tagged project:<name>, most recent first.
func (g *Gateway) projects() []projectSummary {
	var out []projectSummary
	index := map[string]int{}
	for _, s := range g.store.List(storage.Filter{}) {
		p := scopeOf(s).Project
		if p == "" {
			continue
		}
		i, ok := index[p]
		if !ok {
			index[p] = len(out)
			out = append(out, projectSummary{name: p, last: s.UpdatedAt})
			i = len(out) - 1
		}
		out[i].sessions++
	}
	return out
}

type listSessionsArgs struct {
	Filters struct {
		Project string `json:"project"`
		Task    string `json:"task"`
		Aspect  string `json:"aspect"`
		Search  string `json:"search"`
		Limit   *int   `json:"limit"`
	} `json:"filters"`
}

// listSessions lists sessions tagged with any of the filter's project, task
// or aspect, optionally narrowed by a search string.
func (g *Gateway) listSessions(_ context.Context, c *Conn, args json.RawMessage) reply.Reply {
	var a listSessionsArgs
	if err := decodeArgs(args, &a); err != nil {
		return reply.ErrorText(err.Error())
	}
	limit := 20
	if a.Filters.Limit != nil {
		if *a.Filters.Limit < 1 {
			return reply.ErrorText("filters.limit must be at least 1")
		}
		limit = *a.Filters.Limit
	}
	c.setNav(func(n *navigation) {
		if n.level == 1 {
			n.level = 2
		}
	})
	sc := scope{a.Filters.Project, a.Filters.Task, a.Filters.Aspect}
	found := g.store.List(storage.Filter{AnyTags: sc.tags(), Search: a.Filters.Search, Limit: limit})
	var desc []string
	for _, kv := range [][2]string{{"project", sc.Project}, {"task", sc.Task}, {"aspect", sc.Aspect}, {"search", a.Filters.Search}} {
		if kv[1] != "" {
			desc = append(desc, kv[0]+"="+kv[1])
		}
	}
	if len(desc) == 0 {
		desc = []string{"none"}
	}
	var md strings.Builder
	md.WriteString("# Sessions\n\n")
	if len(found) == 0 {
		md.WriteString("No sessions match these filters.")
	}
	for _, s := range found {
		fmt.Fprintf(&md, "## %s\n\n- **ID**: %s\n", s.Title, s.ID)
		ss := scopeOf(s)
		for _, kv := range [][2]string{{"Project", ss.Project}, {"Task", ss.Task}, {"Aspect", ss.Aspect}} {
			if kv[1] != "" {
				fmt.Fprintf(&md, "- **%s**: %s\n", kv[0], kv[1])
			}
		}
		fmt.Fprintf(&md, "- **Thoughts**: %d\n- **Last updated**: %s\n\n", s.ThoughtCount, relativeTime(s.UpdatedAt))
	}
	text := fmt.Sprintf("Found %d sessions (filters: %s)", len(found), strings.Join(desc, ", "))
	return reply.PlainText(text).WithResource("thoughtbox://init/sessions", markdown, strings.TrimRight(md.String(), "\n"))
}

// navigate selects a project, task and aspect.
func (g *Gateway) navigate(_ context.Context, c *Conn, args json.RawMessage) reply.Reply {
	var a struct {
		Target *scope `json:"target"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return reply.ErrorText(err.Error())
	}
	if a.Target == nil {
		return reply.ErrorText("Navigate operation requires target parameter")
	}
	t := *a.Target
	c.setNav(func(n *navigation) {
		if n.level == 1 {
			n.level = 2
		}
		n.project, n.task, n.aspect = t.Project, t.Task, t.Aspect
	})
	if t.Project != "" && len(g.store.List(storage.Filter{AnyTags: []string{"project:" + t.Project}, Limit: 1})) == 0 {
		return reply.ErrorText("Project not found: " + clip.String(t.Project))
	}
	if t.Project != "" && t.Task != "" && len(g.store.List(storage.Filter{AnyTags: []string{"task:" + t.Task}, Limit: 1})) == 0 {
		return reply.ErrorText("Task not found: " + clip.String(t.Project) + "/" + clip.String(t.Task))
	}
	related := g.store.List(storage.Filter{AnyTags: t.tags()})
	var md strings.Builder
	fmt.Fprintf(&md, "# Navigation Context\n\n**Current path**: %s\n\n## Related Sessions\n\n", t.path(" → ", "root"))
	if len(related) == 0 {
		md.WriteString("None yet.")
	}
	for i, s := range related {
		if i == 5 {
			break
		}
		fmt.Fprintf(&md, "- **%s** (%s)\n  ID: %s\n", s.Title, relativeTime(s.UpdatedAt), s.ID)
	}
	text := fmt.Sprintf("Navigated to: %s\nFound %d related sessions", t.path("/", "root"), len(related))
	return reply.PlainText(text).WithResource("thoughtbox://init/context/"+orDefault(t.Project, "root"), markdown, strings.TrimRight(md.String(), "\n"))
}

// loadContext checks a session's files and makes it the connection's
// current reasoning session.
func (g *Gateway) loadContext(_ context.Context, c *Conn, args json.RawMessage) reply.Reply {
	var a struct {
		SessionID string `json:"sessionId"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return reply.ErrorText(err.Error())
	}
	if a.SessionID == "" {
		return reply.ErrorText("load_context operation requires sessionId parameter")
	}
	chain, err := c.Ledger.Load(a.SessionID)
	var loadErr *ledger.LoadError
	switch {
	case errors.As(err, &loadErr):
		return reply.ErrorText(loadErr.Error())
	case errors.Is(err, storage.ErrSessionNotFound):
		return reply.ErrorText("Session not found: " + clip.String(a.SessionID))
	case err != nil:
		return reply.ErrorText(err.Error())
	}
	s := chain.Session()
	sc := scopeOf(s)
	c.setNav(func(n *navigation) {
		n.level = 3
		n.project, n.task, n.aspect, n.activeSessionID = sc.Project, sc.Task, sc.Aspect, s.ID
	})
	recent := chain.LastMain(5)
	mainCount, _ := chain.Len()
	text := fmt.Sprintf("Loaded session: %s\nID: %s\nThoughts: %d", s.Title, s.ID, mainCount)
	if len(recent) > 0 {
		text += fmt.Sprintf("\nRecent context: %d thoughts included below", len(recent))
	}
	for _, kv := range [][2]string{{"Project", sc.Project}, {"Task", sc.Task}, {"Aspect", sc.Aspect}} {
		if kv[1] != "" {
			text += "\n" + kv[0] + ": " + kv[1]
		}
	}
	text += fmt.Sprintf("\n\nSession state restored:\n- Thoughts: %d\n- Branches: %d\n- Next thought will be #%d",
		mainCount, s.BranchCount, chain.MaxMain()+1)
	var md strings.Builder
	fmt.Fprintf(&md, "# Session Context\n\n## %s\n\n- **ID**: %s\n- **Thoughts**: %d\n- **Branches**: %d\n- **Created**: %s\n- **Updated**: %s\n",
		s.Title, s.ID, mainCount, s.BranchCount, s.CreatedAt, s.UpdatedAt)
	if len(s.Tags) > 0 {
		fmt.Fprintf(&md, "- **Tags**: %s\n", strings.Join(s.Tags, ", "))
	}
	if len(recent) > 0 {
		fmt.Fprintf(&md, "\n## Recent Thoughts (%d-%d of %d)\n", recent[0].Data.ThoughtNumber, recent[len(recent)-1].Data.ThoughtNumber, mainCount)
		for _, n := range recent {
			fmt.Fprintf(&md, "\n### Thought %d", n.Data.ThoughtNumber)
			if n.Data.RevisesThought != nil {
				fmt.Fprintf(&md, " (revises #%d)", *n.Data.RevisesThought)
			}
			fmt.Fprintf(&md, "\n\n%s\n", n.Data.Thought)
		}
	}
	md.WriteString("\n## Next Steps\n\nCall `cipher` to load the notation, then continue with `thought`; a thought without thoughtNumber continues after the highest main-chain number.\n\n---\n\n")
	md.WriteString(content.Stage1Operations)
	return reply.PlainText(text).WithResource("thoughtbox://session/"+s.ID+"/context", markdown, md.String())
}

// startNew begins new work on a project. The connection's current reasoning
// session ends; the next thought starts a new one.
func (g *Gateway) startNew(_ context.Context, c *Conn, args json.RawMessage) reply.Reply {
	var a struct {
		NewWork *struct {
			scope
			Domain string `json:"domain"`
		} `json:"newWork"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return reply.ErrorText(err.Error())
	}
	root, bound := c.BoundRoot()
	if a.NewWork == nil && !bound {
		return reply.ErrorText("start_new operation requires newWork parameter with at least project, or bind a root first using bind_root")
	}
	var sc scope
	if a.NewWork != nil {
		sc = a.NewWork.scope
	}
	// A bound root is the project boundary: its name is the project.
	var rootNote string
	if bound {
		rootNote = fmt.Sprintf("\nProject %q derived from bound root: %s", root.Name, root.URI)
		if sc.Project != "" && sc.Project != root.Name {
			rootNote += fmt.Sprintf("\nProject input %q was ignored because bound root %q is active.", sc.Project, root.Name)
		}
		sc.Project = root.Name
	}
	if sc.Project == "" {
		return reply.ErrorText("start_new requires a project name. Either provide newWork.project or bind a root first using bind_root.")
	}
	c.Ledger.SetCurrent(nil)
	c.setNav(func(n *navigation) {
		n.level = 3
		n.project, n.task, n.aspect, n.activeSessionID = sc.Project, sc.Task, sc.Aspect, ""
	})
	// One pass over the sessions tagged with any of the scope's tags (the
	// project's among them) gives every count and the related sessions.
	related := g.store.List(storage.Filter{AnyTags: sc.tags()})
	projectTag, taskTag := "project:"+sc.Project, "task:"+sc.Task
	projectMatches, taskMatches, aspectMatches := 0, 0, len(related)
	for _, s := range related {
		project := slices.Contains(s.Tags, projectTag)
		if project {
			projectMatches++
		}
		if sc.Task != "" && (project || slices.Contains(s.Tags, taskTag)) {
			taskMatches++
		}
	}
	text := fmt.Sprintf("Initialized new work context: %s%s\nRelated prior sessions:\n- Project matches: %d\n- Task matches: %d%s\n- Aspect matches: %d%s",
		sc.path("/", ""), rootNote, projectMatches, taskMatches, unless(sc.Task, " (task not specified)"), aspectMatches, unless(sc.Aspect, " (aspect not specified)"))
	var md strings.Builder
	fmt.Fprintf(&md, "# New Work Context\n\n## Work Area\n\n- **Project**: %s\n", sc.Project)
	if sc.Task != "" {
		fmt.Fprintf(&md, "- **Task**: %s\n", sc.Task)
	}
	if sc.Aspect != "" {
		fmt.Fprintf(&md, "- **Aspect**: %s\n", sc.Aspect)
	}
	md.WriteString("\n## Getting Started\n\nCall `cipher` next; it unlocks `thought`, `read_thoughts` and `get_structure`. Your first thought starts a new reasoning session (pass `sessionTitle` and `sessionTags` to name and tag it).\n\n---\n\n")
	md.WriteString(content.Stage1Operations)
	if len(related) > 0 {
		md.WriteString("\n\n## Related Prior Work\n\n")
		for i, s := range related {
			if i == 5 {
				break
			}
			fmt.Fprintf(&md, "- **%s** (%s) - ID: %s\n", s.Title, relativeTime(s.UpdatedAt), s.ID)
		}
	}
	return reply.PlainText(text).WithResource("thoughtbox://init/new/"+sc.Project, markdown, strings.TrimRight(md.String(), "\n"))
}

func unless(v, s string) string {
	if v == "" {
		return s
	}
	return ""
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// relativeTime renders an ISO timestamp as "3 minutes ago" and the like.
func relativeTime(iso string) string {
	t, err := time.Parse(time.RFC3339Nano, iso)
	if err != nil {
		return iso
	}
	d := time.Since(t)
	plural := func(n int, unit string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s ago", unit)
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case d > 30*24*time.Hour:
		return t.UTC().Format("2006-01-02")
	case d >= 24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day")
	case d >= time.Hour:
		return plural(int(d/time.Hour), "hour")
	case d >= time.Minute:
		return plural(int(d/time.Minute), "minute")
	}
	return "just now"
}
