package ingest

import (
	"context"
	"fmt"
	"maps"

	"github.com/hybridrag/hybridrag/storage"
)

// Extractor derives metadata from a document and its chunks while the
// Indexer prepares them (seed 002 MetadataExtractor). Extract is called
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

// ExtractDocument runs extractors over a document and its chunks as the
// Indexer does, for callers that chunk and store documents themselves
// (see DocumentChunks): doc.Metadata and each chunk's Metadata are
// cloned first, so the maps the caller passed in are not modified.
func ExtractDocument(ctx context.Context, extractors []Extractor, doc *storage.Document, chunks []storage.Chunk) error {
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
