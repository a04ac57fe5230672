package sessions

import (
	"context"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
)

// DiscoveryActions are the actions of the discovery sub-operation.
var DiscoveryActions = []string{"list", "hide", "show"}

// discoveryResult is the answer of a discovery action. This server
// registers no discoverable tools: every tool is listed from the start.
type discoveryResult struct {
	Action               string   `json:"action"`
	Success              bool     `json:"success"`
	Message              string   `json:"message"`
	DiscoveredTools      []string `json:"discoveredTools"`
	AllDiscoverableTools []string `json:"allDiscoverableTools"`
}

// discovery manages tools unlocked by use (SPEC-009). None exist here, so
// list answers empty lists, and hide and show refuse every tool name.
func (s *Host) discovery(_ context.Context, _ *ledger.Handler, a Args) (any, error) {
	action, ok, err := a.String("action")
	if err != nil || !ok {
		return nil, choiceErr(DiscoveryActions, "action is required")
	}
	switch action {
	case "list":
		return discoveryResult{Action: action, Success: true, DiscoveredTools: []string{}, AllDiscoverableTools: []string{},
			Message: "No tools currently discovered: this server lists every tool from the start, none is unlocked by use."}, nil
	case "hide", "show":
		name, ok, err := a.String("toolName")
		if err != nil || !ok || name == "" {
			return nil, fmt.Errorf("toolName is required for the %s action", action)
		}
		return nil, fmt.Errorf("cannot %s '%s': it is not a discoverable tool (there are none on this server)", action, clip.String(name))
	}
	return nil, choiceErr(DiscoveryActions, "action '%s' is unknown", clip.String(action))
}
