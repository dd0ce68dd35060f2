package storage

import (
	"strings"
)

// ChunkFilter restricts a search to chunks whose metadata entry Key equals
// Value. Keys are compared as given; values are compared normalized (case
// and accents ignored, lexical.Normalize), like Filter values. A chunk
// without the key does not match. Filters on the same key are
// alternatives (tipo=caput or tipo=inciso); filters on different keys must
// all match the same chunk.
//
// In a VectorQuery, chunk filters restrict the chunks searched; in a
// LexicalQuery, they restrict the candidates to owners holding at least
// one matching chunk. Stores evaluate them over every chunk of the
// tenant, so a matching chunk is found wherever it ranks. Values are
// always bound parameters: a ChunkFilter is safe to build from untrusted
// input.
type ChunkFilter struct {
	Key   string
	Value string
}

// Limits of the chunk and owner restrictions of a query, checked by
// ValidateRestrictions.
const (
	// MaxChunkFilterKey is the longest chunk filter key, in bytes.
	MaxChunkFilterKey = 64
	// MaxChunkFilterValue is the longest chunk filter value, in bytes.
	MaxChunkFilterValue = 256
	// MaxChunkFilters is the most chunk filters one query may carry.
	MaxChunkFilters = 32
	// MaxOwnerIDs is the most owner IDs one query may list.
	MaxOwnerIDs = 1000
)

// ValidateRestrictions checks a query's OwnerIDs and ChunkFilters: at
// most MaxOwnerIDs valid IDs, at most MaxChunkFilters filters with a
// non-blank key of at most MaxChunkFilterKey bytes and a value of at most
// MaxChunkFilterValue bytes, all valid text. It returns an error wrapping
// ErrInvalidFilter naming the first problem.
func ValidateRestrictions(ownerIDs []string, filters []ChunkFilter) error {
	if len(ownerIDs) > MaxOwnerIDs {
		return &ValidationError{Field: "owner_ids", Reason: itoa(len(ownerIDs)) + " IDs, at most " + itoa(MaxOwnerIDs), Err: ErrInvalidFilter}
	}
	for i, id := range ownerIDs {
		if !ValidID(id) {
			return &ValidationError{Field: "owner_ids[" + itoa(i) + "]", Reason: "not a valid ID", Err: ErrInvalidFilter}
		}
	}
	if len(filters) > MaxChunkFilters {
		return &ValidationError{Field: "chunk_filters", Reason: itoa(len(filters)) + " filters, at most " + itoa(MaxChunkFilters), Err: ErrInvalidFilter}
	}
	for i, f := range filters {
		bad := func(reason string) error {
			return &ValidationError{Field: "chunk_filters[" + itoa(i) + "]", Reason: reason, Err: ErrInvalidFilter}
		}
		switch {
		case strings.TrimSpace(f.Key) == "":
			return bad("empty key")
		case len(f.Key) > MaxChunkFilterKey:
			return bad("key longer than " + itoa(MaxChunkFilterKey) + " bytes")
		case len(f.Value) > MaxChunkFilterValue:
			return bad("value longer than " + itoa(MaxChunkFilterValue) + " bytes")
		case !ValidText(f.Key) || !ValidText(f.Value):
			return bad("not valid UTF-8 text without NUL bytes")
		}
	}
	return nil
}
