package notebook

import (
	_ "embed"
	"strings"
	"time"
)

// TemplateSequentialFeynman is the name of the only template.
const TemplateSequentialFeynman = "sequential-feynman"

// Templates lists the template names.
var Templates = []string{TemplateSequentialFeynman}

//go:embed template_feynman.src.md
var feynmanTemplate string

// fromTemplate decodes the named template for a topic and a language. The
// placeholders are replaced in one pass, so a topic that contains a
// placeholder is kept as written.
func fromTemplate(name, topic, language string, now time.Time) (*Notebook, error) {
	text := strings.NewReplacer("[TOPIC]", topic, "[DATE]", now.UTC().Format("2006-01-02"), "[LANGUAGE]", language).
		Replace(feynmanTemplate)
	n, err := Decode(text)
	if err != nil {
		return nil, err
	}
	n.Language = language
	if language == TypeScript {
		n.TSConfig = defaultTSConfig
	}
	return n, nil
}
