// Package security runs the security checks of the scorecard against a
// target: DNS-rebinding protection (Host and Origin), the bind address,
// path traversal through ids, the body limit, request content (PII
// canaries) kept out of a sidecar's metrics, logs and traces, and bounded
// label cardinality under random tool, operation and method names.
//
// Every check judges a rule, never wording. A check that cannot be made on
// a target (HTTP checks on stdio, the bind address of a server reached
// over the network, notebooks on a server without them) is not
// applicable, with the reason.
package security

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Result is the verdict of one check.
type Result struct {
	Name          string `json:"name"`
	Rule          string `json:"rule"`
	Passed        bool   `json:"passed"`
	NotApplicable bool   `json:"notApplicable,omitempty"`
	Detail        string `json:"detail"`
}

// verdict is what a check returns: passed, or why not, or why it does not
// apply.
type verdict struct {
	passed bool
	na     bool
	detail string
}

func pass(detail string) verdict { return verdict{passed: true, detail: detail} }
func fail(detail string) verdict { return verdict{detail: detail} }
func notApplicable(why string) verdict {
	return verdict{na: true, detail: why}
}

type check struct {
	name, rule string
	// needs is the domain operation (a gateway operation name) the check
	// starts with through MCP, "" when it needs none: a family without it
	// makes the check not applicable (path traversal goes through the
	// gateway's session operations, which only a family with start_new has).
	needs string
	run   func(ctx context.Context, e *env) verdict
}

// env is what the checks share: the target (the server itself, not a
// sidecar in front of it), the transcript and the run's nonce.
type env struct {
	tg    target.Target
	rec   *transcript.Recorder
	nonce string
}

var checks = []check{
	{"host-header", "a request with a foreign Host header is refused with a 4xx (DNS-rebinding protection, D14)", "", hostHeader},
	{"origin-header", "a request with a foreign Origin header is refused with a 4xx (DNS-rebinding protection, D14)", "", originHeader},
	{"bind-address", "the server listens on loopback only unless told otherwise (HOST defaults to 127.0.0.1, D14)", "", bindAddress},
	{"path-traversal", "ids that look like paths are refused and no file appears outside the data directory (D6)", "start_new", pathTraversal},
	{"body-limit", "a body over 4 MiB gets 413 with a JSON body (D14)", "", bodyLimit},
	{"pii-canaries", "no request content (thought text, arguments, names, ids, headers) reaches a sidecar's metrics, logs or traces", "", canaries},
	{"label-cardinality", "random tool, operation and method names add no label values to a sidecar's metrics", "", cardinality},
	{"notebook-secrets", "notebook code cannot read the server's environment (D13)", "notebook", notebookSecrets},
}

// Run makes every check against tg, a server of family p (nil: the
// gateway's). rec (nil: none) receives the transcript.
func Run(ctx context.Context, tg target.Target, rec *transcript.Recorder, p profile.Profile) []Result {
	if p == nil {
		p = profile.Gateway
	}
	if rec == nil {
		rec = transcript.Discard()
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	e := &env{tg: target.Unwrap(tg), rec: rec, nonce: hex.EncodeToString(b)}
	var out []Result
	for _, c := range checks {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		rec.Notef("security check %s: %s", c.name, c.rule)
		var v verdict
		if c.needs != "" && !p.Supports(c.needs) {
			v = notApplicable(fmt.Sprintf("needs the %s operation; the %s family has none", c.needs, p.Name()))
		} else {
			v = c.run(cctx, e)
		}
		cancel()
		rec.Notef("security check %s: passed %v, not applicable %v: %s", c.name, v.passed, v.na, v.detail)
		out = append(out, Result{Name: c.name, Rule: c.rule, Passed: v.passed && !v.na, NotApplicable: v.na, Detail: v.detail})
	}
	return out
}

// Axis returns the security axis: one check per applicable result. The
// scorecard's security gate fails the run unless every one passed.
func Axis(results []Result) scorecards.Axis {
	var cs []scorecards.Check
	for _, r := range results {
		if !r.NotApplicable {
			cs = append(cs, scorecards.Check{Name: r.Name, Passed: r.Passed, Detail: r.Detail})
		}
	}
	return scorecards.ChecksAxis(scorecards.AxisSecurity, scorecards.DefaultWeight(scorecards.AxisSecurity), cs)
}
