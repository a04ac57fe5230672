package steps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
)

// keepExport keeps the last export under a name.
func (w *World) keepExport(name string) error {
	if w.export == nil {
		return errors.New("no export read yet")
	}
	w.durability.kept[name] = w.export
	return nil
}

var exportedAtField = regexp.MustCompile(`"exportedAt"\s*:\s*"[^"]*"`)

// sameExportApartFromExportedAt compares two exports byte for byte once
// their exportedAt values are masked, and names the first JSON path where
// they differ.
func sameExportApartFromExportedAt(a, b []byte) error {
	ma := exportedAtField.ReplaceAll(a, []byte(`"exportedAt":"*"`))
	mb := exportedAtField.ReplaceAll(b, []byte(`"exportedAt":"*"`))
	if bytes.Equal(ma, mb) {
		return nil
	}
	var va, vb any
	if json.Unmarshal(ma, &va) != nil || json.Unmarshal(mb, &vb) != nil {
		return errors.New("the exports differ and one of them is not JSON")
	}
	if path := firstDifference("$", va, vb); path != "" {
		return fmt.Errorf("the exports differ at %s", path)
	}
	return errors.New("the exports hold the same JSON but differ in their bytes (order of keys, spacing)")
}

// firstDifference returns the first path where two JSON values differ, with
// both values, or "" when they are equal.
func firstDifference(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		both := maps.Clone(x)
		maps.Copy(both, y)
		for _, k := range slices.Sorted(maps.Keys(both)) {
			if d := firstDifference(path+"."+k, x[k], y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if d := firstDifference(path+"["+strconv.Itoa(i)+"]", x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return fmt.Sprintf("%s: %s before, %s after", path, clipText(string(ja)), clipText(string(jb)))
}

func (w *World) exportEquals(name string) error {
	before, ok := w.durability.kept[name]
	if !ok {
		return fmt.Errorf("no export kept as %q", name)
	}
	if w.export == nil {
		return errors.New("no export read yet")
	}
	return sameExportApartFromExportedAt(before, w.export)
}
