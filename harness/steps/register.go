package steps

import "github.com/cucumber/godog"

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
