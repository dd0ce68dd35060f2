package rag

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/hybridrag/hybridrag/internal/prompt"
)

// Language selects the language of the prompts the LLM components send.
// The context payloads (the labelled sections the answerer reads) stay in
// pt-BR whatever the language.
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
var ErrUnsupportedLanguage = prompt.ErrUnsupportedLanguage

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

// lang is the Pipeline's language, pt-BR unless PipelineOptions.Language
// says otherwise.
func (p *Pipeline) lang() Language { return cmp.Or(p.opts.Language, LanguagePortuguese) }
