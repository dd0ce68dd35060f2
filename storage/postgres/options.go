package postgres

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/hybridrag/hybridrag/vector"
)

// IterativeScan is pgvector's hnsw.iterative_scan mode (pgvector ≥ 0.8). With
// an iterative scan, a filtered HNSW search (tenant, active owner, metadata)
// keeps walking the graph until it has enough rows, instead of returning
// fewer than the limit.
type IterativeScan string

// Iterative scan modes.
const (
	// IterativeRelaxed returns rows in approximately ascending distance;
	// the store re-sorts them, so results are still exactly ordered. It is
	// the default.
	IterativeRelaxed IterativeScan = "relaxed_order"
	// IterativeStrict returns rows in exact distance order (slower).
	IterativeStrict IterativeScan = "strict_order"
	// IterativeOff disables iterative scans: a filtered search may then
	// return fewer rows than the limit.
	IterativeOff IterativeScan = "off"
)

// Default option values.
const (
	// DefaultSchema is the schema holding hybridrag's tables.
	DefaultSchema = "hybridrag"
	// defaultEfSearch is the hnsw.ef_search of a search (pgvector's own
	// default is 40); a search asking for more rows raises it to its limit
	// plus 16. It is the smallest value measured to give recall@10 ≥ 0.95
	// on 100k 1536-dimension vectors shaped like a real embedding model's
	// (topics and subtopics, not the hash embedder's flat similarities),
	// on two index builds: 0.91–0.97 at 40, 0.95–0.97 at 100, for short
	// and document-like queries (BENCHMARKS.md, "ef_search on a clustered
	// geometry").
	defaultEfSearch = 100
	// maxDimensions is the largest vector pgvector stores.
	maxDimensions = 16000
	// maxIndexedDimensions is the largest vector pgvector's HNSW index
	// accepts; above it the tables are created without an HNSW index and
	// vector search is an exact scan (unless Options.HalfPrecisionIndex).
	maxIndexedDimensions = 2000
	// maxHalfIndexedDimensions is the largest vector pgvector's HNSW index
	// accepts in half precision (Options.HalfPrecisionIndex).
	maxHalfIndexedDimensions = 4000
	// maxPlainDimensions bounds inline (STORAGE PLAIN) vectors so a chunk
	// row still fits in an 8 kB page with its keys and TOAST pointers.
	maxPlainDimensions = 1800
)

// Options configure a DB. The zero value is valid: 1536 dimensions, schema
// "hybridrag", no metadata filters, ef_search 100, relaxed iterative scans.
type Options struct {
	// Dimensions is the embedding length, fixed when Migrate creates the
	// tables (vector(N)) and checked against the database by Check.
	// Zero means vector.DefaultDimensions (1536); at most 16,000
	// (pgvector's limit). Above 2,000 (4,000 with HalfPrecisionIndex) the
	// chunk tables have no HNSW index and vector search is an exact scan.
	Dimensions int
	// Schema is the PostgreSQL schema holding the tables; Migrate creates
	// it. It must match [a-z_][a-z0-9_]{0,62}. Empty means DefaultSchema.
	Schema string
	// AllowedMetadataKeys are the metadata keys searches may filter on (see
	// storage.Filter); filters on other keys are rejected with
	// storage.ErrInvalidFilter.
	AllowedMetadataKeys []string
	// EfSearch is hnsw.ef_search, the HNSW candidate list size: larger is
	// more accurate and slower. Zero means 100 (pgvector's own default is
	// 40; 100 is the smallest value measured to give recall@10 ≥ 0.95 on
	// 100k clustered 1536-dimension vectors); the store raises
	// it to the query's limit (pgvector caps it at 1000).
	EfSearch int
	// IterativeScan is hnsw.iterative_scan. Empty means IterativeRelaxed.
	IterativeScan IterativeScan
	// MaxScanTuples is hnsw.max_scan_tuples, the most tuples an iterative
	// scan visits. Zero keeps pgvector's default (20 000).
	MaxScanTuples int
	// ExactSearch makes vector search bypass the HNSW index: an exact scan
	// of the tenant's chunks, with exactly the memory store's results.
	// Useful for small tenants and for measuring recall.
	ExactSearch bool
	// StorageDefault keeps pgvector's default (TOASTed, compressed) storage
	// for embeddings instead of STORAGE PLAIN. It only matters when Migrate
	// creates the tables. Inline storage makes exact scans about 2.8×
	// faster at 1536 dimensions; vectors above 1800 dimensions never use it.
	StorageDefault bool
	// HalfPrecisionIndex builds each chunk table's HNSW index over the
	// embeddings converted to half precision (pgvector's halfvec, pgvector
	// ≥ 0.7) instead of over the stored vectors: an index about half the
	// size, and HNSW up to 4,000 dimensions. The embeddings stay
	// stored in full precision: an HNSW search takes its candidates from
	// the half-precision index and ranks them by their full-precision
	// distances, so the distances returned, their order and every exact
	// scan (ExactSearch, restricted searches) are the same as without the
	// option; only which candidates the index finds may differ (measured
	// in BENCHMARKS.md). Migrate builds the index the option names and
	// drops the other one (an index build over the existing chunks when the
	// option changes), so every process using a schema should set it the
	// same way; a search whose option does not match the schema's index is
	// an exact scan.
	HalfPrecisionIndex bool
}

var schemaRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// withDefaults returns a copy of o with defaults filled in, or an error
// naming the invalid option.
func (o Options) withDefaults() (Options, error) {
	if o.Dimensions == 0 {
		o.Dimensions = vector.DefaultDimensions
	}
	if o.Dimensions < 1 || o.Dimensions > maxDimensions {
		return o, fmt.Errorf("postgres: Options.Dimensions %d out of range [1, %d]", o.Dimensions, maxDimensions)
	}
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	if !schemaRE.MatchString(o.Schema) {
		return o, fmt.Errorf("postgres: Options.Schema %q must match %s", o.Schema, schemaRE)
	}
	if o.EfSearch == 0 {
		o.EfSearch = defaultEfSearch
	}
	if o.EfSearch < 1 || o.EfSearch > 1000 {
		return o, fmt.Errorf("postgres: Options.EfSearch %d out of range [1, 1000]", o.EfSearch)
	}
	switch o.IterativeScan {
	case "":
		o.IterativeScan = IterativeRelaxed
	case IterativeRelaxed, IterativeStrict, IterativeOff:
	default:
		return o, fmt.Errorf("postgres: Options.IterativeScan %q: want relaxed_order, strict_order or off", o.IterativeScan)
	}
	if o.MaxScanTuples < 0 {
		return o, fmt.Errorf("postgres: Options.MaxScanTuples %d is negative", o.MaxScanTuples)
	}
	o.AllowedMetadataKeys = slices.Clone(o.AllowedMetadataKeys)
	return o, nil
}

// exactSearch reports whether vector searches scan exactly: asked for, or
// above the dimensions HNSW indexes.
func (o *Options) exactSearch() bool {
	return o.ExactSearch || !o.hnsw()
}

// hnsw reports whether the chunk tables have an HNSW index: pgvector
// indexes up to maxIndexedDimensions, or maxHalfIndexedDimensions in half
// precision.
func (o *Options) hnsw() bool {
	if o.HalfPrecisionIndex {
		return o.Dimensions <= maxHalfIndexedDimensions
	}
	return o.Dimensions <= maxIndexedDimensions
}
