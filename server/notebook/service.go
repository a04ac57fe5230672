package notebook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// Defaults of Config.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultOutputLimit = 1 << 20
	// MaxTimeout is the longest time limit a call may ask for.
	MaxTimeout = 10 * time.Minute
)

// Config configures the notebook service.
type Config struct {
	// Dir holds the notebooks' workspaces, one folder per notebook.
	Dir string
	// Persist keeps the notebooks across restarts (notebook.json in each
	// workspace); without it Dir is removed by Close.
	Persist bool
	// FilesDir is the folder load and export paths are confined to.
	FilesDir string
	// Node and NPM are the executables that run cells ("" searches: see
	// Toolchain).
	Node, NPM string
	// Timeout is a run's default time limit (DefaultTimeout when 0).
	Timeout time.Duration
	// OutputLimit is how many bytes of each of stdout and stderr a run
	// keeps (DefaultOutputLimit when 0).
	OutputLimit int
}

// Service is the notebook operation family.
type Service struct {
	cfg   Config
	st    *store
	files filesDir
	tools *Toolchain
}

// Open returns the service over cfg.Dir, reading back the notebooks a
// previous run saved when cfg.Persist is set.
func Open(cfg Config) (*Service, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.OutputLimit <= 0 {
		cfg.OutputLimit = DefaultOutputLimit
	}
	st, err := openStore(cfg.Dir, cfg.Persist)
	if err != nil {
		return nil, fmt.Errorf("notebook directory %s: %w", cfg.Dir, err)
	}
	return &Service{cfg: cfg, st: st, files: filesDir{dir: cfg.FilesDir}, tools: &Toolchain{Node: cfg.Node, NPM: cfg.NPM}}, nil
}

// Close removes the workspaces of a service that does not persist them.
func (s *Service) Close() error {
	if s.cfg.Persist {
		return nil
	}
	return os.RemoveAll(s.cfg.Dir)
}

// Stats returns how many notebooks there are and how many have a cell
// running (for system://status).
func (s *Service) Stats() (count, active int) {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for id := range s.st.books {
		count++
		for key := range s.st.running {
			if strings.HasPrefix(key, id+"/") {
				active++
				break
			}
		}
	}
	return count, active
}

// Handler is the gateway handler of the "notebook" operation.
func (s *Service) Handler() gateway.Handler {
	return func(ctx context.Context, _ *gateway.Conn, args json.RawMessage) reply.Reply { return s.Call(ctx, args) }
}

// failure is the body of a refused call or a failed run.
type failure struct {
	Success   bool       `json:"success"`
	Error     string     `json:"error"`
	Execution *Execution `json:"execution,omitempty"`
}

func fail(err error) reply.Reply { return reply.ErrorJSON(failure{Error: err.Error()}) }

// Call runs one notebook call; args is the gateway's args object.
func (s *Service) Call(ctx context.Context, raw json.RawMessage) reply.Reply {
	a := args{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return reply.ErrorText("Notebook operation requires args with operation field")
		}
	}
	op, ok := a.str("operation")
	if !ok {
		return reply.ErrorText("Notebook operation requires args with operation field")
	}
	var result any
	var err error
	switch op {
	case "create":
		result, err = s.create(a)
	case "list":
		result = s.listNotebooks()
	case "load":
		result, err = s.load(a)
	case "add_cell":
		result, err = s.addCell(a)
	case "update_cell":
		result, err = s.updateCell(a)
	case "list_cells":
		result, err = s.listCells(a)
	case "get_cell":
		result, err = s.getCell(a)
	case "run_cell":
		return s.runCell(ctx, a)
	case "install_deps":
		return s.installDeps(ctx, a)
	case "export":
		result, err = s.export(a)
	default:
		names := make([]string, len(Operations))
		for i, e := range Operations {
			names[i] = e.Name
		}
		return fail(fmt.Errorf("Unknown notebook operation: %s (valid operations: %s)", clipName(op), strings.Join(names, ", ")))
	}
	if err != nil {
		return fail(err)
	}
	return success(op, result)
}

