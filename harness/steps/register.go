package steps

import (
	"regexp"
	"sync"

	"github.com/cucumber/godog"
)

// Register binds every step of the feature language to w, the state of one
// scenario. Each domain registers its own steps beside their definitions,
// in its *_steps.go file.
func Register(sc *godog.ScenarioContext, w *World) {
	for _, register := range []func(*godog.ScenarioContext, *World){
		registerSessions, registerThoughts, registerCritique, registerReads, registerExports, registerGolden,
		registerProxy, registerDurability, registerRestart, registerHTTP, registerEras,
		registerExactness, registerFigures, registerLimits, registerSurface, registerSessionOps,
		registerNotebook, registerKnowledge, registerEvents, registerObservatory,
	} {
		register(sc, w)
	}
}

// patterns holds every step pattern compiled, once per process.
var patterns sync.Map // string → *regexp.Regexp

// compiled returns the step pattern p compiled. godog binds the steps anew
// for every scenario, and would compile each pattern given as a string
// every time: a quarter of a suite run's CPU.
func compiled(p string) *regexp.Regexp {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := patterns.LoadOrStore(p, regexp.MustCompile(p))
	return re.(*regexp.Regexp)
}
