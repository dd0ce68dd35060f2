package rag

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// ChunkFilter restricts a search to chunks whose metadata entry Key equals
// Value, compared normalized (case and accents ignored, lexical.Normalize)
// like storage filters; a chunk without the key does not match. Filters
// on the same key are alternatives (tipo=caput or tipo=inciso); filters on
// different keys must all match. Chunk
// metadata is what chunkers and ingestion extractors wrote (package
// rag/ingest/legal's artigo, paragrafo, inciso, alinea, tipo, marca_*).
//
// Chunk filters are applied by the Searcher to what the store returns, in
// Go; values never reach SQL, and a ChunkFilter is safe to build from
// untrusted input.
type ChunkFilter struct {
	Key   string
	Value string
}

// Limits of a ChunkFilter, checked by every search.
const (
	maxChunkFilterKey   = 64
	maxChunkFilterValue = 256
)

// prepareChunkFilters validates filters and returns them with normalized
// values.
func prepareChunkFilters(filters []ChunkFilter) ([]ChunkFilter, error) {
	if len(filters) == 0 {
		return nil, nil
	}
	out := make([]ChunkFilter, len(filters))
	for i, f := range filters {
		switch {
		case strings.TrimSpace(f.Key) == "":
			return nil, fmt.Errorf("chunk_filters[%d]: empty key", i)
		case len(f.Key) > maxChunkFilterKey:
			return nil, fmt.Errorf("chunk_filters[%d]: key longer than %d bytes", i, maxChunkFilterKey)
		case len(f.Value) > maxChunkFilterValue:
			return nil, fmt.Errorf("chunk_filters[%d]: value longer than %d bytes", i, maxChunkFilterValue)
		}
		out[i] = ChunkFilter{Key: f.Key, Value: lexical.Normalize(f.Value)}
	}
	return out, nil
}

// matchChunk reports whether meta satisfies the (prepared) filters: one
// of the filters on each key.
func matchChunk(meta map[string]string, filters []ChunkFilter) bool {
	for i, f := range filters {
		if slices.ContainsFunc(filters[:i], func(g ChunkFilter) bool { return g.Key == f.Key }) {
			continue // this key was judged at its first filter
		}
		v, ok := meta[f.Key]
		if !ok {
			return false
		}
		v = lexical.Normalize(v)
		if !slices.ContainsFunc(filters[i:], func(g ChunkFilter) bool { return g.Key == f.Key && g.Value == v }) {
			return false
		}
	}
	return true
}

// maxDocumentIDs is the most IDs a Query.DocumentIDs may list.
const maxDocumentIDs = 100

// prepareDocumentIDs validates a query's document IDs for a search of
// kind and returns them as a set; nil means no restriction.
func prepareDocumentIDs(kind storage.OwnerKind, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	bad := func(field, reason string) error {
		return &storage.ValidationError{Field: field, Reason: reason, Err: ErrInvalidQuery}
	}
	if kind != storage.KindDocument {
		return nil, bad("document_ids", "apply to document searches only")
	}
	if len(ids) > maxDocumentIDs {
		return nil, bad("document_ids", fmt.Sprintf("%d IDs, at most %d", len(ids), maxDocumentIDs))
	}
	set := make(map[string]bool, len(ids))
	for i, id := range ids {
		if !storage.ValidID(id) {
			reason := "not a valid ID"
			if strings.TrimSpace(id) == "" {
				reason = "empty ID"
			}
			return nil, bad(fmt.Sprintf("document_ids[%d]", i), reason)
		}
		set[id] = true
	}
	return set, nil
}

// postFiltered reports whether the Searcher filters what the store
// returns (chunk filters or document IDs): the legs then ask the store
// for its most results.
func (st *settings) postFiltered() bool {
	return len(st.chunkFilters) > 0 || st.ownerIDs != nil
}

// keepOwners keeps the lexical candidates whose ID is in st.ownerIDs (all
// when nil), at most limit of them.
func keepOwners[T any](cands []storage.LexicalCandidate[T], id func(*T) string, st *settings, limit int) []storage.LexicalCandidate[T] {
	if st.ownerIDs == nil {
		return cands
	}
	cands = slices.DeleteFunc(cands, func(c storage.LexicalCandidate[T]) bool { return !st.ownerIDs[id(&c.Record)] })
	return cands[:min(len(cands), limit)]
}

// filterMatches keeps the vector matches of the owners in st.ownerIDs
// (all when nil) whose chunk passes st.chunkFilters.
func filterMatches(matches []storage.ChunkMatch, st *settings) []storage.ChunkMatch {
	return slices.DeleteFunc(matches, func(m storage.ChunkMatch) bool {
		return (st.ownerIDs != nil && !st.ownerIDs[m.Chunk.Owner.ID]) || !matchChunk(m.Chunk.Metadata, st.chunkFilters)
	})
}

// keepWithChunks keeps the lexical candidates that have a chunk passing
// filters and returns those chunks by owner ID, in Seq order.
func keepWithChunks[T any](ctx context.Context, r chunkReader, kind storage.OwnerKind, cands []storage.LexicalCandidate[T], id func(*T) string, filters []ChunkFilter) ([]storage.LexicalCandidate[T], map[string][]storage.Chunk, error) {
	matched := make(map[string][]storage.Chunk)
	out := cands[:0:0]
	for i := range cands {
		owner := storage.OwnerRef{Kind: kind, ID: id(&cands[i].Record)}
		chunks, err := r.Chunks(ctx, owner)
		if err != nil {
			return nil, nil, fmt.Errorf("read chunks of %s %s: %w", kind, storage.QuoteID(owner.ID), err)
		}
		var keep []storage.Chunk
		for _, c := range chunks {
			if matchChunk(c.Metadata, filters) {
				c.Embedding = nil
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 {
			matched[owner.ID] = keep
			out = append(out, cands[i])
		}
	}
	return out, matched, nil
}

// chunkSnippets gives the hits found by the lexical leg alone the text of
// their matching chunk that contains the most query terms (the first on
// ties) instead of the start of the record.
func chunkSnippets[T any](hits []Hit[T], matched map[string][]storage.Chunk, terms []string, maxChars int) {
	for i := range hits {
		h := &hits[i]
		cs := matched[h.ID]
		if h.Vector != nil || len(cs) == 0 {
			continue
		}
		best, bestN := 0, -1
		for j, c := range cs {
			norm := lexical.Normalize(c.Content)
			n := 0
			for _, t := range terms {
				if t != "" && strings.Contains(norm, t) {
					n++
				}
			}
			if n > bestN {
				best, bestN = j, n
			}
		}
		h.Snippet = vector.Truncate(strings.TrimSpace(cs[best].Content), maxChars)
	}
}
