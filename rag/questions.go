package rag

import (
	"sync"

	"github.com/hybridrag/hybridrag/lexical"
)

// questionSynonymEntries are the paraphrases the default FAQ and document
// scorers add to lexical.DefaultSynonyms: store questions asked in other
// words than the FAQs use ("quanto tempo demora a entrega?" for "qual é
// o prazo de entrega?"). They stay out of the catalog scorer and out of
// lexical.DefaultSynonyms, whose generic terms the offline classifier
// reads as agronomy and catalog words.
var questionSynonymEntries = []lexical.SynonymEntry{
	{Category: lexical.CategoryGeneric, Canonical: "prazo", Variants: []string{
		"quanto tempo demora", "quanto tempo leva", "demora", "demorar", "demoram", "demorou",
		"leva quantos dias", "quantos dias leva",
	}},
}

// questionSynonyms returns lexical.DefaultSynonyms merged with
// questionSynonymEntries.
var questionSynonyms = sync.OnceValue(func() *lexical.Synonyms {
	extra, err := lexical.NewSynonyms(questionSynonymEntries)
	if err != nil {
		panic("rag: question synonyms: " + err.Error())
	}
	return lexical.DefaultSynonyms().Merge(extra)
})

// withQuestionSynonyms gives o the question synonyms when it names no
// table of its own.
func withQuestionSynonyms(o lexical.ScorerOptions) lexical.ScorerOptions {
	if o.Synonyms == nil {
		o.Synonyms = questionSynonyms()
	}
	return o
}
