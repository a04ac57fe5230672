package notebook

import (
	"strings"
	"testing"
	"time"
)

func TestDecodeRecordedLoad(t *testing.T) {
	src := "<!-- srcbook:{\"language\":\"typescript\"} -->\n\n# Loaded NB\n\nIntro para\nline 2\n\n###### package.json\n\n```json\n{}\n```\n\n" +
		"###### t.ts\n\n```typescript\nconst x: number = 1\n```\n\n###### noLang.js\n\n```\nconsole.log(1)\n```\n\n## Sub heading\n\ntext\n"
	n, err := Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ typ, lang, name, text string }{
		{TypeTitle, "", "", "Loaded NB"},
		{TypeMarkdown, "", "", "Intro para\nline 2"},
		{TypePackageJSON, "", "package.json", ""},
		{TypeCode, TypeScript, "t.ts", ""},
		{TypeCode, JavaScript, "noLang.js", ""},
		{TypeMarkdown, "", "", "## Sub heading\n\ntext"},
	}
	if len(n.Cells) != len(want) {
		t.Fatalf("got %d cells, want %d: %+v", len(n.Cells), len(want), n.Cells)
	}
	for i, w := range want {
		c := n.Cells[i]
		if c.Type != w.typ || c.Language != w.lang || c.Filename != w.name || (w.text != "" && c.Text != w.text) {
			t.Errorf("cell %d = %+v, want %+v", i, c, w)
		}
	}
	if n.Language != TypeScript {
		t.Errorf("language %q", n.Language)
	}
}

func TestDecodeRefusesBadHeaders(t *testing.T) {
	for src, want := range map[string]error{
		"":                                       ErrNoHeader,
		"# no header":                            ErrNoHeader,
		"<!-- srcbook:{nope} -->\n":              ErrBadHeader,
		"<!-- srcbook:{\"language\":\"py\"} -->": errBadLangMD,
	} {
		if _, err := Decode(src); err != want {
			t.Errorf("Decode(%q) = %v, want %v", src, err, want)
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	n := &Notebook{Language: TypeScript, TSConfig: defaultTSConfig, Cells: []*Cell{
		{Type: TypeTitle, Text: "Round trip"},
		{Type: TypeMarkdown, Text: "Some **notes**\n\n## and a heading"},
		{Type: TypePackageJSON, Filename: "package.json", Source: defaultPackageJSON, Status: StatusIdle},
		{Type: TypeCode, Language: TypeScript, Filename: "a.ts", Source: "const a: number = 1\nconsole.log(a)", Status: StatusIdle},
		{Type: TypeCode, Language: TypeScript, Filename: "empty.ts", Source: "", Status: StatusIdle},
	}}
	text := Encode(n)
	if !strings.HasPrefix(text, `<!-- srcbook:{"language":"typescript","tsconfig.json":"{\n`) || !strings.HasSuffix(text, "```\n") {
		t.Fatalf("unexpected encoding:\n%s", text)
	}
	back, err := Decode(text)
	if err != nil {
		t.Fatal(err)
	}
	if again := Encode(back); again != text {
		t.Fatalf("round trip differs:\n%s\n---\n%s", text, again)
	}
	if back.TSConfig != defaultTSConfig || len(back.Cells) != len(n.Cells) {
		t.Fatalf("decoded %+v", back)
	}
	for i, c := range back.Cells {
		if c.Type != n.Cells[i].Type || c.Text != n.Cells[i].Text || c.Source != n.Cells[i].Source || c.Filename != n.Cells[i].Filename {
			t.Errorf("cell %d: %+v, want %+v", i, c, n.Cells[i])
		}
	}
}

func TestTemplateHasSixTitlesAndSixMarkdownCells(t *testing.T) {
	n, err := fromTemplate(TemplateSequentialFeynman, "Rust [DATE] Lifetimes", TypeScript, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	wantTitles := []string{"🧠 Sequential Feynman Learning: Rust [DATE] Lifetimes", "Phase 1: Research & Synthesis", "Phase 2: Feynman Explanation",
		"Phase 3: Refinement Through Thoughtbox Analysis", "Phase 4: Expert Re-Encoding", "Meta-Reflection"}
	if len(n.Cells) != 12 {
		t.Fatalf("%d cells", len(n.Cells))
	}
	for i, c := range n.Cells {
		wantType := TypeMarkdown
		if i%2 == 0 {
			wantType = TypeTitle
			if c.Text != wantTitles[i/2] {
				t.Errorf("title %d = %q", i/2, c.Text)
			}
		}
		if c.Type != wantType {
			t.Errorf("cell %d is %s", i, c.Type)
		}
	}
	if !strings.Contains(n.Cells[1].Text, "2026-01-02") || n.TSConfig == "" || n.Language != TypeScript {
		t.Errorf("placeholders or language not applied: %q", n.Cells[1].Text)
	}
}
