package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/prompts"
	"github.com/thoughtbox-bench/tbbench/server/resources"
)

// surfaceOptions are the capabilities of the resource and prompt surface.
// Its lists are fixed at build time, so listChanged is false and no
// list_changed notification is ever due; nothing is subscribable.
func surfaceOptions() []mcpsrv.ServerOption {
	return []mcpsrv.ServerOption{
		mcpsrv.WithResourceCapabilities(false, false),
		mcpsrv.WithPromptCapabilities(false),
		mcpsrv.WithCompletions(),
	}
}

// addSurface registers the resources, templates and prompts of the
// resources and prompts packages, keeps their list order (the library
// sorts by name) and hides the unlisted templates, and answers
// completion/complete for template variables and prompt arguments.
func (s *Server) addSurface(hooks *mcpsrv.Hooks, deps resources.Deps) {
	deps.Store = s.store
	cat := resources.New(deps)
	set := prompts.New(cat)
	s.resources, s.prompts = cat, set

	for _, r := range cat.Resources {
		r := r
		res := mcp.NewResource(r.URI, r.Name, mcp.WithResourceDescription(r.Description), mcp.WithMIMEType(r.MIMEType))
		s.mcp.AddResource(res, func(ctx context.Context, _ mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			text, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: text}}, nil
		})
	}
	for _, t := range cat.Templates {
		t := t
		opts := []mcp.ResourceTemplateOption{mcp.WithTemplateDescription(t.Description), mcp.WithTemplateMIMEType(t.MIMEType)}
		if t.Title != "" {
			opts = append(opts, mcp.WithTemplateTitle(t.Title))
		}
		if a := t.Annotations; a != nil {
			roles := make([]mcp.Role, len(a.Audience))
			for i, r := range a.Audience {
				roles[i] = mcp.Role(r)
			}
			opts = append(opts, mcp.WithTemplateAnnotations(roles, a.Priority, ""))
		}
		s.mcp.AddResourceTemplate(mcp.NewResourceTemplate(t.URITemplate, t.Name, opts...),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				c, err := t.Read(ctx, req.Params.URI, templateVars(req.Params.Arguments))
				if err != nil {
					return nil, err
				}
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}}, nil
			})
	}
	for _, p := range set.Prompts {
		p := p
		opts := []mcp.PromptOption{mcp.WithPromptDescription(p.Description)}
		for _, a := range p.Args {
			aopts := []mcp.ArgumentOption{mcp.ArgumentDescription(a.Description)}
			if a.Required {
				aopts = append(aopts, mcp.RequiredArgument())
			}
			opts = append(opts, mcp.WithArgument(a.Name, aopts...))
		}
		s.mcp.AddPrompt(mcp.NewPrompt(p.Name, opts...), func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := set.Get(p.Name, req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			return mcp.NewGetPromptResult(p.Description, []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
		})
	}

	resourceOrder := indexOf(len(cat.Resources), func(i int) string { return cat.Resources[i].URI })
	templateOrder := map[string]int{}
	for i, t := range cat.Templates {
		if t.Listed {
			templateOrder[t.URITemplate] = i
		}
	}
	promptOrder := indexOf(len(set.Prompts), func(i int) string { return set.Prompts[i].Name })
	hooks.AddAfterListResources(func(_ context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		sortBy(res.Resources, resourceOrder, func(r mcp.Resource) string { return r.URI })
	})
	hooks.AddAfterListResourceTemplates(func(_ context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
		kept := res.ResourceTemplates[:0]
		for _, t := range res.ResourceTemplates {
			if _, ok := templateOrder[templateString(t)]; ok {
				kept = append(kept, t)
			}
		}
		res.ResourceTemplates = kept
		sortBy(res.ResourceTemplates, templateOrder, templateString)
	})
	mcpsrv.WithPromptFilter(func(_ context.Context, ps []mcp.Prompt) []mcp.Prompt {
		out := append([]mcp.Prompt(nil), ps...)
		sortBy(out, promptOrder, func(p mcp.Prompt) string { return p.Name })
		return out
	})(s.mcp)
	mcpsrv.WithPromptCompletionProvider(promptCompleter{set})(s.mcp)
	mcpsrv.WithResourceCompletionProvider(templateCompleter{cat})(s.mcp)
}

func templateString(t mcp.ResourceTemplate) string {
	if t.URITemplate == nil {
		return ""
	}
	return t.URITemplate.Raw()
}

// templateVars flattens the library's matched variables (string lists).
func templateVars(args map[string]any) map[string]string {
	out := make(map[string]string, len(args))
	for k, v := range args {
		switch x := v.(type) {
		case string:
			out[k] = x
		case []string:
			out[k] = strings.Join(x, ",")
		default:
			out[k] = fmt.Sprint(x)
		}
	}
	return out
}

func indexOf(n int, key func(int) string) map[string]int {
	m := make(map[string]int, n)
	for i := 0; i < n; i++ {
		m[key(i)] = i
	}
	return m
}

// sortBy puts items in the order of rank (unranked ones last, in their
// current order). It is an insertion sort: the lists are short.
func sortBy[T any](items []T, rank map[string]int, key func(T) string) {
	r := func(t T) int {
		if i, ok := rank[key(t)]; ok {
			return i
		}
		return len(rank)
	}
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && r(items[j]) < r(items[j-1]); j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
}

type promptCompleter struct{ set *prompts.Set }

// CompletePromptArgument completes a prompt argument from its valid values
// or suggestions.
func (p promptCompleter) CompletePromptArgument(_ context.Context, name string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	values, err := p.set.Complete(name, arg.Name, arg.Value)
	if err != nil {
		return nil, err
	}
	return completion(values), nil
}

type templateCompleter struct{ cat *resources.Catalog }

// errNoTemplate reports a completion reference to a URI template the server
// does not list.
var errNoTemplate = errors.New("no resource template")

// CompleteResourceArgument completes a template variable: the values the
// template offers that start with what was typed.
func (t templateCompleter) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	tmpl, ok := t.cat.FindTemplate(uri)
	if !ok || !tmpl.Listed {
		return nil, fmt.Errorf("%w %s", errNoTemplate, uri)
	}
	if !strings.Contains(tmpl.URITemplate, "{"+arg.Name+"}") {
		return nil, fmt.Errorf("resource template %s has no variable %s", tmpl.URITemplate, arg.Name)
	}
	var out []string
	if tmpl.Complete != nil {
		for _, v := range tmpl.Complete(ctx, arg.Name, cctx.Arguments) {
			if strings.HasPrefix(v, arg.Value) {
				out = append(out, v)
			}
		}
	}
	return completion(out), nil
}

func completion(values []string) *mcp.Completion {
	total := len(values)
	if values == nil {
		values = []string{}
	}
	c := &mcp.Completion{Values: values, Total: total}
	if len(values) > 100 {
		c.Values, c.HasMore = values[:100], true
	}
	return c
}
