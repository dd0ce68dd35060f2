// Package tuning lets the project's evaluation (examples/eval) set search
// knobs that are no part of rag's public options: the shape of the IDF
// weights and the least document frequency of a typo correction. Package
// rag installs SetLexical when it is imported.
package tuning

import "github.com/hybridrag/hybridrag/lexical"

// Lexical are the knobs; zero fields mean rag's defaults.
type Lexical struct {
	// IDF shapes the IDF weights of query terms (lexical's defaults when
	// zero).
	IDF lexical.IDFOptions
	// CorrectionMinDF is the least number of records a word must appear
	// in to be a typo correction (default 1).
	CorrectionMinDF int
}

// SetLexical sets t on opts, a *rag.SearcherOptions (anything else is left
// alone). It is nil until package rag is imported.
var SetLexical func(opts any, t Lexical)
