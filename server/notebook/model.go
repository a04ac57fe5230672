// Package notebook implements the gateway's "notebook" operation: literate
// JavaScript/TypeScript notebooks made of title, markdown, package.json and
// code cells, their .src.md encoding (the upstream Srcbook format), and the
// execution of code cells in a scrubbed, time-limited process group.
package notebook

import "fmt"

// Languages of a notebook.
const (
	JavaScript = "javascript"
	TypeScript = "typescript"
)

// Cell types.
const (
	TypeTitle       = "title"
	TypeMarkdown    = "markdown"
	TypePackageJSON = "package.json"
	TypeCode        = "code"
)

// Cell statuses.
const (
	StatusIdle      = "idle"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// Cell is one cell of a notebook. Which fields are used depends on Type:
// title and markdown cells have Text; package.json and code cells have
// Filename, Source, Status and Output or Error; code cells have Language.
type Cell struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Language string `json:"language,omitempty"`
	Filename string `json:"filename,omitempty"`
	Source   string `json:"source,omitempty"`
	Status   string `json:"status,omitempty"`
	Output   string `json:"output,omitempty"`
	Error    string `json:"error,omitempty"`
}

// executable reports whether the cell runs (code and package.json cells).
func (c *Cell) executable() bool { return c.Type == TypeCode || c.Type == TypePackageJSON }

// Notebook is a notebook: its cells, language, optional tsconfig.json text
// and its creation and last change times in epoch milliseconds.
type Notebook struct {
	ID        string  `json:"id"`
	Cells     []*Cell `json:"cells"`
	Language  string  `json:"language"`
	TSConfig  string  `json:"tsconfig.json,omitempty"`
	CreatedAt int64   `json:"createdAt"`
	UpdatedAt int64   `json:"updatedAt"`
}

// Title is the text of the first title cell, or "Untitled".
func (n *Notebook) Title() string {
	for _, c := range n.Cells {
		if c.Type == TypeTitle {
			return c.Text
		}
	}
	return "Untitled"
}

func (n *Notebook) cell(id string) *Cell {
	for _, c := range n.Cells {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// existingCell returns the cell with id, refusing an id n does not hold.
func (n *Notebook) existingCell(id string) (*Cell, error) {
	if c := n.cell(id); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("Cell %s not found in notebook %s", id, n.ID)
}

// clone returns a deep copy of n.
func (n *Notebook) clone() *Notebook {
	out := *n
	out.Cells = make([]*Cell, len(n.Cells))
	for i, c := range n.Cells {
		cc := *c
		out.Cells[i] = &cc
	}
	return &out
}

// defaultPackageJSON is the package.json cell of a new blank notebook.
const defaultPackageJSON = "{\n  \"type\": \"module\",\n  \"dependencies\": {}\n}"

// defaultTSConfig is the tsconfig.json of a new TypeScript notebook.
const defaultTSConfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ES2022",
    "moduleResolution": "node",
    "esModuleInterop": true,
    "skipLibCheck": true,
    "strict": true,
    "resolveJsonModule": true,
    "allowSyntheticDefaultImports": true,
    "forceConsistentCasingInFileNames": true
  }
}`
