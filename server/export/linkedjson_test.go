package export_test

import (
	"bytes"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"

	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// TestLinkedJSON compares the hand-written export encoding with
// encoding/json on random exports (every field, nil and empty slices and
// pointers, any runes) and on floats of every magnitude.
func TestLinkedJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	floats := []float64{0, 1, -1, 0.5, 1.0 / 3, 2.5e-7, 1e-6, 9.99e-7, 1e20, 1e21, 123456789.125, -3e-9, math.MaxFloat64, math.SmallestNonzeroFloat64}
	for i := range 300 {
		v, ok := quick.Value(reflect.TypeOf(export.Linked{}), r)
		if !ok {
			t.Fatal("quick.Value failed")
		}
		e := v.Interface().(export.Linked)
		if i < len(floats) {
			e.RevisionAnalysis.AvgTemporalDistance = floats[i]
			e.RevisionAnalysis.RevisionDensity = -floats[len(floats)-1-i]
		}
		if i%7 == 0 {
			e.Nodes, e.Session.Tags = nil, nil
		}
		if i%5 == 0 && len(e.Nodes) > 0 {
			e.Nodes[0].Next, e.Nodes[0].RevisionMetadata.RevisedBy = []string{}, []int{}
			e.Nodes[0].Data.Thought = "<b>&amp;</b> \" \\ \n\t\x00 \u2028 \xff bad"
		}
		want, err := jsonx.Reflected(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.AppendPrettyJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("export %d:\n got %.600s\nwant %.600s", i, got, want)
		}
		if got, _ := jsonx.Pretty(e); !bytes.Equal(got, want) {
			t.Fatalf("jsonx.Pretty of export %d differs", i)
		}
	}
}
