package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// exportFile reads the file a server named in exportPath. It never falls
// back to exporting the session another way: the scenarios that call it
// run only where the harness knows the server's export directory, so the
// file must be on this machine.
func (w *World) exportFile(path string) (map[string]any, error) {
	if path == "" {
		return nil, errors.New("no exportPath to follow")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the file exportPath names can not be read: %v", err)
	}
	w.rec.Notef("read export file %s", path)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the file at exportPath (%s) is not a JSON object: %v", path, err)
	}
	return doc, nil
}

// fileHoldsAnswer checks D25: the file a manual JSON export names holds the
// export the answer returned, exportedAt included (it is the same export),
// apart from crossReferences, which the answer may add.
func (w *World) fileHoldsAnswer() error {
	m, err := w.answer()
	if err != nil {
		return err
	}
	if w.last.IsError {
		return fmt.Errorf("%s failed: %s", w.lastOp, clipText(w.last.Text()))
	}
	path, _ := m["exportPath"].(string)
	content, ok := m["content"].(string)
	if !ok {
		return fmt.Errorf("the export answer has no content: %s", clipText(w.last.Text()))
	}
	var returned map[string]any
	if err := json.Unmarshal([]byte(content), &returned); err != nil {
		return fmt.Errorf("the export answer's content is not a JSON object: %v", err)
	}
	file, err := w.exportFile(path)
	if err != nil {
		return err
	}
	delete(returned, "crossReferences")
	delete(file, "crossReferences")
	if d := firstDifference("$", returned, file); d != "" {
		return fmt.Errorf("the file at exportPath differs from the export the answer returned, at %s (the answer's value first, the file's second)", d)
	}
	return nil
}

// fileHoldsClosed checks that the file a closing thought's answer names is
// the closed session's linked export: it equals an export of the session
// made now (nothing changed it since), apart from when each was made
// (exportedAt, and the session's updatedAt and lastAccessedAt) and
// crossReferences.
func (w *World) fileHoldsClosed() error {
	file, err := w.exportFile(w.vars["exportPath"])
	if err != nil {
		return err
	}
	sid, err := w.sid()
	if err != nil {
		return err
	}
	if s, _ := file["session"].(map[string]any); s == nil || s["id"] != sid {
		return fmt.Errorf("the file at exportPath is not an export of the closed session %s", sid)
	}
	res, err := w.mustSucceed("session", map[string]any{"operation": "export", "sessionId": sid, "format": "json"})
	if err != nil {
		return err
	}
	m, err := res.JSON()
	if err != nil {
		return err
	}
	content, _ := m["content"].(string)
	var now map[string]any
	if err := json.Unmarshal([]byte(content), &now); err != nil {
		return fmt.Errorf("the session export's content is not a JSON object: %v", err)
	}
	for _, doc := range []map[string]any{file, now} {
		delete(doc, "exportedAt")
		delete(doc, "crossReferences")
		if s, ok := doc["session"].(map[string]any); ok {
			delete(s, "updatedAt")
			delete(s, "lastAccessedAt")
		}
	}
	if d := firstDifference("$", now, file); d != "" {
		return fmt.Errorf("the file at exportPath differs from the closed session's export, at %s (the export's value first, the file's second)", d)
	}
	return nil
}
