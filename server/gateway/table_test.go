package gateway

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/content"
)

// TestTheTableIsTheOnlyList: the feature that checks tools/list, the
// operation references the server sends and the stage rules all agree with
// Table (the tool schema's enum is built from it; the sidecar's test double
// is checked in its own package).
func TestTheTableIsTheOnlyList(t *testing.T) {
	feature, err := os.ReadFile("../../features/transport.feature")
	if err != nil {
		t.Fatal(err)
	}
	want := `the "thoughtbox_gateway" operations are "` + strings.Join(Operations, ", ") + `"`
	if !strings.Contains(string(feature), want) {
		t.Errorf("features/transport.feature does not list the table's operations: want %s", want)
	}
	docs := content.Stage1Operations + content.Stage2Operations + content.GatewayDescription
	for _, op := range Table {
		if !strings.Contains(docs, op.Name) {
			t.Errorf("the operation references do not mention %s", op.Name)
		}
	}
	g := New(nil, nil)
	if len(g.ops) != len(Table) {
		t.Errorf("%d handlers for %d operations", len(g.ops), len(Table))
	}
	for _, op := range Table {
		got := g.ops[op.Name]
		if got.required != op.Required || got.advances != op.Advances || got.run == nil {
			t.Errorf("%s: bound as %+v", op.Name, got)
		}
	}
	if at := OperationsAt(Entry); !slices.Equal(at, []string{"get_state", "list_sessions", "navigate", "load_context", "start_new", "list_roots", "bind_root"}) {
		t.Errorf("entry operations %v", at)
	}
	if len(OperationsAt(DomainActive)) != len(Table) {
		t.Error("not every operation is open at the last stage")
	}
}

func TestWithHandlerRefusesUnknownNames(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a handler for an operation outside the table was accepted")
		}
	}()
	New(nil, nil, WithHandler("no_such_operation", nil))
}
