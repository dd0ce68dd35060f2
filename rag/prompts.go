package rag

import (
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/hybridrag/hybridrag/llm"
)

// Language selects the language of the prompts the LLM components send.
// The context payloads (seed 000 §5) stay in pt-BR whatever the language.
type Language string

// Supported prompt languages.
const (
	// LanguagePortuguese is Brazilian Portuguese, the default.
	LanguagePortuguese Language = "pt-BR"
	// LanguageEnglish is English.
	LanguageEnglish Language = "en"
)

// ErrUnsupportedLanguage is returned by the constructors of the LLM
// components for a Language without prompts.
var ErrUnsupportedLanguage = errors.New("rag: unsupported prompt language")

// ParseLanguage maps a language tag to a supported Language: "" and any
// "pt" tag ("pt", "pt-BR", "pt_br") give LanguagePortuguese, any "en" tag
// ("en", "en-US") gives LanguageEnglish. Other tags wrap
// ErrUnsupportedLanguage.
func ParseLanguage(tag string) (Language, error) {
	t := strings.ToLower(strings.TrimSpace(tag))
	base, _, _ := strings.Cut(strings.ReplaceAll(t, "_", "-"), "-")
	switch base {
	case "", "pt":
		return LanguagePortuguese, nil
	case "en":
		return LanguageEnglish, nil
	}
	return "", fmt.Errorf("%w: %q (want pt-BR or en)", ErrUnsupportedLanguage, tag)
}

// The prompt templates, one file per prompt and language:
// prompts/<name>.<language>.tmpl.
//
//go:embed prompts/*.tmpl
var promptFS embed.FS

// promptFuncs are the helpers the templates may use.
var promptFuncs = template.FuncMap{
	"join":    strings.Join,
	"oneLine": oneLine,
	"price":   func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"add":     func(a, b int) int { return a + b },
}

// promptTemplates holds every embedded template. The files are part of the
// binary and covered by the golden tests, so parsing cannot fail at run time.
var promptTemplates = template.Must(template.New("prompts").Funcs(promptFuncs).ParseFS(promptFS, "prompts/*.tmpl"))

// Prompt names (the <name> part of the template files).
const (
	promptClassify       = "classify"
	promptClassifyUser   = "classify_user"
	promptAnswer         = "answer"
	promptSummarize      = "summarize"
	promptSummarizeUser  = "summarize_user"
	promptAgentic        = "agentic"
	promptToolCatalog    = "tool_catalog"
	promptToolFAQs       = "tool_faqs"
	promptToolDocuments  = "tool_documents"
	promptAssist         = "assist"
	promptAssistSystem   = "assist_system"
	promptTemplateSuffix = ".tmpl"
)

// renderPrompt executes the template name in lang with data and trims the
// surrounding white space.
func renderPrompt(name string, lang Language, data any) (string, error) {
	var b strings.Builder
	file := name + "." + string(lang) + promptTemplateSuffix
	if promptTemplates.Lookup(file) == nil {
		return "", fmt.Errorf("%w: no %q prompt in %q", ErrUnsupportedLanguage, name, lang)
	}
	if err := promptTemplates.ExecuteTemplate(&b, file, data); err != nil {
		return "", fmt.Errorf("rag: render prompt %s: %w", file, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// resolveLanguage validates a component's language option.
func resolveLanguage(l Language) (Language, error) {
	return ParseLanguage(string(l))
}

// promptTurn is a history turn as the templates see it.
type promptTurn struct {
	// User is true for user turns, false for assistant turns.
	User    bool
	Content string
}

// promptTurns keeps the user and assistant turns of history, on one line
// each.
func promptTurns(history []Turn) []promptTurn {
	out := make([]promptTurn, 0, len(history))
	for _, t := range history {
		c := oneLine(t.Content)
		if c == "" {
			continue
		}
		switch t.Role {
		case llm.RoleUser:
			out = append(out, promptTurn{User: true, Content: c})
		case llm.RoleAssistant:
			out = append(out, promptTurn{Content: c})
		}
	}
	return out
}
