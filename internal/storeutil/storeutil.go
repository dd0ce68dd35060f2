// Package storeutil holds what the module's stores (storage/memory,
// storage/postgres) and rag's Searcher share to evaluate queries the same
// way: limit clamping, term normalization, chunk preparation, the
// normalized values filters compare and the grouped form of chunk
// filters. The semantics are documented on storage's query types; this
// package is their one implementation inside the module.
package storeutil

import (
	"slices"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// ClampLimit maps limit into [1, storage.MaxResultLimit], with
// storage.DefaultResultLimit for values < 1.
func ClampLimit(limit int) int {
	switch {
	case limit < 1:
		return storage.DefaultResultLimit
	case limit > storage.MaxResultLimit:
		return storage.MaxResultLimit
	}
	return limit
}

// PrepareChunks returns a copy of chunks with Owner set to owner and an
// empty ContentHash filled from Content. Call it after the chunks are
// validated.
func PrepareChunks(owner storage.OwnerRef, chunks []storage.Chunk) []storage.Chunk {
	out := make([]storage.Chunk, len(chunks))
	for i, c := range chunks {
		c.Owner = owner
		if c.ContentHash == "" {
			c.ContentHash = storage.ContentHash(c.Content)
		}
		out[i] = c
	}
	return out
}

// NormalizeTerms normalizes, trims and dedupes lexical query terms, dropping
// empty ones, preserving order, and keeps the first
// storage.MaxLexicalTerms of them: every store matches exactly the terms it
// returns.
func NormalizeTerms(terms []string) []string {
	out := make([]string, 0, min(len(terms), storage.MaxLexicalTerms))
	seen := make(map[string]bool, min(len(terms), storage.MaxLexicalTerms))
	for _, t := range terms {
		if len(out) == storage.MaxLexicalTerms {
			break
		}
		n := lexical.Normalize(t)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// FilterValues are the normalized values of an owner that filters compare.
type FilterValues struct {
	Category     string
	Manufacturer string
	Tags         []string
	Source       string
	Metadata     map[string]string
}

// ItemFilterValues returns the normalized filterable values of an item.
func ItemFilterValues(it *storage.CatalogItem) FilterValues {
	tags := make([]string, len(it.Tags))
	for i, t := range it.Tags {
		tags[i] = lexical.Normalize(t)
	}
	return FilterValues{
		Category:     lexical.Normalize(it.Category),
		Manufacturer: lexical.Normalize(it.Manufacturer),
		Tags:         tags,
		Metadata:     normalizeMap(it.Metadata),
	}
}

// FAQFilterValues returns the normalized filterable values of a FAQ.
func FAQFilterValues(f *storage.FAQ) FilterValues {
	return FilterValues{Category: lexical.Normalize(f.Category)}
}

// DocumentFilterValues returns the normalized filterable values of a
// document.
func DocumentFilterValues(d *storage.Document) FilterValues {
	return FilterValues{Source: lexical.Normalize(d.Source), Metadata: normalizeMap(d.Metadata)}
}

func normalizeMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = lexical.Normalize(v)
	}
	return out
}

// Match reports whether v satisfies every filter (validated beforehand).
// Filter values are normalized before comparison.
func (v *FilterValues) Match(filters []storage.Filter) bool {
	for _, f := range filters {
		want := lexical.Normalize(f.Value)
		switch f.Field {
		case storage.FieldCategory:
			if v.Category != want {
				return false
			}
		case storage.FieldManufacturer:
			if v.Manufacturer != want {
				return false
			}
		case storage.FieldSource:
			if v.Source != want {
				return false
			}
		case storage.FieldTag:
			found := false
			for _, t := range v.Tags {
				if t == want {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		case storage.FieldMetadata:
			got, ok := v.Metadata[f.Key]
			if !ok || got != want {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// ChunkFilterGroup is the values a chunk's metadata entry Key may take:
// the chunk filters of one key, values normalized.
type ChunkFilterGroup struct {
	Key    string
	Values []string
}

// GroupChunkFilters returns filters grouped by key, in the order each key
// first appears, values normalized (lexical.Normalize) and deduplicated:
// a chunk matches when, for every group, its normalized metadata entry
// Key is one of Values. Stores evaluate this form.
func GroupChunkFilters(filters []storage.ChunkFilter) []ChunkFilterGroup {
	var groups []ChunkFilterGroup
	for _, f := range filters {
		v := lexical.Normalize(f.Value)
		i := slices.IndexFunc(groups, func(g ChunkFilterGroup) bool { return g.Key == f.Key })
		if i < 0 {
			groups = append(groups, ChunkFilterGroup{Key: f.Key})
			i = len(groups) - 1
		}
		if !slices.Contains(groups[i].Values, v) {
			groups[i].Values = append(groups[i].Values, v)
		}
	}
	return groups
}

// NormalizeChunkMetadata returns a copy of a chunk's metadata with every
// value normalized (lexical.Normalize): what chunk filters compare with.
// It returns nil for empty metadata.
func NormalizeChunkMetadata(meta map[string]string) map[string]string {
	if len(meta) == 0 {
		return nil
	}
	out := make(map[string]string, len(meta))
	for k, v := range meta {
		out[k] = lexical.Normalize(v)
	}
	return out
}

// MatchChunkGroups reports whether normalized metadata (see
// NormalizeChunkMetadata) satisfies groups (see GroupChunkFilters). No
// groups match every chunk.
func MatchChunkGroups(norm map[string]string, groups []ChunkFilterGroup) bool {
	for _, g := range groups {
		v, ok := norm[g.Key]
		if !ok || !slices.Contains(g.Values, v) {
			return false
		}
	}
	return true
}
