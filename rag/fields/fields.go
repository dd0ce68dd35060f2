// Package fields holds the default lexical.ScorerOptions of each record
// kind the rag Searcher scores, with the field names and weights of
// catalog items, FAQs and documents. Each function returns new slices, so
// a caller can change a weight (or drop a field) and pass
// lexical.NewScorer(o) as rag's KindOptions.Scorer.
//
// The fields the Searcher builds from each record, with their default
// weights:
//
//	catalog item  lexical.ProductFields() (name, category, manufacturer,
//	              tags, description), and "files" (attached file text) 3
//	FAQ           "question" 3.5, "keywords" 4 (tags), "category" 2,
//	              "answer" 2.5
//	document      "title" 3.5, "source" 1.5, "content" 2.5
package fields

import (
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/snowball"
	"github.com/hybridrag/hybridrag/rag/internal/fieldname"
)

// fileWeight is the lexicalScore weight of a catalog item's
// attached file text in the default catalog scorer: real catalogs keep
// pests, targets and doses there, not in the item's own fields. 3 sits
// below the name's 3.5 and the tags' 4 and above the manufacturer's 1.5;
// it was chosen on the tune half of the AGROFIT queries, where 2.5–4 form
// a plateau: at 1, pest × crop queries lost to items naming the pest's
// words as crops in their tags ("capim-gengibre" vs the crop "gengibre").
// The held-out figures are in BENCHMARKS.md ("Tuning, before and after").
const fileWeight = 3.0

// questionMaxTokens is the token cap of the default scorers (lexical's
// own default is 8). A chat question is longer than a search box's query
// and often names its subject last ("…ta derrubando folha demais. acho q
// é ferrugem. qual produto vcs vendem pra cafe?"): at 8 the catalog
// scorer never saw "ferrugem" nor "cafe". Raising the catalog's cap from
// 8 to 24 left every retrieval set (examples/eval: testdata, AGROFIT)
// unchanged and, with the described-problem evidence of package rag,
// took testdata/chat_eval_dev4.jsonl's source recall from 0.598 to 0.732.
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
// field-weighted presence scoring (substring matching, no stemming, up
// to questionMaxTokens (24) tokens, the default synonyms and bonuses) over
// the catalog fields, attached files weighing fileWeight (3). Each call
// returns new slices, so the result can be changed freely.
func CatalogScorer() lexical.ScorerOptions {
	return lexical.ScorerOptions{Fields: catalogFields(), Tokenizer: lexical.Tokenizer{MaxTokens: questionMaxTokens}}
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
	return questionScorerOptions(faqFields())
}

// DocumentScorer returns the options of the default document
// Scorer: the document fields with the FAQ scorer's BM25F, stemming and
// token cap.
func DocumentScorer() lexical.ScorerOptions {
	return questionScorerOptions(documentFields())
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

// catalogFields returns the catalog field weights of
// lexical.ProductFields plus the attached file text at fileWeight.
func catalogFields() []lexical.FieldSpec {
	return append(lexical.ProductFields(), lexical.FieldSpec{Name: fieldname.Files, Weight: fileWeight})
}

// faqFields returns the default FAQ field weights.
func faqFields() []lexical.FieldSpec {
	return []lexical.FieldSpec{
		{Name: fieldname.Question, Weight: 3.5},
		{Name: fieldname.Keywords, Weight: 4, Tags: true},
		{Name: lexical.FieldCategory, Weight: 2},
		{Name: fieldname.Answer, Weight: 2.5},
	}
}

// documentFields returns the default document field weights.
func documentFields() []lexical.FieldSpec {
	return []lexical.FieldSpec{
		{Name: fieldname.Title, Weight: 3.5},
		{Name: fieldname.Source, Weight: 1.5},
		{Name: fieldname.Content, Weight: 2.5},
	}
}
