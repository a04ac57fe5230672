// Package content holds the prose that the Thoughtbox server hands to agents:
// the patterns cookbook, the compression cipher, the operation references
// returned during stage progression, the parallel-verification guide, the
// MCP server instructions and the two tool descriptions.
//
// Each text lives in its own file next to this one and is embedded at build
// time. The exported values have leading and trailing white space removed, so
// callers can join them with their own separators.
package content

import (
	_ "embed"
	"strings"
)

var (
	//go:embed cookbook.md
	cookbookRaw string

	//go:embed cipher.md
	cipherRaw string

	//go:embed cipher_next_steps.md
	cipherNextStepsRaw string

	//go:embed stage1_operations.md
	stage1OperationsRaw string

	//go:embed stage2_operations.md
	stage2OperationsRaw string

	//go:embed parallel_verification.md
	parallelVerificationRaw string

	//go:embed instructions.txt
	instructionsRaw string

	//go:embed gateway_description.txt
	gatewayDescriptionRaw string

	//go:embed observability_description.txt
	observabilityDescriptionRaw string
)

// Cookbook is the Thoughtbox Patterns Cookbook (markdown). It describes the
// six core reasoning patterns (forward, backward, branching, revision,
// interleaved, first principles) with example gateway calls. It is served as
// the resource thoughtbox://patterns-cookbook and embedded in verbose thought
// responses.
var Cookbook = strings.TrimSpace(cookbookRaw)

// Cipher is the Thoughtbox Compression Cipher (markdown): the compact
// step-type, operator and reference notation for long reasoning chains. It is
// the first part of the cipher operation's response and is also served as a
// resource.
var Cipher = strings.TrimSpace(cipherRaw)

// CipherNextSteps is the short "## Next Steps" section that the cipher
// operation places between Cipher and Stage2Operations. It lists the
// operations unlocked by the cipher and shows the first thought call.
var CipherNextSteps = strings.TrimSpace(cipherNextStepsRaw)

// Stage1Operations is the reference (markdown) for the entry-stage operations
// (get_state, list_sessions, navigate, load_context, start_new, list_roots,
// bind_root) and for session and deep_analysis. It is appended to the
// start_new and load_context context resources.
var Stage1Operations = strings.TrimSpace(stage1OperationsRaw)

// Stage2Operations is the reference (markdown) for the operations unlocked by
// the cipher (thought, read_thoughts, get_structure, notebook, mental_models,
// knowledge). It is the last part of the cipher operation's response.
var Stage2Operations = strings.TrimSpace(stage2OperationsRaw)

// ParallelVerification is the Parallel Verification Workflow (markdown) served
// at thoughtbox://guidance/parallel-verification. It contains the
// placeholders {{TASK}} and {{MAX_BRANCHES}}, which the agent fills in.
var ParallelVerification = strings.TrimSpace(parallelVerificationRaw)

// Instructions is the plain-text instructions string returned in the MCP
// initialize result.
var Instructions = strings.TrimSpace(instructionsRaw)

// GatewayDescription is the description of the thoughtbox_gateway tool as
// listed by tools/list.
var GatewayDescription = strings.TrimSpace(gatewayDescriptionRaw)

// ObservabilityDescription is the description of the observability_gateway
// tool as listed by tools/list.
var ObservabilityDescription = strings.TrimSpace(observabilityDescriptionRaw)
