package prompts

import (
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/mentalmodels"
	"github.com/thoughtbox-bench/tbbench/server/resources"
)

// observabilityOperations are the operations of observability_gateway.
var observabilityOperations = []string{"health", "metrics", "metrics_range", "sessions", "session_info", "alerts", "dashboard_url"}

// assets renders the list_mcp_assets overview from the live catalogs, so
// it cannot drift from what the server offers.
func assets(catalog *resources.Catalog, s *Set) string {
	var b strings.Builder
	b.WriteString("# Thoughtbox MCP Server - Capabilities\n\n## Overview\n\nA reasoning workspace for agents: numbered, linked thoughts that persist, with mental models, notebooks and a knowledge graph around them.\n\n")
	b.WriteString("## Tools\n\n### thoughtbox_gateway\n\nOne tool, `{operation, args}`. Operations unlock in stages (entry → init_complete → cipher_loaded):\n\n| Operation | Stage needed |\n|-----------|--------------|\n")
	for _, op := range gateway.Table {
		fmt.Fprintf(&b, "| `%s` | %s |\n", op.Name, op.Required)
	}
	b.WriteString("\n### observability_gateway\n\nNo stage needed. Operations: " + code(observabilityOperations) + ".\n\n")
	b.WriteString("## Mental Models\n\nThrough `thoughtbox_gateway` with operation `mental_models`; sub-operations " + code(mentalmodels.Operations) + ".\n\n| Tag | Models |\n|-----|--------|\n")
	for _, t := range mentalmodels.Tags {
		var names []string
		for _, m := range mentalmodels.ModelsWithTag(t.Name) {
			names = append(names, m.Name)
		}
		fmt.Fprintf(&b, "| %s | %s |\n", t.Name, strings.Join(names, ", "))
	}
	b.WriteString("\n## Prompts\n\n")
	for _, p := range s.Prompts {
		fmt.Fprintf(&b, "- `%s` — %s\n", p.Name, firstSentence(p.Description))
	}
	b.WriteString("\n## Resources\n\n")
	for _, r := range catalog.Resources {
		fmt.Fprintf(&b, "- `%s` — %s\n", r.URI, r.Name)
	}
	b.WriteString("\n## Resource Templates\n\n")
	listed := 0
	for _, t := range catalog.Templates {
		if t.Listed {
			listed++
			fmt.Fprintf(&b, "- `%s` — %s\n", t.URITemplate, t.Name)
		}
	}
	b.WriteString("\n## Quick Start\n\n```json\n{\"operation\": \"start_new\", \"args\": {\"newWork\": {\"project\": \"demo\", \"task\": \"first-look\"}}}\n{\"operation\": \"cipher\"}\n{\"operation\": \"thought\", \"args\": {\"thought\": \"S1|H|—|my first hypothesis\", \"nextThoughtNeeded\": true}}\n{\"operation\": \"mental_models\", \"args\": {\"operation\": \"get_model\", \"model\": \"five-whys\"}}\n```\n\n")
	fmt.Fprintf(&b, "## Summary\n\n| Item | Count |\n|------|-------|\n| Tools | 2 |\n| Gateway operations | %d |\n| Mental models operations | %d |\n| Mental models | %d |\n| Tags | %d |\n| Prompts | %d |\n| Resources | %d |\n| Resource templates | %d |\n",
		len(gateway.Table), len(mentalmodels.Operations), len(mentalmodels.Models), len(mentalmodels.Tags), len(s.Prompts), len(catalog.Resources), listed)
	return b.String()
}

func code(names []string) string { return "`" + strings.Join(names, "`, `") + "`" }

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
