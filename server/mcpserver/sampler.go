package mcpserver

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/ledger"
)

// sampler asks the client of one MCP connection for completions.
type sampler struct {
	mcp     *mcpsrv.MCPServer
	session mcpsrv.ClientSession
}

// Supported reports whether the client declared the sampling capability.
func (p *sampler) Supported() bool {
	info, ok := p.session.(mcpsrv.SessionWithClientInfo)
	return ok && info.GetClientCapabilities().Sampling != nil
}

// Sample sends sampling/createMessage and returns the text of the answer.
func (p *sampler) Sample(ctx context.Context, req ledger.SampleRequest) (string, string, error) {
	if p.session == nil {
		return "", "", errors.New("no client session")
	}
	ctx = p.mcp.WithContext(ctx, p.session)
	res, err := p.mcp.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
		Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(req.UserText)}},
		SystemPrompt: req.SystemPrompt,
		MaxTokens:    req.MaxTokens,
	}})
	if err != nil {
		return "", "", err
	}
	return samplingText(res.Content), res.Model, nil
}

// samplingText extracts the text of a sampling answer's content.
func samplingText(content any) string {
	switch c := content.(type) {
	case mcp.TextContent:
		return c.Text
	case *mcp.TextContent:
		return c.Text
	case map[string]any:
		if t, ok := c["text"].(string); ok {
			return t
		}
	}
	return ""
}
