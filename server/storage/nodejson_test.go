package storage_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// fill sets every field of v (a pointer to a struct) to a non-zero value
// built from s, recursively, so that a field added to the types later is
// covered too.
func fill(v reflect.Value, s string, n int) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s, n)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), s, n+i)
		}
	case reflect.String:
		v.SetString(s)
	case reflect.Int:
		v.SetInt(int64(n))
	case reflect.Bool:
		v.SetBool(n%2 == 0)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), s, n)
		fill(v.Index(1), "b", n)
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// plainNode has Node's fields but not its methods, so encoding/json renders
// it by reflection.
type plainNode storage.Node

// TestNodeJSON compares the hand-written node encodings with encoding/json:
// pretty as in thought files, compact and HTML-escaped as in the journal.
func TestNodeJSON(t *testing.T) {
	texts := []string{
		"plain", "", "quote \" backslash \\ slash /", "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"<b>&amp;</b>", "unicode é 漢字 🙂", "bad \xff\xfe utf8 \xc3", "sep \u2028 \u2029", `{"json":[1,2]}`,
	}
	var nodes []storage.Node
	for i, s := range texts {
		var full storage.Node
		fill(reflect.ValueOf(&full).Elem(), s, i)
		nodes = append(nodes, full)
		// The usual shapes: optional fields absent, next empty or nil.
		one := 1
		nodes = append(nodes, storage.Node{ID: "sid:1", Data: storage.ThoughtData{Thought: s, ThoughtNumber: 1, TotalThoughts: 3,
			NextThoughtNeeded: true, Timestamp: "2026-11-22T07:52:18.435Z"}, Next: []string{}},
			storage.Node{ID: "sid:alt:2", Data: storage.ThoughtData{Thought: s, BranchFromThought: &one, BranchID: "alt"}})
	}
	for _, n := range nodes {
		want, err := jsonx.Pretty(plainNode(n))
		if err != nil {
			t.Fatal(err)
		}
		if got := n.AppendPrettyJSON(nil); string(got) != string(want) {
			t.Errorf("pretty:\n got %s\nwant %s", got, want)
		}
		if got, _ := jsonx.Pretty(n); string(got) != string(want) {
			t.Errorf("jsonx.Pretty of a node:\n got %s\nwant %s", got, want)
		}
		want, err = json.Marshal(plainNode(n))
		if err != nil {
			t.Fatal(err)
		}
		if got := n.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("compact:\n got %s\nwant %s", got, want)
		}
	}
}
