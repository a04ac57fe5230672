package notebook

import (
	"encoding/json"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// Operation categories.
const (
	categoryManagement = "notebook-management"
	categoryCells      = "cell-operations"
	categoryExecution  = "execution"
)

// CatalogEntry describes one notebook operation: it is the resource block
// of every successful answer and an item of thoughtbox://notebook/operations.
type CatalogEntry struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Category    string          `json:"category"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Example     json.RawMessage `json:"example"`
}

// Category describes a group of operations.
type Category struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Catalog is the document thoughtbox://notebook/operations.
type Catalog struct {
	Version    string         `json:"version"`
	Operations []CatalogEntry `json:"operations"`
	Categories []Category     `json:"categories"`
}

const idProps = `"notebookId": {"type": "string", "description": "Id returned by create or load"}`

// Operations lists the operations in catalog order.
var Operations = []CatalogEntry{
	{"create", "Create notebook", "Start a new notebook, blank or from a template. A blank notebook has a title cell and a package.json cell; TypeScript notebooks also get a tsconfig.json.",
		categoryManagement,
		json.RawMessage(`{"type": "object", "properties": {"title": {"type": "string"}, "language": {"type": "string", "enum": ["javascript", "typescript"]}, "template": {"type": "string", "enum": ["sequential-feynman"]}}, "required": ["title", "language"]}`),
		json.RawMessage(`{"operation": "create", "title": "Sorting experiments", "language": "typescript"}`)},
	{"list", "List notebooks", "Every notebook of the server with its title, language, cell count and times.",
		categoryManagement, json.RawMessage(`{"type": "object", "properties": {}}`), json.RawMessage(`{"operation": "list"}`)},
	{"load", "Load notebook", "Make a new notebook from .src.md text, given inline as content or as a path inside the notebook files directory.",
		categoryManagement,
		json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "oneOf": [{"required": ["path"]}, {"required": ["content"]}]}`),
		json.RawMessage(`{"operation": "load", "path": "experiments.src.md"}`)},
	{"add_cell", "Add cell", "Insert a title, markdown or code cell; code cells need a plain filename (no folders) and take the notebook's language.",
		categoryCells,
		json.RawMessage(`{"type": "object", "properties": {` + idProps + `, "cellType": {"type": "string", "enum": ["title", "markdown", "code"]}, "content": {"type": "string"}, "filename": {"type": "string"}, "position": {"type": "integer", "minimum": 0}}, "required": ["notebookId", "cellType", "content"]}`),
		json.RawMessage(`{"operation": "add_cell", "notebookId": "k3j9x2a0qp", "cellType": "code", "content": "console.log(1 + 1)", "filename": "sum.js"}`)},
	{"update_cell", "Update cell", "Replace a cell's text or source; a code cell's earlier result is cleared.",
		categoryCells,
		json.RawMessage(`{"type": "object", "properties": {` + idProps + `, "cellId": {"type": "string"}, "content": {"type": "string"}}, "required": ["notebookId", "cellId", "content"]}`),
		json.RawMessage(`{"operation": "update_cell", "notebookId": "k3j9x2a0qp", "cellId": "p0z8w1c7d2", "content": "console.log(2 + 2)"}`)},
	{"list_cells", "List cells", "The cells of a notebook in order, code cells with their status and whether they have output or an error.",
		categoryCells,
		json.RawMessage(`{"type": "object", "properties": {` + idProps + `}, "required": ["notebookId"]}`),
		json.RawMessage(`{"operation": "list_cells", "notebookId": "k3j9x2a0qp"}`)},
	{"get_cell", "Get cell", "One cell in full, with its source and last output or error.",
		categoryCells,
		json.RawMessage(`{"type": "object", "properties": {` + idProps + `, "cellId": {"type": "string"}}, "required": ["notebookId", "cellId"]}`),
		json.RawMessage(`{"operation": "get_cell", "notebookId": "k3j9x2a0qp", "cellId": "p0z8w1c7d2"}`)},
	{"run_cell", "Run cell", "Run a code cell with Node.js (TypeScript by type stripping) or a package.json cell with npm install, in a clean environment and a time limit; a failed run is an error.",
		categoryExecution,
		json.RawMessage(`{"type": "object", "properties": {` + idProps + `, "cellId": {"type": "string"}, "timeoutMs": {"type": "integer", "minimum": 1, "description": "Time limit of this run in milliseconds (default: the server's)"}}, "required": ["notebookId", "cellId"]}`),
		json.RawMessage(`{"operation": "run_cell", "notebookId": "k3j9x2a0qp", "cellId": "p0z8w1c7d2"}`)},
	{"install_deps", "Install dependencies", "Run npm install in the notebook's folder for the dependencies of its package.json cell.",
		categoryExecution,
		json.RawMessage(`{"type": "object", "properties": {` + idProps + `, "timeoutMs": {"type": "integer", "minimum": 1}}, "required": ["notebookId"]}`),
		json.RawMessage(`{"operation": "install_deps", "notebookId": "k3j9x2a0qp"}`)},
	{"export", "Export notebook", "The notebook as .src.md text; with a path, also written to that file inside the notebook files directory.",
		categoryManagement,
		json.RawMessage(`{"type": "object", "properties": {` + idProps + `, "path": {"type": "string"}}, "required": ["notebookId"]}`),
		json.RawMessage(`{"operation": "export", "notebookId": "k3j9x2a0qp", "path": "experiments.src.md"}`)},
}

// Categories lists the operation groups.
var Categories = []Category{
	{categoryManagement, "Create, list, load and export notebooks"},
	{categoryCells, "Add, change and read cells"},
	{categoryExecution, "Run cells and install dependencies"},
}

// CatalogURI is the resource of the whole catalog; an operation's entry is
// at CatalogURI + "/" + its name.
const CatalogURI = "thoughtbox://notebook/operations"

// CatalogJSON is the catalog document as pretty JSON.
func CatalogJSON() string {
	return jsonx.PrettyString(Catalog{Version: "1.0.0", Operations: Operations, Categories: Categories})
}

func catalogEntry(name string) (CatalogEntry, bool) {
	for _, e := range Operations {
		if e.Name == name {
			return e, true
		}
	}
	return CatalogEntry{}, false
}
