package storage

import (
	"math"
	"regexp"
	"strings"
)

// FilterField names what a Filter compares.
type FilterField string

// Filterable fields. Category applies to items and FAQs, Manufacturer and
// Tag to items, Source to documents, and Metadata to items and documents.
const (
	FieldCategory     FilterField = "category"
	FieldManufacturer FilterField = "manufacturer"
	FieldTag          FilterField = "tag"
	FieldSource       FilterField = "source"
	FieldMetadata     FilterField = "metadata"
)

// Filter restricts a search to owners whose field equals Value. Comparison is
// on normalized text (case and accents ignored, see lexical.Normalize). For
// FieldTag the owner matches when any tag equals Value; for FieldMetadata,
// Key names the metadata entry and must be in the store's allowlist.
//
// Filters are always sent to the database as bound parameters; a Filter is
// safe to build from untrusted input such as an LLM tool call.
type Filter struct {
	Field FilterField
	Key   string
	Value string
}

var metadataKeyRE = regexp.MustCompile(`^[a-z0-9_][a-z0-9_.-]{0,63}$`)

// ValidateFilters checks filters against the owner kind and the metadata key
// allowlist. It returns an error wrapping ErrInvalidFilter naming the first
// bad filter.
func ValidateFilters(kind OwnerKind, filters []Filter, allowedMetadataKeys []string) error {
	for i, f := range filters {
		bad := func(reason string) error {
			return &ValidationError{Field: "filters[" + itoa(i) + "]", Reason: reason, Err: ErrInvalidFilter}
		}
		switch f.Field {
		case FieldCategory:
			if kind == KindDocument {
				return bad("category does not apply to documents")
			}
		case FieldManufacturer, FieldTag:
			if kind != KindItem {
				return bad(string(f.Field) + " applies to catalog items only")
			}
		case FieldSource:
			if kind != KindDocument {
				return bad("source applies to documents only")
			}
		case FieldMetadata:
			if kind == KindFAQ {
				return bad("metadata does not apply to FAQs")
			}
			if !metadataKeyRE.MatchString(f.Key) {
				return bad("metadata key " + quote(f.Key) + " is not a valid key")
			}
			allowed := false
			for _, k := range allowedMetadataKeys {
				if k == f.Key {
					allowed = true
					break
				}
			}
			if !allowed {
				return bad("metadata key " + quote(f.Key) + " is not in the allowlist")
			}
		default:
			return bad("unknown field " + quote(string(f.Field)))
		}
		if len(f.Value) > 256 {
			return bad("value longer than 256 bytes")
		}
	}
	return nil
}

// LexicalQuery asks a store for lexical candidates with substring
// semantics, so that a stem or a word's start finds its inflections and
// compounds ("fungicid" finds "fungicidas"): a term matches a field when the normalized field contains the
// normalized term as a substring (%, _, \ and quotes are literal); terms and
// fields are ORed; only active records are returned; records are ranked by
// the number of distinct terms matched, then by CreatedAt descending, then by
// ID ascending.
type LexicalQuery struct {
	// Terms are matched after lexical.Normalize; empty and repeated terms
	// are ignored, and so is every term after the first MaxLexicalTerms
	// distinct ones, in every store.
	Terms []string
	// Limit caps the number of candidates; values < 1 mean
	// DefaultResultLimit, values above MaxResultLimit mean MaxResultLimit.
	Limit   int
	Filters []Filter
	// OwnerIDs, when not empty, restricts the candidates to these owners
	// (at most MaxOwnerIDs; unknown IDs match nothing).
	OwnerIDs []string
	// ChunkFilters, when not empty, restricts the candidates to owners
	// holding at least one chunk that passes them (see ChunkFilter).
	ChunkFilters []ChunkFilter
}

// MaxLexicalTerms is the most distinct normalized terms a lexical query
// matches: stores use the first MaxLexicalTerms and ignore the rest, as they
// clamp limits to MaxResultLimit, so that no query (a pasted document of
// thousands of words) makes a store build an unbounded statement or scan.
// rag's Searcher truncates query text before (LimitOptions.MaxQueryChars).
const MaxLexicalTerms = 64

// LexicalCandidate is one record returned by a lexical query.
type LexicalCandidate[T any] struct {
	Record T
	// TermsMatched is the number of distinct query terms found in any field.
	TermsMatched int
}

// VectorQuery asks a store for the chunks nearest to a query vector.
//
// Distance is the negative inner product (pgvector's <#>): smaller is
// closer, -1 is identical for unit vectors. Chunks with Distance >
// MaxDistance are dropped; use NoThreshold to keep everything.
type VectorQuery struct {
	Kind   OwnerKind
	Vector []float32
	// Limit caps the number of chunks; values < 1 mean DefaultResultLimit,
	// values above MaxResultLimit mean MaxResultLimit.
	Limit int
	// MaxDistance drops chunks farther than it. The zero value keeps
	// distances <= 0 (inner product >= 0); NoThreshold (or +Inf) keeps
	// every chunk; NaN keeps none.
	MaxDistance float64
	Filters     []Filter
	// OwnerIDs, when not empty, restricts the search to the chunks of these
	// owners (at most MaxOwnerIDs; unknown IDs match nothing).
	OwnerIDs []string
	// ChunkFilters, when not empty, restricts the search to the chunks that
	// pass them (see ChunkFilter). Stores apply OwnerIDs and ChunkFilters
	// before ranking: the nearest matching chunks are returned however
	// many nearer chunks do not match.
	ChunkFilters []ChunkFilter
}

// NoThreshold is a MaxDistance that keeps every chunk: every distance a
// store computes (finite, from finite vectors) is <= it.
const NoThreshold = math.MaxFloat64

// DefaultResultLimit is the number of records, candidates or chunks a store
// returns when a query's or page's Limit is below 1. It is the stores'
// default, unrelated to the default number of hits of a rag search.
const DefaultResultLimit = 10

// MaxResultLimit is the most records, candidates or chunks a store returns
// for one query or page; larger limits are clamped to it.
const MaxResultLimit = 1000

// ChunkMatch is one chunk returned by a vector query, without its embedding
// but with everything else stored for it: content, hash, Start,
// HeadingPath, File and Metadata.
type ChunkMatch struct {
	Chunk    Chunk
	Distance float64
}

// Page selects a slice of a listing ordered by ID.
type Page struct {
	// After returns records whose ID sorts after it; empty starts at the
	// beginning.
	After string
	// Limit caps the page; values < 1 mean DefaultResultLimit, values
	// above MaxResultLimit mean MaxResultLimit.
	Limit int
}

func normalizeKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
