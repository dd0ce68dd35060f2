package rag

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// defaultNormalizedCacheSize is how many records' normalized fields a
// Searcher keeps for lexical scoring.
const defaultNormalizedCacheSize = 20_000

// normCache keeps records' fields already folded by lexical.Normalize, so
// that scoring the same candidates again (every query scores up to 200)
// does not normalize their text again. Entries are keyed by kind and ID
// and are valid only for the UpdatedAt they were built from, so an
// updated record is normalized afresh. It is safe for concurrent use.
type normCache struct {
	lru *lru.Cache[string, normEntry]
	// secs holds documents' Markdown sections as normalized records
	// (title and section), for the evidence of documents
	// (sectionEvidence).
	secs *lru.Cache[string, secEntry]
}

type secEntry struct {
	updated time.Time
	secs    []lexical.NormalizedFields
}

// maxSectionDocs bounds the documents whose sections are cached.
const maxSectionDocs = 4096

type normEntry struct {
	updated time.Time
	doc     lexical.NormalizedFields
}

func newNormCache(size int) *normCache {
	if size < 0 {
		return nil
	}
	if size == 0 {
		size = defaultNormalizedCacheSize
	}
	c, err := lru.New[string, normEntry](size)
	if err != nil {
		return nil
	}
	sc, err := lru.New[string, secEntry](min(size, maxSectionDocs))
	if err != nil {
		return nil
	}
	return &normCache{lru: c, secs: sc}
}

// sections returns build's result for the document id at updated, from
// the cache when the document has not changed. Documents without an
// UpdatedAt are not cached.
func (c *normCache) sections(id string, updated time.Time, build func() []lexical.NormalizedFields) []lexical.NormalizedFields {
	if c == nil || updated.IsZero() {
		return build()
	}
	if e, ok := c.secs.Get(id); ok && e.updated.Equal(updated) {
		return e.secs
	}
	secs := build()
	c.secs.Add(id, secEntry{updated: updated, secs: secs})
	return secs
}

// record returns rec with normalized field texts, from the cache when the
// record has not changed. Records without an UpdatedAt are not cached.
func (c *normCache) record(kind storage.OwnerKind, id string, updated time.Time, rec lexical.Record) lexical.Record {
	if c == nil || updated.IsZero() {
		return rec
	}
	key := string(kind) + "\x00" + id
	if e, ok := c.lru.Get(key); ok && e.updated.Equal(updated) {
		return e.doc
	}
	doc := lexical.NormalizeRecord(rec)
	c.lru.Add(key, normEntry{updated: updated, doc: doc})
	return doc
}
