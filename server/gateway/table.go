package gateway

// Op is one row of the operation table, the single source of the tool
// schema's operation enum (mcpserver), the stage rules, and the lists of
// valid operations in error answers.
type Op struct {
	Name string
	// Required is the stage a connection must have reached to call it.
	Required Stage
	// Advances is the stage a successful call moves the connection to
	// (Entry for none).
	Advances Stage
}

// Table lists the gateway's operations in the order of the tool schema (as
// in 1.2.2). Handlers are bound to the names in New; an operation whose
// handler this build does not have answers that it is not available.
var Table = []Op{
	{"get_state", Entry, Entry},
	{"list_sessions", Entry, Entry},
	{"navigate", Entry, Entry},
	{"load_context", Entry, InitComplete},
	{"start_new", Entry, InitComplete},
	{"list_roots", Entry, Entry},
	{"bind_root", Entry, Entry},
	{"cipher", InitComplete, CipherLoaded},
	{"thought", CipherLoaded, Entry},
	{"read_thoughts", CipherLoaded, Entry},
	{"get_structure", CipherLoaded, Entry},
	{"notebook", CipherLoaded, Entry},
	{"session", InitComplete, Entry},
	{"mental_models", CipherLoaded, Entry},
	{"deep_analysis", InitComplete, Entry},
	{"knowledge", CipherLoaded, Entry},
}

// Operations lists the operations' names in table order.
var Operations = opNames(Table)

func opNames(t []Op) []string {
	out := make([]string, len(t))
	for i, op := range t {
		out[i] = op.Name
	}
	return out
}

// OperationsAt lists, in table order, the operations a connection at stage
// s may call.
func OperationsAt(s Stage) []string {
	var out []string
	for _, op := range Table {
		if op.Required <= s {
			out = append(out, op.Name)
		}
	}
	return out
}

// Option configures a Gateway.
type Option func(*Gateway)

// WithHandler binds an operation of the table to h, replacing the built-in
// handler or the "not available" answer; packages that implement a family
// of operations (notebook, knowledge, mental models, roots) plug in this
// way. New panics for a name the table does not have: that is a
// programming error, not input.
func WithHandler(name string, h Handler) Option {
	return func(g *Gateway) {
		if _, ok := g.ops[name]; !ok {
			panic("gateway.WithHandler: no operation " + name + " in the table")
		}
		op := g.ops[name]
		op.run = h
		g.ops[name] = op
	}
}
