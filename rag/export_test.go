package rag

import (
	"context"
	"time"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// Internals the external tests check.
var (
	CatalogPayload          = catalogPayload
	FAQSection              = faqSection
	CombineQueryWithContext = combineQueryWithContext
	PlanSearches            = planSearches
)

// Defaults the external tests check.
const (
	DefaultAuditPreview     = defaultAuditPreview
	DefaultMaxFAQQueryChars = defaultMaxFAQQueryChars
	DefaultMaxHistoryChars  = defaultMaxHistoryChars
	DefaultMaxHistoryTurns  = defaultMaxHistoryTurns
	DefaultLimit            = defaultLimit
	DefaultMaxLimit         = defaultMaxLimit
	DefaultMaxMessageChars  = defaultMaxMessageChars
	DefaultMaxStalledEmbeds = defaultMaxStalledEmbeds
)

// BuildVocabularies builds the vocabularies of every kind in store.
func BuildVocabularies(ctx context.Context, store storage.Store) (*Vocabularies, error) {
	var v Vocabularies
	var err error
	if v.Catalog, err = itemKind.buildVocabulary(ctx, store); err != nil {
		return nil, err
	}
	if v.FAQs, err = faqKind.buildVocabulary(ctx, store); err != nil {
		return nil, err
	}
	if v.Documents, err = docKind.buildVocabulary(ctx, store); err != nil {
		return nil, err
	}
	return &v, nil
}

// Vocabularies and VocabulariesFrom are the in-memory vocabularies the
// tests compare with the ones built from a store.
type Vocabularies = vocabularies

// VocabulariesFrom builds the vocabularies of records in memory.
var VocabulariesFrom = vocabulariesFrom

// SetFreshInterval sets how often s reads the store's change marker; call
// it before the first search.
func SetFreshInterval(s *Searcher, d time.Duration) { s.fresh.every = d }

// FreshRebuilds is the number of background rebuilds s completed.
func FreshRebuilds(s *Searcher) int64 { return s.fresh.rebuilds.Load() }

// vocabularies are the word statistics of a store's records, one
// lexical.Vocabulary per kind, as the Searcher builds them (the tests
// compare the ones built from a store with those of the same records in
// memory).
type vocabularies struct {
	Catalog, FAQs, Documents *lexical.Vocabulary
}

// vocabulariesFrom builds the vocabularies of records already in memory
// (for example those just given to ingest.Indexer.Reindex); only active
// items and FAQs count, as only they are searched. It does no I/O.
func vocabulariesFrom(items []storage.CatalogItem, faqs []storage.FAQ, docs []storage.Document) *vocabularies {
	return &vocabularies{Catalog: vocabularyOf(itemKind, items), FAQs: vocabularyOf(faqKind, faqs), Documents: vocabularyOf(docKind, docs)}
}

// vocabularyOf builds the vocabulary of records of kind k.
func vocabularyOf[T any](k *recordKind[T], recs []T) *lexical.Vocabulary {
	var b lexical.VocabularyBuilder
	for i := range recs {
		k.vocab(&b, &recs[i])
	}
	return b.Build()
}
