package rag

import (
	"errors"
	"time"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/storage"
)

// Errors returned by the Searcher. Store errors are returned wrapped as they
// come.
var (
	// ErrEmptyQuery: the query text is empty, white space or control
	// characters only (NUL included); nothing was searched.
	ErrEmptyQuery = errors.New("rag: empty query")
	// ErrInvalidQuery: a query field has an impossible value (unknown mode,
	// fusion method, leg or aggregation mode, or an invalid filter).
	ErrInvalidQuery = errors.New("rag: invalid query")
)

// Legs selects which retrieval legs run.
type Legs string

// Leg selections.
const (
	// LegsHybrid runs lexical and vector retrieval (the default).
	LegsHybrid Legs = "hybrid"
	// LegsLexical runs lexical retrieval only; no embedding is computed.
	LegsLexical Legs = "lexical"
	// LegsVector runs vector retrieval only.
	LegsVector Legs = "vector"
)

// Source says which legs found a hit.
type Source string

// Hit sources.
const (
	SourceLexical Source = "lexical"
	SourceVector  Source = "vector"
	SourceBoth    Source = "both"
)

// FallbackReason says why a search ran without its vector leg.
type FallbackReason string

// Fallback reasons, stable strings for logs and API responses.
const (
	// FallbackNone: the vector leg ran (or was not asked for).
	FallbackNone FallbackReason = ""
	// FallbackEmbeddingDisabled: the Searcher has no Embedder.
	FallbackEmbeddingDisabled FallbackReason = "embedding-disabled"
	// FallbackEmbeddingFailed: the query embedding failed or timed out.
	FallbackEmbeddingFailed FallbackReason = "embedding-generation-failed"
	// FallbackVectorQueryError: the store's vector search failed (in a
	// hybrid search; in a vector-only one it is the search's error).
	FallbackVectorQueryError FallbackReason = "vector-query-error"
)

// Query is one search request. The zero value of every field but Text
// means the Searcher's configured default; the pointer field
// VectorThreshold distinguishes "unset" from a meaningful zero. The
// candidate pools, snippets, chunk aggregation and fusion weights are the
// Searcher's (SearcherOptions.Lexical, Vector and Kinds).
type Query struct {
	// Text is what the user asked. Required.
	Text string
	// Context is recent conversation text, appended to Text: up to
	// LimitOptions.MaxFAQQueryChars in all for FAQs, MaxQueryChars for
	// catalog and document searches (the Pipeline sets it for FAQ
	// searches, whose short questions need the conversation's subject,
	// and for follow-ups). Hit evidence
	// weighs the concepts only the context names at contextWeight.
	Context string
	// Limit is the number of hits wanted; below 1 means the kind's
	// default (see LimitOptions for the precedence). It is clamped to
	// LimitOptions.Max.
	Limit int
	// Filters restrict the owners searched (both legs).
	Filters []storage.Filter
	// ChunkFilters restrict the search to chunks whose metadata matches
	// the filters (see storage.ChunkFilter), and so to the owners having such a
	// chunk: the vector leg aggregates matching chunks only (hit evidence,
	// snippet and VectorEvidence.Metadata come from them), and a hit of
	// the lexical leg alone is kept when the owner has a matching chunk,
	// with the one containing the most query terms as its snippet (read
	// with the store's Chunks method, for the hits returned: the store
	// must have one, as the memory and PostgreSQL stores do;
	// ErrInvalidQuery otherwise). The store evaluates the filters over
	// every chunk in both legs (storage.VectorQuery.ChunkFilters,
	// storage.LexicalQuery.ChunkFilters), so a matching chunk is found
	// however far it ranks among all chunks. At most
	// storage.MaxChunkFilters.
	ChunkFilters []storage.ChunkFilter
	// DocumentIDs restrict a document search to the documents with these
	// IDs (both legs); empty means every document. At most 100,
	// each a valid record ID (storage.ValidID); a bad list
	// is a *storage.ValidationError wrapping ErrInvalidQuery naming the
	// entry (Field "document_ids[i]"), and so is a catalog or FAQ search
	// that sets it. Like ChunkFilters they are passed to the store, which
	// searches the listed documents alone in both legs
	// (storage.VectorQuery.OwnerIDs, storage.LexicalQuery.OwnerIDs). IDs
	// are bound parameters, never SQL text.
	DocumentIDs []string
	// Legs restricts retrieval to one leg; the default is both.
	Legs Legs
	// Fusion is the fusion method: weighted (merge.Weighted), rrf,
	// relative or simple (vector hits first, then lexical ones); "" means
	// SearcherOptions.Fusion.
	Fusion merge.Method
	// VectorThreshold keeps chunks with distance <= the threshold
	// (pgvector <#>; default -0.5). math.Inf(1) keeps all.
	VectorThreshold *float64
	// Rerank turns the reranking stage On or Off for this search; zero
	// means the Searcher's default (RerankOptions.Enabled).
	Rerank Toggle
}

