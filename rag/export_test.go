package rag

import (
	"context"

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
)

// BuildVocabularies builds the vocabularies of every kind in l.
func BuildVocabularies(ctx context.Context, l recordLister) (*Vocabularies, error) {
	var v Vocabularies
	var err error
	if v.Catalog, err = buildVocabulary(ctx, l, storage.KindItem); err != nil {
		return nil, err
	}
	if v.FAQs, err = buildVocabulary(ctx, l, storage.KindFAQ); err != nil {
		return nil, err
	}
	if v.Documents, err = buildVocabulary(ctx, l, storage.KindDocument); err != nil {
		return nil, err
	}
	return &v, nil
}

// Vocabularies and VocabulariesFrom are the in-memory vocabularies the
// tests compare with the ones built from a store.
type Vocabularies = vocabularies

// VocabulariesFrom builds the vocabularies of records in memory.
var VocabulariesFrom = vocabulariesFrom
