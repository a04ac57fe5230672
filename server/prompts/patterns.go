package prompts

import (
	"encoding/json"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/resources"
)

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// subagentSummarize renders the subagent-summarize prompt: the call to make
// for the request, then the pattern guide.
func subagentSummarize(args map[string]string) (string, error) {
	req := strings.TrimSpace(args["request"])
	if req == "" {
		req = "retrieve and summarize Thoughtbox sessions"
	}
	desc := req
	if r := []rune(desc); len(r) > 50 {
		desc = string(r[:50])
	}
	task := "Using the Thoughtbox tools (thoughtbox_gateway: session list/search/get, read_thoughts), do the following and answer with a concise summary only, never the raw thoughts: " + req +
		". Include session ids and thought numbers for anything you cite; report sessions you could not load."
	var b strings.Builder
	b.WriteString("# Action: Run a Subagent Query\n\n**Request**: " + quoteJSON(req) + "\n\n")
	b.WriteString("Start a sub-agent (for example Claude Code's Task tool) with this call, and use only its answer:\n\n```json\n")
	b.WriteString("{\n  \"tool\": \"Task\",\n  \"description\": " + quoteJSON(desc) + ",\n  \"prompt\": " + quoteJSON(task) + "\n}\n```\n\n")
	b.WriteString("## Why a Sub-agent?\n\nThe sub-agent reads the sessions in its own context, which is discarded afterwards; only the summary reaches this conversation.\n\n---\n\n")
	b.WriteString(resources.SubagentSummarize)
	return b.String(), nil
}

// evolutionCheck renders the evolution-check prompt: the checker call for
// the new thought, how to apply its answer, then the pattern guide.
func evolutionCheck(args map[string]string) (string, error) {
	nt := strings.TrimSpace(args["newThought"])
	if nt == "" {
		nt = "[the new thought]"
	}
	prior := strings.TrimSpace(args["priorThoughts"])
	if prior == "" {
		if sid := strings.TrimSpace(args["sessionId"]); sid != "" {
			prior = "[read the prior thoughts of session " + sid + " with session get or read_thoughts]"
		} else {
			prior = "[the prior thoughts, as S1: ... lines, or a sessionId to read them from]"
		}
	}
	shown := nt
	if r := []rune(shown); len(r) > 100 {
		shown = string(r[:100]) + "..."
	}
	task := "New insight: " + nt + "\n\nPrior thoughts:\n" + prior +
		"\n\nWhich prior thoughts should be revised in light of the new insight? Answer only with JSON: [{\"thoughtNumber\": n, \"reason\": \"...\"}], or [] if none."
	var b strings.Builder
	b.WriteString("# Action: Run an Evolution Check\n\n**New Thought**: " + quoteJSON(shown) + "\n\n")
	b.WriteString("Start a small, fast sub-agent with this call:\n\n```json\n")
	b.WriteString("{\n  \"tool\": \"Task\",\n  \"description\": \"Evolution check\",\n  \"model\": \"haiku\",\n  \"prompt\": " + quoteJSON(task) + "\n}\n```\n\n")
	b.WriteString("## Then Apply the Revisions\n\nFor each entry of the answer, record a revision:\n\n```json\n{\"operation\": \"thought\", \"args\": {\"thought\": \"S<k>|R|S<n>|<the corrected statement>\", \"isRevision\": true, \"revisesThought\": <n>, \"nextThoughtNeeded\": true}}\n```\n\n---\n\n")
	b.WriteString(resources.EvolutionCheck)
	return b.String(), nil
}