// Hit is one search result.
type Hit[T any] struct {
	// ID is the record's ID.
	ID string
	// Record is the item, FAQ or document.
	Record T
	// Source says which legs found the hit.
	Source Source
	// Score is the fused score (0 in simple mode, which ranks by position),
	// or the reranked score when reranking ran.
	Score float64
	// Lexical is the lexical evidence; nil when the lexical leg did not
	// return the hit and it was not scored.
	Lexical *LexicalEvidence
	// Vector is the vector evidence; nil when the vector leg did not
	// return the hit.
	Vector *VectorEvidence
	// Snippet is the best matching text: the aggregated chunks for vector
	// hits, the start of the record's main text otherwise.
	Snippet string
	// Explanation says how Score was computed.
	Explanation merge.Explanation
	// Rerank explains the reranked score, when reranking ran.
	Rerank *rerank.Result
	// Evidence is the hit's calibrated relevance and the decision whether
	// it is relevant to the query (see Evidence); set on every hit.
	Evidence *Evidence
}

// LexicalEvidence is what the lexical leg knows about a hit.
type LexicalEvidence struct {
	// Rank is the 1-based position in the lexical list; 0 when the hit
	// came from the vector leg only (and was scored for consistency).
	Rank int
	// TermsMatched is the store's base rank: distinct terms matched.
	TermsMatched int
	// Score is the lexicalScore (enhanced mode).
	Score float64
	// Signals explain Score (enhanced mode).
	Signals *lexical.Signals
}

// VectorEvidence is what the vector leg knows about a hit.
type VectorEvidence struct {
	// Rank is the 1-based position in the aggregated vector list.
	Rank int
	// Distance is the best chunk's distance (negative inner product).
	Distance float64
	// Similarity is the aggregated similarity used for fusion.
	Similarity float64
	// Chunks is the number of matching chunks of the owner.
	Chunks int
	// HeadingPath and Metadata are those of the owner's best chunk: its
	// heading path (documents, title first; it locates the chunk for
	// citations) and its metadata (see Query.ChunkFilters).
	HeadingPath []string
	Metadata    map[string]string
}

// QueryAnalysis is how the query was understood.
type QueryAnalysis struct {
	// Text is the query as searched (for FAQs, with the context appended).
	Text string
	// Tokens are the query tokens; Terms are the tokens plus the canonical
	// terms of the synonyms used, as sent to the lexical leg.
	Tokens, Terms []string
	// Fallback reports that no token survived and the whole normalized
	// query is the only term.
	Fallback bool
	// Synonyms are the synonym mentions that added a term.
	Synonyms []lexical.Mention
	// Mentions are all subjects, classes and generics the query names.
	Mentions []lexical.Mention
	// Corrections are the misspelled words replaced before analysis
	// (typo correction); Text is the corrected query.
	Corrections []lexical.Correction
}

// Timings are the durations of a search's stages. Lexical and Embed+Vector
// run concurrently, so Total is less than their sum. Lexical is the store's
// lexical search; in enhanced mode the lexical leg then scores its
// candidates, still concurrently with the vector leg, and Merge covers
// scoring vector-only owners and fusion. Fetch is the reading of the
// vector hits' records, done in the vector leg after Vector (so it too
// overlaps the lexical leg), plus, with chunk filters, the reading of the
// chunks of the hits found by the lexical leg alone.
type Timings struct {
	Lexical time.Duration `json:"lexical"`
	Embed   time.Duration `json:"embed"`
	Vector  time.Duration `json:"vector"`
	Fetch   time.Duration `json:"fetch"`
	Merge   time.Duration `json:"merge"`
	Rerank  time.Duration `json:"rerank"`
	Total   time.Duration `json:"total"`
}

// Result is the answer to one search.
type Result[T any] struct {
	// Hits are the results, best first.
	Hits []Hit[T]
	// Query is how the query was analyzed.
	Query QueryAnalysis
	// Legs and Fusion are the settings actually used.
	Legs   Legs
	Fusion merge.Method
	// Limit is the clamped limit.
	Limit int
	// LexicalCount and VectorCount are the number of distinct owners each
	// leg returned, before fusion.
	LexicalCount, VectorCount int
	// EmbeddingUsed reports that the vector leg ran.
	EmbeddingUsed bool
	// FallbackReason says why the vector leg did not run.
	FallbackReason FallbackReason
	// VectorError is the error behind FallbackReason, for logs; it is not
	// returned as the search's error, except the store's error of a
	// vector-only search (LegsVector), which is.
	VectorError error
	// RerankError is the reranker's error; the fused order was kept.
	RerankError error
	// Timings are per stage.
	Timings Timings
}
