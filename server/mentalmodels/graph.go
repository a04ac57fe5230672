package mentalmodels

import (
	"strconv"
	"strings"
)

// Entity is a node of the capability graph, in the shape a knowledge-graph
// memory server's create_entities call takes.
type Entity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

// Relation is an edge of the capability graph.
type Relation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

// Graph is the get_capability_graph answer.
type Graph struct {
	Description string     `json:"description"`
	Entities    []Entity   `json:"entities"`
	Relations   []Relation `json:"relations"`
	Usage       GraphUsage `json:"usage"`
}

// GraphUsage tells an agent how to load the graph into a memory server.
type GraphUsage struct {
	Step1 string `json:"step1"`
	Step2 string `json:"step2"`
	Step3 string `json:"step3"`
}

// CapabilityGraph describes the server, its operation families, the tags
// and the models as entities and relations: 5 tool-level entities, one per
// tag, one per model; "provides" edges from the server to the four
// operation families, "tagged_with" edges from every model to its tags and
// "contains" edges from mental_models_tool to every model.
func CapabilityGraph() Graph {
	g := Graph{
		Description: "Capability graph of the Thoughtbox MCP server. Load it into a knowledge-graph memory server (create_entities, then create_relations) to let an agent look up which reasoning tools and mental models fit a task.",
		Entities: []Entity{
			{"thoughtbox_server", "mcp_server", []string{
				"Thoughtbox MCP server: a structured workspace for step-by-step reasoning by LLM agents",
				"It stores and organises reasoning; the thinking itself is the agent's",
				"Reached through the thoughtbox_gateway tool (operations: thought, notebook, mental_models, knowledge, session and more) and the observability_gateway tool",
			}},
			{"thoughtbox_tool", "tool", []string{
				"The thought operation records one numbered step of a reasoning chain",
				"Supports forward and backward numbering, branches, revisions and interleaved tool use",
				"Parameters: thought, thoughtNumber, totalThoughts, nextThoughtNeeded",
				"Optional: isRevision, revisesThought, branchFromThought, branchId, includeGuide, verbose",
			}},
			{"notebook_tool", "toolhost", []string{
				"Literate-programming notebooks with JavaScript or TypeScript code cells",
				"Operations: create, list, load, add_cell, update_cell, run_cell, install_deps, list_cells, get_cell, export",
				"Offers the sequential-feynman learning template",
			}},
			{"mental_models_tool", "toolhost", []string{
				"Catalog of structured reasoning frameworks with step-by-step processes",
				"Operations: get_model, list_models, list_tags, get_capability_graph",
				"Contains " + strconv.Itoa(len(Models)) + " mental models across " + strconv.Itoa(len(Tags)) + " tags",
			}},
			{"knowledge_tool", "toolhost", []string{
				"Persistent knowledge graph of entities, observations and relations (when enabled on the server)",
				"Actions: create_entity, get_entity, list_entities, add_observation, create_relation, query_graph, stats",
				"Survives restarts: an append-only graph.jsonl is the source of truth",
				"Reached through thoughtbox_gateway with operation knowledge",
			}},
		},
		Usage: GraphUsage{
			Step1: "Create every entity of the entities array in your knowledge-graph memory server (e.g. its create_entities tool)",
			Step2: "Create every edge of the relations array (e.g. its create_relations tool)",
			Step3: "Search the graph (e.g. search_nodes) for a tag or a problem word to find a fitting model, then call mental_models get_model",
		},
	}
	for _, t := range Tags {
		var names []string
		for _, m := range ModelsWithTag(t.Name) {
			names = append(names, m.Name)
		}
		g.Entities = append(g.Entities, Entity{"tag_" + t.Name, "tag", []string{t.Description, "Models with this tag: " + strings.Join(names, ", ")}})
	}
	for _, m := range Models {
		g.Entities = append(g.Entities, Entity{"model_" + m.Name, "mental_model", []string{m.Title, m.Description, "Tags: " + strings.Join(m.Tags, ", ")}})
	}
	for _, e := range g.Entities[1:5] {
		g.Relations = append(g.Relations, Relation{"thoughtbox_server", e.Name, "provides"})
	}
	for _, m := range Models {
		for _, t := range m.Tags {
			g.Relations = append(g.Relations, Relation{"model_" + m.Name, "tag_" + t, "tagged_with"})
		}
	}
	for _, m := range Models {
		g.Relations = append(g.Relations, Relation{"mental_models_tool", "model_" + m.Name, "contains"})
	}
	return g
}
