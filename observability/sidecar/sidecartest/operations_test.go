package sidecartest

import (
	"slices"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
)

// TestOperationsFollowTheGatewayTable: the test double's enum is the
// reference server's operation table.
func TestOperationsFollowTheGatewayTable(t *testing.T) {
	if !slices.Equal(Operations, gateway.Operations) {
		t.Errorf("sidecartest.Operations %v\ngateway.Operations %v", Operations, gateway.Operations)
	}
}
