package ingest

import (
	"context"
	"fmt"
	"maps"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
)

// Extractor derives metadata from a document and its chunks while the
// Indexer prepares them. Extract is called
// once per document that is indexed, after chunking and before the
// comparison with the stored copy and before embedding, with the chunks in
// Seq order; each chunk's Start is its byte offset in doc.Content, so an
// extractor can follow the document's structure across chunks.
//
// Extract may set entries of doc.Metadata (document-level metadata,
// filterable with storage.FieldMetadata when the store allows the key) and
// of each chunk's Metadata (chunk-level, filterable with rag's
// Query.ChunkFilters); a nil map may be replaced by a new one. It must not
// change anything else: content, offsets and order are the Indexer's.
// Both maps belong to the Indexer for the call (the caller's records are
// not modified). An error fails the document's group of owners like a
// chunking error.
//
// Extractors are called from the goroutine running the Index call; one
// Extractor value may be used by concurrent Index calls, so it must be
// safe for concurrent use.
type Extractor interface {
	Extract(ctx context.Context, doc *storage.Document, chunks []storage.Chunk) error
}

// ExtractorFunc adapts a function to an Extractor.
type ExtractorFunc func(ctx context.Context, doc *storage.Document, chunks []storage.Chunk) error

// Extract calls f.
func (f ExtractorFunc) Extract(ctx context.Context, doc *storage.Document, chunks []storage.Chunk) error {
	return f(ctx, doc, chunks)
}

// Sectioner is implemented by an Extractor that also knows the sections
// some documents must be chunked by, where their loader found none or too
// few (the articles of a statute in plain text: see package
// rag/ingest/legal). Before a document is chunked, the Indexer calls
// DocumentSections of each extractor implementing it, in order; a non-nil
// result replaces the document's Sections (so the structural splitter,
// IndexerOptions.DocumentChunker, cuts it: a chunk never spans two
// sections of a level up to its BreakLevel), nil leaves them as they are.
// Sections must be valid for chunk.Structural.Split (sorted, not
// overlapping, on rune boundaries); others fail the document like a
// chunking error. DocumentSections must not modify d.
//
// To index with an extractor's metadata but without its sections, wrap
// its Extract method in an ExtractorFunc.
type Sectioner interface {
	DocumentSections(ctx context.Context, d *load.ParsedDocument) ([]chunk.Section, error)
}

// sectionDocument sets d.Sections from the extractors that are Sectioners,
// as the Indexer does before chunking.
func sectionDocument(ctx context.Context, extractors []Extractor, d *load.ParsedDocument) error {
	for _, e := range extractors {
		s, ok := e.(Sectioner)
		if !ok {
			continue
		}
		secs, err := s.DocumentSections(ctx, d)
		if err != nil {
			return fmt.Errorf("ingest: sections of document %s: %w", storage.QuoteID(d.ID), err)
		}
		if secs != nil {
			d.Sections = secs
		}
	}
	return nil
}

// extractDocument runs extractors over a document and its chunks:
// doc.Metadata and each chunk's Metadata are cloned first, so the maps the
// caller passed in are not modified.
func extractDocument(ctx context.Context, extractors []Extractor, doc *storage.Document, chunks []storage.Chunk) error {
	if len(extractors) == 0 {
		return nil
	}
	doc.Metadata = maps.Clone(doc.Metadata)
	for i := range chunks {
		chunks[i].Metadata = maps.Clone(chunks[i].Metadata)
	}
	for _, e := range extractors {
		if err := e.Extract(ctx, doc, chunks); err != nil {
			return fmt.Errorf("ingest: extract metadata of document %s: %w", storage.QuoteID(doc.ID), err)
		}
	}
	if len(doc.Metadata) == 0 {
		doc.Metadata = nil
	}
	for i := range chunks {
		if len(chunks[i].Metadata) == 0 {
			chunks[i].Metadata = nil
		}
	}
	return nil
}
