// Package fields holds the lexical schema of each record kind the rag
// Searcher scores: the field names and weights of catalog items, FAQs and
// documents, and the default lexical.ScorerOptions built on them.
package fields

import (
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/snowball"
)

// DefaultFileWeight is the lexicalScore weight of a catalog item's
// attached file text in the default catalog scorer: real catalogs keep
// pests, targets and doses there, not in the item's own fields. 3 sits
// below the name's 3.5 and the tags' 4 and above the manufacturer's 1.5;
// it was chosen on the tune half of the AGROFIT queries, where 2.5–4 form
// a plateau: at 1, pest × crop queries lost to items naming the pest's
// words as crops in their tags ("capim-gengibre" vs the crop "gengibre").
// The held-out figures are in BENCHMARKS.md ("Tuning, before and after").
const DefaultFileWeight = 3.0

// questionMaxTokens is the token cap of the default FAQ and
// document scorers: questions are longer than catalog queries, whose cap
// stays 8 (a product search names a few words; more are noise).
const questionMaxTokens = 24

// proximity is the BM25 token-pair weight of the default FAQ and
// document scorers (lexical.BM25.Proximity), chosen on the tune half of
// the FaQuAD and IRPF query sets (BENCHMARKS.md).
const proximity = 0.5

// exactWeight is the BM25 exact-word weight of the default FAQ and
// document scorers (lexical.BM25.Exact): an occurrence of the question's
// own word counts twice as much as another word of the same stem. Chosen
// on the tune halves (BENCHMARKS.md, "Measurements behind defaults").
const exactWeight = 1.0

// CatalogScorer returns the options of the default catalog Scorer:
// field-weighted presence scoring (substring matching, no stemming, 8
// tokens, the default synonyms and bonuses) over
// Catalog(DefaultFileWeight). Each call returns new slices, so the result
// can be changed freely.
func CatalogScorer() lexical.ScorerOptions {
	return lexical.ScorerOptions{Fields: Catalog(DefaultFileWeight)}
}

// FAQScorer returns the options of the default FAQ Scorer:
// FAQ, BM25F term weighting with per-field length normalization
// (the average field lengths come from the FAQ vocabulary), query tokens
// stemmed with snowball.Filter, up to questionMaxTokens of
// them, matched at word starts (lexical.MatchWordPrefix), with the
// question's own words weighted exactWeight over other words of
// their stem. Long answers would otherwise collect every common word of a
// question, and questions rarely use the FAQ's own inflections
// ("declarar" for "declaração").
func FAQScorer() lexical.ScorerOptions {
	return questionScorerOptions(FAQ())
}

// DocumentScorer returns the options of the default document
// Scorer: Document with the FAQ scorer's BM25F, stemming and token
// cap.
func DocumentScorer() lexical.ScorerOptions {
	return questionScorerOptions(Document())
}

func questionScorerOptions(fields []lexical.FieldSpec) lexical.ScorerOptions {
	return lexical.ScorerOptions{
		Fields: fields,
		Tokenizer: lexical.Tokenizer{
			MaxTokens: questionMaxTokens,
			Filters:   []lexical.TokenFilter{snowball.Filter{}},
		},
		Match: lexical.MatchWordPrefix,
		BM25:  &lexical.BM25{Proximity: proximity, Exact: exactWeight},
	}
}

// Field names used by the Searcher's default scorers beyond the agronomy
// ones of package lexical.
const (
	Files    = "files"
	Question = "question"
	Answer   = "answer"
	Keywords = "keywords"
	Title    = "title"
	Content  = "content"
	Source   = "source"
)

// Catalog returns the catalog field weights of lexical.ProductFields plus
// the attached file text at fileWeight (0 leaves files out).
func Catalog(fileWeight float64) []lexical.FieldSpec {
	f := lexical.ProductFields()
	if fileWeight > 0 {
		f = append(f, lexical.FieldSpec{Name: Files, Weight: fileWeight})
	}
	return f
}

// FAQ returns the default FAQ field weights.
func FAQ() []lexical.FieldSpec {
	return []lexical.FieldSpec{
		{Name: Question, Weight: 3.5},
		{Name: Keywords, Weight: 4, Tags: true},
		{Name: lexical.FieldCategory, Weight: 2},
		{Name: Answer, Weight: 2.5},
	}
}

// Document returns the default document field weights.
func Document() []lexical.FieldSpec {
	return []lexical.FieldSpec{
		{Name: Title, Weight: 3.5},
		{Name: Source, Weight: 1.5},
		{Name: Content, Weight: 2.5},
	}
}
