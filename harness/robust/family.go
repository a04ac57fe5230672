package robust

import (
	"context"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// family is what the catalogue run does differently for each family of
// servers: how the connections are set up, how their state is read back,
// which inputs are sent, and whether the faults (the gateway's critique and
// exports) apply.
type family interface {
	name() string
	setUp(ctx context.Context, conns [numConns]*target.Conn) error
	state(ctx context.Context, conns [numConns]*target.Conn) (map[string]string, error)
	inputs() []Input
	faults() bool
}

// familyOf returns the catalogue run of profile p's family.
func familyOf(p profile.Profile) (family, error) {
	switch p.Name() {
	case profile.Gateway.Name():
		return gatewayFamily{}, nil
	case profile.SequentialThinking.Name():
		return &seqFamily{}, nil
	case profile.CodeMode.Name():
		return &codeModeFamily{}, nil
	}
	return nil, fmt.Errorf("robust: no bad-input catalogue for the %s family yet", p.Name())
}

// sender is a family that sends its tool inputs itself and judges the
// answer by its own rules (Code Mode's refusals are in its result
// envelope).
type sender interface {
	send(ctx context.Context, c *target.Conn, in Input) (Outcome, string)
}

// gatewayFamily is thoughtbox_gateway's catalogue (Catalogue).
type gatewayFamily struct{}

func (gatewayFamily) name() string { return profile.Gateway.Name() }
func (gatewayFamily) setUp(ctx context.Context, conns [numConns]*target.Conn) error {
	return setUpGateway(ctx, conns)
}
func (gatewayFamily) state(ctx context.Context, conns [numConns]*target.Conn) (map[string]string, error) {
	return mcpState(ctx, conns)
}
func (gatewayFamily) inputs() []Input { return Catalogue() }
func (gatewayFamily) faults() bool    { return true }
