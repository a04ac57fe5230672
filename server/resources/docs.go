package resources

import (
	_ "embed"
	"strings"
)

var (
	//go:embed docs/architecture.md
	architectureRaw string
	//go:embed docs/session_analysis_guide.md
	sessionAnalysisRaw string
	//go:embed docs/evolution_check.md
	evolutionCheckRaw string
	//go:embed docs/subagent_summarize.md
	subagentSummarizeRaw string
	//go:embed docs/tests_thoughtbox.md
	testsThoughtboxRaw string
	//go:embed docs/tests_notebook.md
	testsNotebookRaw string
	//go:embed docs/tests_mental_models.md
	testsMentalModelsRaw string
	//go:embed docs/tests_knowledge.md
	testsKnowledgeRaw string
)

// The documents served as static resources; the prompts of the same name
// reuse them.
var (
	// Architecture is the server architecture guide, itself a loadable notebook.
	Architecture = strings.TrimSpace(architectureRaw)
	// SessionAnalysisGuide is the process for analysing a finished session.
	SessionAnalysisGuide = strings.TrimSpace(sessionAnalysisRaw)
	// EvolutionCheck is the evolution-check pattern guide.
	EvolutionCheck = strings.TrimSpace(evolutionCheckRaw)
	// SubagentSummarize is the subagent-summarize pattern guide.
	SubagentSummarize = strings.TrimSpace(subagentSummarizeRaw)
	// TestsThoughtbox, TestsNotebook, TestsMentalModels and TestsKnowledge are
	// the behavioural tests of each operation family.
	TestsThoughtbox   = strings.TrimSpace(testsThoughtboxRaw)
	TestsNotebook     = strings.TrimSpace(testsNotebookRaw)
	TestsMentalModels = strings.TrimSpace(testsMentalModelsRaw)
	TestsKnowledge    = strings.TrimSpace(testsKnowledgeRaw)
)

// The descriptions of the behavioural-test documents, shared by the
// resources and the prompts.
const (
	TestsThoughtboxDescription   = "Behavioral tests for the thoughtbox thinking tool (17 tests covering forward/backward thinking, branching, revisions, linked structure, auto-assignment)"
	TestsNotebookDescription     = "Behavioral tests for the notebook literate programming tool (8 tests covering creation, cells, execution, export)"
	TestsMentalModelsDescription = "Behavioral tests for the mental_models structured reasoning tool (6 tests covering discovery, retrieval, capability graph)"
	TestsKnowledgeDescription    = "Behavioral tests for the knowledge graph toolhost (12 tests covering entities, relations, observations, graph queries)"
)
