package rag

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/internal/chunkagg"
	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// prepareChunkFilters validates filters and returns them grouped by key
// with normalized values.
func prepareChunkFilters(filters []storage.ChunkFilter) ([]storeutil.ChunkFilterGroup, error) {
	if len(filters) == 0 {
		return nil, nil
	}
	if len(filters) > storage.MaxChunkFilters {
		return nil, fmt.Errorf("chunk_filters: %d filters, at most %d", len(filters), storage.MaxChunkFilters)
	}
	for i, f := range filters {
		switch {
		case strings.TrimSpace(f.Key) == "":
			return nil, fmt.Errorf("chunk_filters[%d]: empty key", i)
		case len(f.Key) > storage.MaxChunkFilterKey:
			return nil, fmt.Errorf("chunk_filters[%d]: key longer than %d bytes", i, storage.MaxChunkFilterKey)
		case len(f.Value) > storage.MaxChunkFilterValue:
			return nil, fmt.Errorf("chunk_filters[%d]: value longer than %d bytes", i, storage.MaxChunkFilterValue)
		case !storage.ValidText(f.Key) || !storage.ValidText(f.Value):
			return nil, fmt.Errorf("chunk_filters[%d]: not valid UTF-8 text without NUL bytes", i)
		}
	}
	return storeutil.GroupChunkFilters(filters), nil
}

// matchChunk reports whether meta satisfies the (prepared) filters: one
// of the values of each key.
func matchChunk(meta map[string]string, groups []storeutil.ChunkFilterGroup) bool {
	if len(groups) == 0 {
		return true
	}
	return storeutil.MatchChunkGroups(storeutil.NormalizeChunkMetadata(meta), groups)
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

// ownerList returns the set's IDs, sorted (nil for nil).
func ownerList(set map[string]bool) []string {
	if set == nil {
		return nil
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// restricted reports whether the query restricts chunks or owners (chunk
// filters or document IDs). The store applies the restrictions; the
// Searcher checks what it returns again (keepOwners, filterMatches,
// chunkSnippets), which costs nothing with a store that applied them.
func (st *settings) restricted() bool {
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

// chunkSnippets gives the first n hits found by the lexical leg alone the
// text of their matching chunk that contains the most query terms (the
// first on ties) instead of the start of the record, reading each one's
// chunks (one store call per hit). A hit without a matching chunk (a store
// that ignored the chunk filters) is dropped.
func chunkSnippets[T any](ctx context.Context, r chunkReader, kind storage.OwnerKind, hits []Hit[T], n int, groups []storeutil.ChunkFilterGroup, terms []string, maxChars int) ([]Hit[T], error) {
	out := hits[:0]
	for i := range hits {
		h := hits[i]
		if i >= n || h.Vector != nil {
			out = append(out, h)
			continue
		}
		chunks, err := r.Chunks(ctx, storage.OwnerRef{Kind: kind, ID: h.ID})
		if err != nil {
			return nil, fmt.Errorf("read chunks of %s %s: %w", kind, storage.QuoteID(h.ID), err)
		}
		best, bestN := -1, -1
		for j := range chunks {
			if !matchChunk(chunks[j].Metadata, groups) {
				continue
			}
			norm := lexical.Normalize(chunks[j].Content)
			m := 0
			for _, t := range terms {
				if t != "" && strings.Contains(norm, t) {
					m++
				}
			}
			if m > bestN {
				best, bestN = j, m
			}
		}
		if best < 0 {
			continue
		}
		h.Snippet = chunkagg.Truncate(strings.TrimSpace(chunks[best].Content), maxChars)
		out = append(out, h)
	}
	return out, nil
}