func clipName(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// success is the two-block answer: the result and the operation's catalog
// entry.
func success(op string, result any) reply.Reply {
	r := reply.JSON(result)
	if e, ok := catalogEntry(op); ok {
		r = r.WithResource(CatalogURI+"/"+op, "application/json", jsonx.PrettyString(e))
	}
	return r
}

// args is the decoded args object.
type args map[string]json.RawMessage

// str returns the string value of key; ok is false when it is missing or
// not a string.
func (a args) str(key string) (string, bool) {
	raw, present := a[key]
	if !present {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (a args) has(key string) bool {
	raw, ok := a[key]
	return ok && string(raw) != "null"
}

// requiredString returns key's value, refusing a missing, non-string or
// empty one.
func (a args) requiredString(key string) (string, error) {
	s, ok := a.str(key)
	if !ok || s == "" {
		return "", fmt.Errorf("%s is required and must be a string", key)
	}
	return s, nil
}

// requiredStrings returns the values of keys, each read as requiredString
// does, in order: the first one refused is the error.
func (a args) requiredStrings(keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, key := range keys {
		s, err := a.requiredString(key)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// wholeNumber returns key's value as a whole number; ok is false when the
// key is absent.
func (a args) wholeNumber(key string) (n int64, ok bool, err error) {
	if !a.has(key) {
		return 0, false, nil
	}
	var f float64
	if json.Unmarshal(a[key], &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, true, fmt.Errorf("%s must be a whole number", key)
	}
	return int64(f), true, nil
}

func checkLanguage(lang string, ok bool) error {
	if !ok || (lang != JavaScript && lang != TypeScript) {
		return errors.New(`language must be "javascript" or "typescript"`)
	}
	return nil
}

// singleLine refuses title text with a line break: it would not survive
// the .src.md encoding, whose titles are one line.
func singleLine(field, s string) error {
	if strings.ContainsAny(s, "\r\n") {
		return fmt.Errorf("%s must be a single line (a title cell is one line of .src.md)", field)
	}
	return nil
}

// notebookSummary is a notebook in create and load answers.
type notebookSummary struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Language  string `json:"language"`
	CellCount int    `json:"cellCount"`
	CreatedAt int64  `json:"createdAt"`
}

type notebookAnswer struct {
	Success  bool            `json:"success"`
	Notebook notebookSummary `json:"notebook"`
}

func summary(n *Notebook) notebookAnswer {
	return notebookAnswer{Success: true, Notebook: notebookSummary{ID: n.ID, Title: n.Title(), Language: n.Language, CellCount: len(n.Cells), CreatedAt: n.CreatedAt}}
}

func (s *Service) create(a args) (any, error) {
	title, err := a.requiredString("title")
	if err != nil {
		return nil, err
	}
	if err := singleLine("title", title); err != nil {
		return nil, err
	}
	lang, ok := a.str("language")
	if err := checkLanguage(lang, ok); err != nil {
		return nil, err
	}
	var n *Notebook
	if a.has("template") {
		tpl, ok := a.str("template")
		if !ok {
			return nil, errors.New("template must be a string")
		}
		if tpl != TemplateSequentialFeynman {
			return nil, fmt.Errorf("Invalid template: %q. Available templates: %s", clipName(tpl), strings.Join(Templates, ", "))
		}
		if n, err = fromTemplate(tpl, title, lang, s.st.now()); err != nil {
			return nil, err
		}
	} else {
		n = &Notebook{Language: lang, Cells: []*Cell{
			{Type: TypeTitle, Text: title},
			{Type: TypePackageJSON, Filename: "package.json", Source: defaultPackageJSON, Status: StatusIdle},
		}}
		if lang == TypeScript {
			n.TSConfig = defaultTSConfig
		}
	}
	stored, err := s.st.add(n)
	if err != nil {
		return nil, err
	}
	return summary(stored), nil
}

type listItem struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Language  string `json:"language"`
	CellCount int    `json:"cellCount"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt"`
}

type listAnswer struct {
	Success   bool       `json:"success"`
	Notebooks []listItem `json:"notebooks"`
}

func (s *Service) listNotebooks() any {
	out := listAnswer{Success: true, Notebooks: []listItem{}}
	for _, n := range s.st.list() {
		out.Notebooks = append(out.Notebooks, listItem{n.ID, n.Title(), n.Language, len(n.Cells), n.CreatedAt, n.UpdatedAt})
	}
	return out
}

func (s *Service) load(a args) (any, error) {
	path, hasPath := a.str("path")
	content, hasContent := a.str("content")
	switch {
	case !hasPath && !hasContent:
		return nil, errors.New("Either 'path' or 'content' parameter is required")
	case hasPath && hasContent:
		return nil, errors.New("Cannot provide both 'path' and 'content' parameters. Choose one.")
	case hasPath:
		var err error
		if content, err = s.files.read(path); err != nil {
			return nil, err
		}
	}
	n, err := Decode(content)
	if err != nil {
		return nil, err
	}
	for _, c := range n.Cells {
		if c.Type == TypeTitle {
			if err := singleLine("title", c.Text); err != nil {
				return nil, err
			}
		}
	}
	stored, err := s.st.add(n)
	if err != nil {
		return nil, err
	}
	return summary(stored), nil
}

type exportAnswer struct {
	Success bool   `json:"success"`
	Content string `json:"content"`
	Path    string `json:"path,omitempty"`
}

func (s *Service) export(a args) (any, error) {
	id, err := a.requiredString("notebookId")
	if err != nil {
		return nil, err
	}
	path, hasPath := a.str("path")
	if a.has("path") && !hasPath {
		return nil, errors.New("path must be a string if provided")
	}
	encoded, err := s.st.with(id, func(n *Notebook) (any, error) { return Encode(n), nil })
	if err != nil {
		return nil, err
	}
	content := encoded.(string)
	if hasPath {
		if err := s.files.write(path, content); err != nil {
			return nil, err
		}
	}
	return exportAnswer{Success: true, Content: content, Path: path}, nil
}
