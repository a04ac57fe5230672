package notebook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

type cellRef struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type cellAnswer struct {
	Success bool    `json:"success"`
	Cell    cellRef `json:"cell"`
}

// cellTypes lists the types add_cell accepts.
const cellTypes = "title, markdown, code"

func (s *Service) addCell(a args) (any, error) {
	req, err := a.requiredStrings("notebookId", "cellType")
	if err != nil {
		return nil, err
	}
	position, hasPosition, err := a.wholeNumber("position")
	if err != nil {
		return nil, err
	}
	return s.st.with(req[0], func(n *Notebook) (any, error) {
		return s.insertCell(n, a, req[1], position, hasPosition)
	})
}

// insertCell adds a cell of cellType to n, at position when hasPosition
// and the position is in range, else at the end; the store is locked.
func (s *Service) insertCell(n *Notebook, a args, cellType string, position int64, hasPosition bool) (any, error) {
	content, _ := a.str("content")
	cell := &Cell{Type: cellType}
	switch cellType {
	case TypeTitle, TypeMarkdown:
		if content == "" {
			return nil, fmt.Errorf("content is required for %s cells", cellType)
		}
		if cellType == TypeTitle {
			if err := singleLine("content", content); err != nil {
				return nil, err
			}
		}
		cell.Text = content
	case TypeCode:
		if content == "" {
			return nil, errors.New("content is required for code cells")
		}
		filename, _ := a.str("filename")
		if filename == "" {
			return nil, errors.New("filename is required for code cells")
		}
		if err := checkFilenames(append(append([]*Cell{}, n.Cells...), &Cell{Type: TypeCode, Filename: filename})); err != nil {
			return nil, err
		}
		cell.Language, cell.Filename, cell.Source, cell.Status = n.Language, filename, content, StatusIdle
	default:
		return nil, fmt.Errorf("Unsupported cell type: %s (cellType must be one of: %s)", clipName(cellType), cellTypes)
	}
	cell.ID = newID()
	if err := s.st.writeCellFile(n, cell); err != nil {
		return nil, err
	}
	next := n.clone()
	if hasPosition && position >= 0 && position <= int64(len(next.Cells)) {
		next.Cells = append(next.Cells[:position], append([]*Cell{cell}, next.Cells[position:]...)...)
	} else {
		next.Cells = append(next.Cells, cell)
	}
	next.UpdatedAt = s.st.millis()
	if err := s.st.save(next); err != nil {
		if cell.Type == TypeCode {
			_ = os.Remove(filepath.Join(s.st.dir(n.ID), "src", cell.Filename))
		}
		return nil, err
	}
	s.st.books[n.ID] = next
	return cellAnswer{Success: true, Cell: cellRef{cell.ID, cell.Type}}, nil
}

func (s *Service) updateCell(a args) (any, error) {
	req, err := a.requiredStrings("notebookId", "cellId", "content")
	if err != nil {
		return nil, err
	}
	return s.st.with(req[0], func(n *Notebook) (any, error) { return s.replaceCell(n, req[1], req[2]) })
}

// replaceCell gives cell cellID of n the content; the store is locked.
func (s *Service) replaceCell(n *Notebook, cellID, content string) (any, error) {
	id := n.ID
	if _, err := n.existingCell(cellID); err != nil {
		return nil, err
	}
	if s.st.running[id+"/"+cellID] {
		return nil, fmt.Errorf("Cell %s is running; update it when the run has ended", cellID)
	}
	next := n.clone()
	c := next.cell(cellID)
	switch c.Type {
	case TypeTitle:
		if err := singleLine("content", content); err != nil {
			return nil, err
		}
		c.Text = content
	case TypeMarkdown:
		c.Text = content
	default:
		// A new source makes the last result stale.
		c.Source, c.Status, c.Output, c.Error = content, StatusIdle, "", ""
		if err := s.st.writeCellFile(next, c); err != nil {
			return nil, err
		}
	}
	next.UpdatedAt = s.st.millis()
	if err := s.st.save(next); err != nil {
		_ = s.st.writeCellFile(n, n.cell(cellID))
		return nil, err
	}
	s.st.books[id] = next
	return cellAnswer{Success: true, Cell: cellRef{c.ID, c.Type}}, nil
}

// cellSummary is a cell as list_cells shows it.
func cellSummary(c *Cell) jsonx.Object {
	var o jsonx.Object
	o.Set("id", c.ID)
	o.Set("type", c.Type)
	switch c.Type {
	case TypeTitle, TypeMarkdown:
		o.Set("text", c.Text)
	case TypePackageJSON:
		o.Set("filename", c.Filename)
		o.Set("status", c.Status)
	case TypeCode:
		o.Set("filename", c.Filename)
		o.Set("language", c.Language)
		o.Set("status", c.Status)
		o.Set("hasOutput", c.Output != "")
		o.Set("hasError", c.Error != "")
	}
	return o
}

// cellDetail is a cell in full, as get_cell shows it.
func cellDetail(c *Cell) jsonx.Object {
	var o jsonx.Object
	o.Set("id", c.ID)
	o.Set("type", c.Type)
	switch c.Type {
	case TypeTitle, TypeMarkdown:
		o.Set("text", c.Text)
		return o
	case TypeCode:
		o.Set("language", c.Language)
	}
	o.Set("filename", c.Filename)
	o.Set("source", c.Source)
	o.Set("status", c.Status)
	if c.Output != "" {
		o.Set("output", c.Output)
	}
	if c.Error != "" {
		o.Set("error", c.Error)
	}
	return o
}

type cellsAnswer struct {
	Success bool           `json:"success"`
	Cells   []jsonx.Object `json:"cells"`
}

func (s *Service) listCells(a args) (any, error) {
	id, err := a.requiredString("notebookId")
	if err != nil {
		return nil, err
	}
	return s.st.with(id, func(n *Notebook) (any, error) {
		out := cellsAnswer{Success: true, Cells: []jsonx.Object{}}
		for _, c := range n.Cells {
			out.Cells = append(out.Cells, cellSummary(c))
		}
		return out, nil
	})
}

type cellDetailAnswer struct {
	Success bool         `json:"success"`
	Cell    jsonx.Object `json:"cell"`
}

func (s *Service) getCell(a args) (any, error) {
	req, err := a.requiredStrings("notebookId", "cellId")
	if err != nil {
		return nil, err
	}
	return s.st.with(req[0], func(n *Notebook) (any, error) {
		c, err := n.existingCell(req[1])
		if err != nil {
			return nil, err
		}
		return cellDetailAnswer{Success: true, Cell: cellDetail(c)}, nil
	})
}
