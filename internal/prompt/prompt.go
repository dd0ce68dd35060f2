// Package prompt holds the embedded text/template prompts of the rag
// packages, one file per prompt and language, and renders them.
package prompt

import (
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/hybridrag/hybridrag/internal/textutil"
)

// ErrUnsupportedLanguage is returned for a language without the prompt.
var ErrUnsupportedLanguage = errors.New("rag: unsupported prompt language")

// The prompt templates, one file per prompt and language:
// templates/<name>.<language>.tmpl.
//
//go:embed templates/*.tmpl
var promptFS embed.FS

// promptFuncs are the helpers the templates may use.
var promptFuncs = template.FuncMap{
	"join":    strings.Join,
	"oneLine": textutil.OneLine,
	"price":   func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"add":     func(a, b int) int { return a + b },
}

// promptTemplates holds every embedded template. The files are part of the
// binary and covered by the golden tests, so parsing cannot fail at run time.
var promptTemplates = template.Must(template.New("prompts").Funcs(promptFuncs).ParseFS(promptFS, "templates/*.tmpl"))

// Prompt names (the <name> part of the template files).
const (
	Classify       = "classify"
	ClassifyUser   = "classify_user"
	Answer         = "answer"
	Summarize      = "summarize"
	SummarizeUser  = "summarize_user"
	Agentic        = "agentic"
	ToolCatalog    = "tool_catalog"
	ToolFAQs       = "tool_faqs"
	ToolDocuments  = "tool_documents"
	Assist         = "assist"
	AssistSystem   = "assist_system"
	templateSuffix = ".tmpl"
)

// Render executes the template name in lang with data and trims the
// surrounding white space.
func Render[L ~string](name string, lang L, data any) (string, error) {
	var b strings.Builder
	file := name + "." + string(lang) + templateSuffix
	if promptTemplates.Lookup(file) == nil {
		return "", fmt.Errorf("%w: no %q prompt in %q", ErrUnsupportedLanguage, name, lang)
	}
	if err := promptTemplates.ExecuteTemplate(&b, file, data); err != nil {
		return "", fmt.Errorf("rag: render prompt %s: %w", file, err)
	}
	return strings.TrimSpace(b.String()), nil
}
