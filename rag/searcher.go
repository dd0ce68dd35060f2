package rag

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/rag/internal/textutil"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Defaults of the Searcher (seed 000 §4, §8; seed 001 §3).
const (
	defaultLimit               = 5
	defaultMaxLimit            = 50
	defaultVectorThreshold     = -0.5
	defaultCandidateMultiplier = 6
	defaultCandidateMax        = 200
	defaultEmbedTimeout        = 2 * time.Second
	defaultMaxStalledEmbeds    = 16
	defaultMaxFAQQueryChars    = 1200
	defaultMaxQueryChars       = 2000
)

// SearcherOptions configures a Searcher. The zero value gives the seeds'
// defaults with weighted fusion; DefaultSearcherOptions shows them filled
// in. NewSearcher copies the options (pointers included), so changing them
// afterwards does not change the Searcher.
type SearcherOptions struct {
	// DefaultLimit is used when a query's Limit is < 1 (default 5).
	DefaultLimit int
	// MaxLimit clamps every query's Limit (default 50).
	MaxLimit int
	// Fusion is the default fusion method (HYBRID_SEARCH_ENHANCED):
	// weighted (the default, the seeds' computeCombinedScore and enhanced
	// mode), rrf, relative, or simple — the seeds' simple mode, which keeps
	// the store's lexical order (terms matched, newest first), scores
	// nothing and lists vector hits first, then lexical ones (seed 000 §4.7).
	// Seed 000 runs simple unless HYBRID_SEARCH_ENHANCED is "true"; the
	// default here is its enhanced mode because simple ranks far worse
	// (examples/eval -mode hybrid, hash embedder, nDCG@10 simple vs
	// weighted: AGROFIT 0.651 vs 0.950, IRPF FAQs 0.440 vs 0.584, FaQuAD
	// 0.854 vs 0.916; the chat cases' source precision 0.759 vs 0.764).
	Fusion merge.Method
	// Catalog, FAQs and Documents are the settings of each record kind.
	Catalog, FAQs, Documents KindOptions
	// CandidateMultiplier and CandidateMax size the lexical candidate pool
	// (6, 200): min(limit × multiplier, max), never less than the limit.
	CandidateMultiplier, CandidateMax int
	// VectorCandidateMultiplier and VectorCandidateMax size the vector
	// pool; 0 means CandidateMultiplier and CandidateMax. A query's own
	// CandidateMultiplier and CandidateMax override both pools.
	VectorCandidateMultiplier, VectorCandidateMax int
	// ChunksPerOwner (1) and SnippetMaxChars (800) shape snippets.
	ChunksPerOwner, SnippetMaxChars int
	// Aggregate is the chunk aggregation mode (default max).
	Aggregate vector.AggregateMode
	// EmbedTimeout bounds the query embedding (default 2 s). On timeout
	// the search returns lexical results with FallbackEmbeddingFailed.
	// The search returns at the timeout even when the embedder ignores its
	// context; the embedder call is then left to finish in the background
	// (its result is dropped) and counts as stalled until it returns.
	EmbedTimeout time.Duration
	// MaxStalledEmbeds is the most query embeddings left running past
	// their timeout (or their search's cancellation) that the Searcher
	// tolerates (default 16). While that many have not returned, searches
	// do not call the embedder: they return lexical results at once with
	// FallbackEmbeddingFailed and a VectorError wrapping
	// context.DeadlineExceeded ("query embedder stalled"). So an embedder that ignores its context and
	// never returns holds at most about that many goroutines (plus one per
	// search in progress), not one per search.
	MaxStalledEmbeds int
	// MaxQueryChars truncates over-long query text (default 2000).
	MaxQueryChars int
	// MaxFAQQueryChars bounds query + context for FAQs (default 1200).
	MaxFAQQueryChars int
	// Vocabulary is the vocabulary-driven query analysis as a whole
	// (default On); Off gives the seeds' analysis: no typo correction and
	// no IDF weights.
	Vocabulary Toggle
	// TypoCorrection (default On) replaces a query word of 5+ letters that
	// no indexed word starts with, that is neither a stopword nor in the
	// synonym table, and that Lexicon does not know as a word of the
	// language, by the indexed word within one edit (two from 8 letters)
	// found in the most records ("fungisida" → "fungicida"; "sábado" is
	// left alone even in a store whose records say "sabão").
	TypoCorrection Toggle
	// Lexicon tells words of the language from typos for TypoCorrection:
	// nil means lexicon.Default(), Brazilian Portuguese and English.
	// Use lexicon.New(nil) to let the store's vocabulary alone decide.
	Lexicon *lexicon.Lexicon
	// IDF (default On) multiplies each query term's field weights and
	// match bonus by its IDF relative to a term found in one record of ten
	// (lexical.Vocabulary.IDFWeights), unless the kind's Scorer has an IDF
	// hook of its own. IDFOptions shapes the weights.
	IDF Toggle
	// IDFOptions shapes the IDF weights (zero value: lexical's defaults).
	IDFOptions lexical.IDFOptions
	// CorrectionMinDF is the least number of records a word must appear
	// in to be a correction (default 2).
	CorrectionMinDF int
	// VectorExpansion (default On) appends the canonical terms of the
	// synonyms the query used before embedding it ("fungicida para
	// videira" is embedded as "fungicida para videira uva"), so an embedder
	// that knows no synonyms (the hash embedder) still meets the catalog's
	// vocabulary; for semantic models the addition is harmless.
	VectorExpansion Toggle
	// Reranker reorders the head of the fused hits of queries with
	// reranking on.
	Reranker rerank.Reranker
	// Rerank is the default of queries that leave Query.Rerank nil
	// (default Off). Seed 004 reranks unless told not to; here it is off
	// because there is nothing to rerank with until a Reranker is given,
	// and the offline one (rerank.Keyword, the seed's fallback) measured
	// mixed with examples/eval -chat -rerank keyword: source precision
	// 0.764 → 0.779 on chat_eval.jsonl, 0.708 → 0.744 on
	// chat_eval_fresh.jsonl, whose fact recall fell 0.673 → 0.653.
	Rerank Toggle
	// RerankOptions are the reranking window and cut (seed: 20 → 5, min
	// 0.5); the final cut is never above the query's limit.
	RerankOptions rerank.Options
	// NormalizedCacheSize is how many records' normalized fields are kept
	// for lexical scoring (default 20 000; negative disables the cache).
	NormalizedCacheSize int
	// Evidence shapes the calibrated relevance every hit carries
	// (Hit.Evidence); the zero value gives the defaults.
	Evidence EvidenceOptions
	// Logger, when set, receives one record per search (seed 000
	// logHybridStats): "rag search" at info level with the kind, the
	// query (its first 200 characters), the number of results, each
	// leg's count, whether the embedding was used and the fallback reason,
	// the legs, fusion and limit, and the stage timings (a "timings"
	// group); "rag search failed" at warning level with the error (a
	// blank query, rejected at once, is not logged). nil logs nothing.
	Logger *slog.Logger
	// Tracer, when set, traces each search (package trace). When it also
	// implements trace.LegTracer each retrieval leg is traced, and when it
	// implements trace.EmbedTracer each query embedding. nil traces
	// nothing.
	Tracer trace.SearchTracer
}

// KindOptions are the settings of one record kind (catalog items, FAQs or
// documents) in SearcherOptions.
type KindOptions struct {
	// Weights are the default fusion weights (zero fields: vector 6,
	// lexical 4, pair 4, rank bonuses 1; negative fields turn a component
	// off). When the catalog's are left entirely zero and the embedder
	// implements vector.FusionWeightSuggester, its suggestion is used for
	// catalog searches (the hash embedder suggests vector 3, lexical 6:
	// AGROFIT nDCG@10 0.891 → 0.928; on FAQs and documents it measured
	// slightly worse, so they keep the seeds' weights).
	Weights scoring.Weights
	// Threshold is the default vector threshold (pgvector <#> distance).
	// nil means -0.5 (the seeds'), or the embedder's own suggestion when
	// it implements vector.ThresholdSuggester (the hash embedder suggests
	// -0.2).
	//
	// Documents keep -0.5 too, not seed 002's min_similarity 0.6 (-0.6):
	// seed 000 chose -0.5 for the same model (text-embedding-3-small)
	// for catalog and FAQs, and one scale across kinds keeps the fused
	// scores comparable; text-embedding-3 models are known to give lower
	// cosine similarities than earlier OpenAI models, so a stricter cut
	// risks dropping answers before the evidence sees them. Neither value
	// is measured here (no provider in the tests or the evaluator;
	// offline the hash embedder's -0.2 applies and this default is never
	// used). Seed 002's 0.6 still decides augmentation: it is the
	// low confidence level (scoring.DefaultLowThreshold) the Pipeline
	// applies to the hits' relevance. RAG__MIN_SIMILARITY=0.6
	// (the example programs' environment) restores the seed's cut.
	Threshold *float64
	// Legs is the default Legs of searches that leave Query.Legs empty;
	// "" means hybrid. FAQs.Legs = LegsLexical is FAQ_HYBRID_ENABLED=false.
	Legs Legs
	// Scorer scores the kind's lexical candidates; nil means the kind's
	// default from package fields (fields.CatalogScorer, FAQScorer,
	// DocumentScorer; the FAQ and document ones with a few question
	// paraphrases added to lexical.DefaultSynonyms: "quanto tempo
	// demora", "demorar" for "prazo").
	Scorer *lexical.Scorer
	// Limit is the number of hits of the kind's searches that leave
	// Query.Limit below 1; 0 (or negative) means DefaultLimit. It is
	// clamped to MaxLimit. Documents.Limit is seed 002's RAG__TOP_K.
	Limit int
}

// Toggle turns an optional stage of the Searcher on or off; the zero
// value keeps the stage's documented default.
type Toggle int8

// Toggle values.
const (
	// On turns the stage on.
	On Toggle = 1
	// Off turns the stage off.
	Off Toggle = -1
)

// enabled reports whether the stage runs, given its default.
func (t Toggle) enabled(def bool) bool {
	if t == 0 {
		return def
	}
	return t == On
}

// Searcher runs hybrid searches over a tenant-scoped store. It is safe for
// concurrent use; its configuration is fixed at construction.
type Searcher struct {
	norm     *normCache
	store    storage.Store
	embedder vector.Embedder
	// checked wraps embedder: one finite unit vector per query, or a
	// typed error (the query then falls back to the lexical results).
	checked vector.Embedder
	opts    SearcherOptions
	// scorers are the kinds' lexical scorers, by kindIndex.
	scorers  [numKinds]*lexical.Scorer
	lex      lexicons
	calib    calibrations
	evidence EvidenceOptions
	frames   sync.Map // *lexical.Scorer → frame word set
	generals sync.Map // *lexical.Scorer → map[string]generalUsage
	// stalled counts query embeddings abandoned by their search and still
	// running (see embedQuery).
	stalled atomic.Int64
	// tracers are the interfaces opts.Tracer implements.
	tracers searchTracers
	// disc is the discontinued index (nil until first needed, and again
	// after Refresh).
	disc atomic.Pointer[discontinuedIndex]
}

// DefaultSearcherOptions returns the options a zero SearcherOptions
// stands for, with every default filled in (limits, candidate pools,
// timeouts, the query caps); NewSearcher applies the same defaults.
func DefaultSearcherOptions() SearcherOptions {
	return SearcherOptions{}.withDefaults()
}

// withDefaults fills the unset fields of o and copies its pointers.
func (o SearcherOptions) withDefaults() SearcherOptions {
	o.Evidence = o.Evidence.withDefaults()
	for _, k := range []*KindOptions{&o.Catalog, &o.FAQs, &o.Documents} {
		if k.Threshold != nil {
			t := *k.Threshold
			k.Threshold = &t
		}
		k.Limit = max(k.Limit, 0)
	}
	if o.DefaultLimit < 1 {
		o.DefaultLimit = defaultLimit
	}
	if o.MaxLimit < 1 {
		o.MaxLimit = defaultMaxLimit
	}
	o.DefaultLimit = min(o.DefaultLimit, o.MaxLimit)
	if o.Fusion == "" {
		o.Fusion = merge.MethodWeighted
	}
	if o.CandidateMultiplier < 1 {
		o.CandidateMultiplier = defaultCandidateMultiplier
	}
	if o.CandidateMax < 1 {
		o.CandidateMax = defaultCandidateMax
	}
	o.VectorCandidateMultiplier = max(o.VectorCandidateMultiplier, 0)
	o.VectorCandidateMax = max(o.VectorCandidateMax, 0)
	if o.ChunksPerOwner < 1 {
		o.ChunksPerOwner = vector.DefaultChunksPerOwner
	}
	if o.SnippetMaxChars < 1 {
		o.SnippetMaxChars = vector.DefaultSnippetMaxChars
	}
	if o.EmbedTimeout <= 0 {
		o.EmbedTimeout = defaultEmbedTimeout
	}
	if o.MaxStalledEmbeds < 1 {
		o.MaxStalledEmbeds = defaultMaxStalledEmbeds
	}
	if o.MaxQueryChars < 1 {
		o.MaxQueryChars = defaultMaxQueryChars
	}
	if o.CorrectionMinDF < 1 {
		o.CorrectionMinDF = defaultCorrectionMinDF
	}
	if o.MaxFAQQueryChars < 1 {
		o.MaxFAQQueryChars = defaultMaxFAQQueryChars
	}
	return o
}

// NewSearcher returns a Searcher over store. embedder may be nil, in which
// case every search is lexical with FallbackEmbeddingDisabled. Query
// vectors are checked and normalized to unit length (vector.Checked); a
// bad vector is a vector-leg failure like an embedder error. The options
// are copied, pointers included. NewSearcher does no I/O.
func NewSearcher(store storage.Store, embedder vector.Embedder, opts SearcherOptions) *Searcher {
	o := opts.withDefaults()
	s := &Searcher{store: store, embedder: embedder, opts: o, norm: newNormCache(o.NormalizedCacheSize), tracers: newSearchTracers(o.Tracer)}
	if embedder != nil {
		s.checked = vector.Checked(embedder)
	}
	s.evidence = o.Evidence.withDefaults()
	s.scorers[itemKind.index] = kindScorer(itemKind, &o)
	s.scorers[faqKind.index] = kindScorer(faqKind, &o)
	s.scorers[docKind.index] = kindScorer(docKind, &o)
	return s
}

// Options returns the Searcher's effective configuration.
func (s *Searcher) Options() SearcherOptions { return s.opts }

// Embedder returns the query embedder, or nil.
func (s *Searcher) Embedder() vector.Embedder { return s.embedder }

// kindScorer is the lexical scorer of kind k: the kind's
// KindOptions.Scorer, or its default.
func kindScorer[T any](k *recordKind[T], o *SearcherOptions) *lexical.Scorer {
	if sc := k.options(o).Scorer; sc != nil {
		return sc
	}
	return k.scorer()
}

// kindOps binds the generic search to one kind of record in one
// Searcher: the kind's description, the Searcher's settings of the kind
// and the kind's records in its store.
type kindOps[T any] struct {
	*recordKind[T]
	scorer    *lexical.Scorer
	weights   scoring.Weights
	threshold *float64
	legs      Legs
	limit     int
	store     storage.RecordStore[T]
	norm      *normCache
}

// opsOf returns the kindOps of kind k in s.
func opsOf[T any](s *Searcher, k *recordKind[T]) kindOps[T] {
	o := k.options(&s.opts)
	return kindOps[T]{
		recordKind: k, scorer: s.scorers[k.index], weights: o.Weights, threshold: o.Threshold, legs: o.Legs, limit: o.Limit,
		store: k.records(s.store), norm: s.norm,
	}
}

// lexSearch returns the store's lexical candidates of the kind.
func (o kindOps[T]) lexSearch(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	return o.store.Search(ctx, q)
}

// get reads the records among ids.
func (o kindOps[T]) get(ctx context.Context, ids []string) ([]T, error) {
	return o.store.GetMany(ctx, ids)
}

// record returns r's fields for lexical scoring, normalized once per
// record version (the Searcher's cache).
func (o kindOps[T]) record(r *T) lexical.Record {
	return o.norm.record(o.kind, o.id(r), o.updated(r), o.fields(r))
}

// SearchCatalog runs a hybrid search over active catalog items.
func (s *Searcher) SearchCatalog(ctx context.Context, q Query) (*Result[storage.CatalogItem], error) {
	if textutil.IsBlank(strings.ToValidUTF8(q.Text, "")) {
		return nil, ErrEmptyQuery
	}
	return search(ctx, s, q, opsOf(s, itemKind), combineQueryWithContext(q.Text, q.Context, s.opts.MaxQueryChars))
}

// SearchFAQs runs a hybrid search over active FAQs; q.Context is appended
// to the query text up to MaxFAQQueryChars. A query without Legs uses
// SearcherOptions.FAQs.Legs.
func (s *Searcher) SearchFAQs(ctx context.Context, q Query) (*Result[storage.FAQ], error) {
	if textutil.IsBlank(strings.ToValidUTF8(q.Text, "")) {
		return nil, ErrEmptyQuery
	}
	return search(ctx, s, q, opsOf(s, faqKind), combineQueryWithContext(q.Text, q.Context, s.opts.MaxFAQQueryChars))
}

// SearchDocuments runs a hybrid search over documents.
func (s *Searcher) SearchDocuments(ctx context.Context, q Query) (*Result[storage.Document], error) {
	if textutil.IsBlank(strings.ToValidUTF8(q.Text, "")) {
		return nil, ErrEmptyQuery
	}
	return search(ctx, s, q, opsOf(s, docKind), combineQueryWithContext(q.Text, q.Context, s.opts.MaxQueryChars))
}

// CombineQueryWithContext appends context to query, separated by a space,
// and cuts the result to maxChars characters (the seeds'
// combineQueryWithContext). The query itself is kept whole when it alone
// fits; context is cut first.
func combineQueryWithContext(query, context string, maxChars int) string {
	query = strings.TrimSpace(query)
	context = strings.TrimSpace(context)
	if maxChars < 1 {
		maxChars = defaultMaxFAQQueryChars
	}
	query = textutil.TruncateRunes(query, maxChars)
	if context == "" {
		return query
	}
	room := maxChars - utf8.RuneCountInString(query) - 1
	if room <= 0 {
		return query
	}
	return query + " " + textutil.TruncateRunes(context, room)
}

// settings are a query's effective parameters.
type settings struct {
	limit, lexCands, vecCands int
	legs                      Legs
	fusion                    merge.Method
	weights                   scoring.Weights
	threshold                 float64
	agg                       vector.AggregateOptions
	rerank                    bool
	// chunkFilters are the query's chunk filters, grouped by key, values
	// normalized.
	chunkFilters []storage.ChunkFilterGroup
	// rawChunkFilters are the query's chunk filters as given (for the
	// store).
	rawChunkFilters []ChunkFilter
	// ownerIDs are the query's document IDs; nil means every owner.
	ownerIDs map[string]bool
	// ownerList are the same IDs, sorted, for the store.
	ownerList []string
}

func (s *Searcher) resolve(q *Query, ops fusionDefaults) (settings, error) {
	var st settings
	st.limit = q.Limit
	if st.limit < 1 {
		st.limit = cmp.Or(ops.limit, s.opts.DefaultLimit)
	}
	st.limit = min(st.limit, s.opts.MaxLimit)
	st.legs = cmp.Or(q.Legs, ops.legs, LegsHybrid)
	if st.legs != LegsHybrid && st.legs != LegsLexical && st.legs != LegsVector {
		return st, fmt.Errorf("%w: legs %q (want hybrid|lexical|vector)", ErrInvalidQuery, q.Legs)
	}
	st.fusion = cmp.Or(q.Fusion, s.opts.Fusion)
	switch st.fusion {
	case merge.MethodWeighted, merge.MethodRRF, merge.MethodRelative, merge.MethodSimple:
	default:
		return st, fmt.Errorf("%w: fusion %q (want weighted|rrf|relative|simple)", ErrInvalidQuery, q.Fusion)
	}
	mult := cmp.Or(max(q.CandidateMultiplier, 0), s.opts.CandidateMultiplier)
	cmax := cmp.Or(max(q.CandidateMax, 0), s.opts.CandidateMax)
	pool := max(st.limit, min(st.limit*mult, cmax))
	vmult := cmp.Or(max(q.CandidateMultiplier, 0), s.opts.VectorCandidateMultiplier, s.opts.CandidateMultiplier)
	vmax := cmp.Or(max(q.CandidateMax, 0), s.opts.VectorCandidateMax, s.opts.CandidateMax)
	st.vecCands = max(st.limit, min(st.limit*vmult, vmax))
	st.lexCands = st.limit
	if st.fusion != merge.MethodSimple {
		st.lexCands = pool
	}
	fw := ops.weights
	if fw == (scoring.Weights{}) && ops.kind == storage.KindItem {
		if v, l, ok := vector.SuggestFusionWeights(s.embedder); ok {
			fw.Vector, fw.Lexical = v, l
		}
	}
	if q.Weights != nil {
		fw = *q.Weights
	}
	st.weights = fw
	st.threshold = defaultVectorThreshold
	if t, ok := vector.SuggestThreshold(s.embedder); ok {
		st.threshold = t
	}
	if ops.threshold != nil {
		st.threshold = *ops.threshold
	}
	if q.VectorThreshold != nil {
		st.threshold = *q.VectorThreshold
	}
	if math.IsNaN(st.threshold) {
		return st, fmt.Errorf("%w: vector threshold is NaN", ErrInvalidQuery)
	}
	st.agg = vector.AggregateOptions{
		Mode:            s.opts.Aggregate,
		ChunksPerOwner:  cmp.Or(max(q.ChunksPerOwner, 0), s.opts.ChunksPerOwner),
		SnippetMaxChars: cmp.Or(max(q.SnippetMaxChars, 0), s.opts.SnippetMaxChars),
	}
	if q.Aggregate != nil {
		st.agg.Mode = *q.Aggregate
	}
	switch st.agg.Mode {
	case vector.AggregateMax, vector.AggregateSum, vector.AggregateTopKMean:
	default:
		return st, fmt.Errorf("%w: aggregate mode %v", ErrInvalidQuery, st.agg.Mode)
	}
	st.rerank = s.opts.Rerank.enabled(false)
	if q.Rerank != nil {
		st.rerank = *q.Rerank
	}
	st.rerank = st.rerank && s.opts.Reranker != nil
	return st, nil
}

type fusionDefaults struct {
	kind      storage.OwnerKind
	weights   scoring.Weights
	threshold *float64
	legs      Legs
	limit     int // the kind's default limit; 0 means DefaultLimit
}

// lexLeg is the lexical leg's outcome.
type lexLeg[T any] struct {
	cands []storage.LexicalCandidate[T]
	// scores[i] is the lexicalScore of cands[i], set in enhanced mode,
	// computed in the leg so that it overlaps the vector leg.
	scores []lexScore
	err    error
	took   time.Duration
}

// lexScore is a lexical candidate's lexicalScore with its signals.
type lexScore struct {
	score   float64
	signals lexical.Signals
}

// vecLeg is the vector leg's outcome.
type vecLeg struct {
	query     []float32
	owners    []vector.OwnerHit
	chunks    map[string][]storage.Chunk // by owner ID
	reason    FallbackReason
	err       error
	used      bool
	embedTook time.Duration
	took      time.Duration
}

// search runs one search, traced and logged when the Searcher has a
// tracer or a logger.
func search[T any](ctx context.Context, s *Searcher, q Query, ops kindOps[T], text string) (*Result[T], error) {
	if s.tracers.search == nil && s.opts.Logger == nil {
		return runSearch(ctx, s, q, ops, text)
	}
	return observed(ctx, s, ops.kind, text, q.Limit, func(ctx context.Context) (*Result[T], error) {
		return runSearch(ctx, s, q, ops, text)
	})
}

func runSearch[T any](ctx context.Context, s *Searcher, q Query, ops kindOps[T], text string) (*Result[T], error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	if textutil.IsBlank(text) {
		return nil, ErrEmptyQuery
	}
	text = textutil.TruncateRunes(strings.TrimSpace(text), s.opts.MaxQueryChars)
	st, err := s.resolve(&q, fusionDefaults{ops.kind, ops.weights, ops.threshold, ops.legs, ops.limit})
	if err != nil {
		return nil, err
	}
	if err := validateFilters(ops.kind, q.Filters); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
	}
	if st.chunkFilters, err = prepareChunkFilters(q.ChunkFilters); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
	}
	if st.ownerIDs, err = prepareDocumentIDs(ops.kind, q.DocumentIDs); err != nil {
		return nil, err
	}
	st.ownerList = ownerList(st.ownerIDs)
	if len(st.chunkFilters) > 0 {
		st.rawChunkFilters = q.ChunkFilters
	}

	lx := s.lexicon(ctx, ops.kind, ops.scorer)
	text, corrections := s.correctQuery(text, lx)
	pq := lx.scorer.Prepare(text)
	res := &Result[T]{
		Query: QueryAnalysis{
			Text: text, Tokens: pq.Tokens(), Terms: pq.Terms(), Fallback: pq.Fallback(),
			Synonyms: pq.Expansions(), Mentions: pq.Mentions(), Corrections: corrections,
		},
		Legs: st.legs, Fusion: st.fusion, Limit: st.limit,
	}

	var (
		wg  sync.WaitGroup
		lex lexLeg[T]
		vec vecLeg
		// vecRecs are the records of vec.owners, read in the vector leg.
		vecRecs     []T
		vecRecsErr  error
		vecRecsTook time.Duration
	)
	if st.legs != LegsVector {
		wg.Go(func() {
			ctx := ctx
			if lt := s.tracers.leg; lt != nil {
				ctx = lt.TraceLegStart(ctx, trace.LegStartData{Kind: ops.kind, Leg: trace.LegLexical})
			}
			t := time.Now()
			lq := storage.LexicalQuery{Terms: withTypedWords(res.Query.Terms, corrections), Limit: st.lexCands, Filters: q.Filters,
				OwnerIDs: st.ownerList, ChunkFilters: st.rawChunkFilters}
			lex.cands, lex.err = ops.lexSearch(ctx, lq)
			if lex.err == nil {
				lex.cands = keepOwners(lex.cands, ops.id, &st, st.lexCands)
			}
			lex.took = time.Since(t)
			if lex.err == nil && st.fusion != merge.MethodSimple {
				lex.scores = make([]lexScore, len(lex.cands))
				for i := range lex.cands {
					sc, sig := pq.Score(ops.record(&lex.cands[i].Record))
					lex.scores[i] = lexScore{sc, sig}
				}
			}
			if lt := s.tracers.leg; lt != nil {
				lt.TraceLegEnd(ctx, trace.LegEndData{Candidates: len(lex.cands), Err: lex.err})
			}
		})
	}
	if st.legs != LegsLexical {
		vtext := text
		if s.opts.VectorExpansion.enabled(true) {
			vtext = expandForEmbedding(text, res.Query.Synonyms)
		}
		wg.Go(func() {
			if lt := s.tracers.leg; lt == nil {
				vec = s.vectorLeg(ctx, ops.kind, vtext, &st, q.Filters)
			} else {
				ctx := lt.TraceLegStart(ctx, trace.LegStartData{Kind: ops.kind, Leg: trace.LegVector})
				vec = s.vectorLeg(ctx, ops.kind, vtext, &st, q.Filters)
				lt.TraceLegEnd(ctx, trace.LegEndData{Candidates: len(vec.owners), FallbackReason: string(vec.reason), Err: vec.err})
			}
			if len(vec.owners) > 0 {
				// The vector hits' records, read while the lexical leg
				// (usually the slower) still runs: a store round trip off
				// the search's critical path, at the price of reading
				// again the records the lexical leg also returns.
				t := time.Now()
				ids := make([]string, len(vec.owners))
				for i, o := range vec.owners {
					ids[i] = o.OwnerID
				}
				vecRecs, vecRecsErr = ops.get(ctx, ids)
				vecRecsTook = time.Since(t)
			}
		})
	}
	wg.Wait()
	res.Timings.Lexical, res.Timings.Embed, res.Timings.Vector = lex.took, vec.embedTook, vec.took
	if lex.err != nil {
		return nil, fmt.Errorf("rag: lexical search: %w", lex.err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if st.legs == LegsVector && vec.reason == FallbackVectorQueryError {
		// No lexical leg to fall back on: an empty result would report
		// the store's failure (an outage) as "no results".
		return nil, fmt.Errorf("rag: vector search: %w", vec.err)
	}
	res.EmbeddingUsed, res.FallbackReason, res.VectorError = vec.used, vec.reason, vec.err
	res.LexicalCount, res.VectorCount = len(lex.cands), len(vec.owners)

	// Records: lexical candidates carry theirs; the vector leg read its
	// owners' (one call, overlapping the lexical leg).
	if vecRecsErr != nil {
		return nil, fmt.Errorf("rag: fetch vector hits: %w", vecRecsErr)
	}
	records := make(map[string]*T, len(lex.cands)+len(vec.owners))
	for i := range vecRecs {
		records[ops.id(&vecRecs[i])] = &vecRecs[i]
	}
	for i := range lex.cands {
		records[ops.id(&lex.cands[i].Record)] = &lex.cands[i].Record
	}
	res.Timings.Fetch = vecRecsTook

	t := time.Now()
	res.Hits = fuse(&st, ops, pq, lex.cands, lex.scores, vec.owners, vec.chunks, records)
	res.Timings.Merge = time.Since(t)
	if len(st.chunkFilters) > 0 {
		// Snippets for the hits the rest of the search reads: every hit
		// when a reranker reads them, else the first Limit.
		n := st.limit
		if st.rerank {
			n = len(res.Hits)
		}
		t = time.Now()
		if res.Hits, err = chunkSnippets(ctx, s.store, ops.kind, res.Hits, n, st.chunkFilters, res.Query.Terms, st.agg.SnippetMaxChars); err != nil {
			return nil, fmt.Errorf("rag: lexical search: %w", err)
		}
		res.Timings.Fetch += time.Since(t)
	}

	if st.rerank && len(res.Hits) > 0 {
		t = time.Now()
		res.Hits, res.RerankError = rerankHits(ctx, s, text, res.Hits, ops, st.limit)
		res.Timings.Rerank = time.Since(t)
	}
	if len(res.Hits) > st.limit {
		res.Hits = res.Hits[:st.limit]
	}
	var own []string
	if strings.TrimSpace(q.Context) != "" {
		msg, _ := s.correctQuery(strings.ToValidUTF8(q.Text, "\uFFFD"), lx)
		own = lx.scorer.Prepare(msg).Tokens()
	}
	addEvidence(ctx, s, ops, pq, lx, corrections, own, vec.query, res.Hits)
	res.Timings.Total = time.Since(start)
	return res, nil
}

// expandForEmbedding appends the canonical terms of the synonyms used that
// the text does not already contain.
func expandForEmbedding(text string, used []lexical.Mention) string {
	if len(used) == 0 {
		return text
	}
	norm := " " + lexical.Normalize(text) + " "
	var b strings.Builder
	b.WriteString(text)
	for _, m := range used {
		if t := lexical.Normalize(m.Term); t != "" && !strings.Contains(norm, " "+t+" ") {
			b.WriteByte(' ')
			b.WriteString(m.Term)
			norm += t + " "
		}
	}
	return b.String()
}

// validateFilters checks the filters the Searcher can judge; metadata
// keys are checked by the store against its allowlist.
func validateFilters(kind storage.OwnerKind, filters []storage.Filter) error {
	var own []storage.Filter
	for _, f := range filters {
		if f.Field != storage.FieldMetadata {
			own = append(own, f)
		}
	}
	return storage.ValidateFilters(kind, own, nil)
}

// vectorLeg embeds the query (bounded by EmbedTimeout, even when the
// embedder ignores its context) and searches chunks. Every failure becomes
// a fallback reason; runSearch turns a store failure of a vector-only
// search into the search's error.
func (s *Searcher) vectorLeg(ctx context.Context, kind storage.OwnerKind, text string, st *settings, filters []storage.Filter) vecLeg {
	var v vecLeg
	if s.embedder == nil {
		v.reason = FallbackEmbeddingDisabled
		return v
	}
	t := time.Now()
	vec, err := s.embedQuery(ctx, kind, text)
	v.embedTook = time.Since(t)
	if err != nil {
		v.reason, v.err = FallbackEmbeddingFailed, err
		return v
	}
	t = time.Now()
	matches, err := s.store.SearchChunks(ctx, storage.VectorQuery{
		Kind: kind, Vector: vec, Limit: st.vecCands, MaxDistance: st.threshold, Filters: filters,
		OwnerIDs: st.ownerList, ChunkFilters: st.rawChunkFilters,
	})
	v.took = time.Since(t)
	if err != nil {
		v.reason, v.err = FallbackVectorQueryError, err
		return v
	}
	if st.restricted() {
		matches = filterMatches(matches, st)
	}
	v.used = true
	v.query = vec // valid: the store accepted it
	cm := make([]vector.ScoredChunk, len(matches))
	v.chunks = make(map[string][]storage.Chunk, len(matches))
	for i, m := range matches {
		v.chunks[m.Chunk.Owner.ID] = append(v.chunks[m.Chunk.Owner.ID], m.Chunk)
		cm[i] = vector.ScoredChunk{OwnerID: m.Chunk.Owner.ID, Content: m.Chunk.Content, Distance: m.Distance, Seq: m.Chunk.Seq}
	}
	v.owners = vector.Aggregate(cm, st.agg)
	return v
}

// errEmbedderStalled is wrapped by Result.VectorError when a search
// skipped the embedder because SearcherOptions.MaxStalledEmbeds earlier
// query embeddings outlived their timeout and have not returned. It wraps
// context.DeadlineExceeded: the calls it waits on timed out.
var errEmbedderStalled = fmt.Errorf("rag: query embedder stalled: earlier calls outlived their timeout: %w", context.DeadlineExceeded)

// States of a query embedding call (embedQuery).
const (
	embedRunning   int32 = iota
	embedDone            // returned while its search was waiting
	embedAbandoned       // its search returned first; counted in stalled
)

// embedQuery embeds the query text with the checked embedder, bounded by
// EmbedTimeout even when the embedder ignores its context. The call runs
// in a goroutine that recovers a panic and delivers on a buffered channel,
// so it can always finish and exit. A call the search stops waiting for is
// counted in s.stalled until it returns; with MaxStalledEmbeds of them
// outstanding, the embedder is not called at all.
func (s *Searcher) embedQuery(ctx context.Context, kind storage.OwnerKind, text string) (v []float32, err error) {
	if n := s.stalled.Load(); n >= int64(s.opts.MaxStalledEmbeds) {
		return nil, fmt.Errorf("rag: query embedding: %d earlier calls still running past their timeout: %w", n, errEmbedderStalled)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.EmbedTimeout)
	defer cancel()
	if et := s.tracers.embed; et != nil {
		ctx = et.TraceEmbedStart(ctx, trace.EmbedStartData{Kind: kind, Texts: 1, Tokens: llm.EstimateTokens(text), Query: true})
		defer func() {
			d := trace.EmbedEndData{Err: err}
			if err == nil {
				d.Vectors = 1
			}
			et.TraceEmbedEnd(ctx, d)
		}()
	}
	type out struct {
		v   [][]float32
		err error
	}
	ch := make(chan out, 1)
	var state atomic.Int32
	go func() {
		var o out
		defer func() {
			if r := recover(); r != nil {
				o = out{err: fmt.Errorf("rag: embedder panicked: %v", r)}
			}
			if !state.CompareAndSwap(embedRunning, embedDone) {
				s.stalled.Add(-1) // abandoned: no longer stalled
			}
			ch <- o
		}()
		o.v, o.err = s.checked.Embed(ctx, []string{text})
	}()
	var o out
	select {
	case o = <-ch:
	case <-ctx.Done():
		if state.CompareAndSwap(embedRunning, embedAbandoned) {
			s.stalled.Add(1)
			return nil, fmt.Errorf("rag: query embedding: %w", ctx.Err())
		}
		o = <-ch // it returned meanwhile and is delivering
	}
	if o.err != nil {
		return nil, o.err
	}
	return o.v[0], nil
}

// fuse merges the legs into hits, best first. lexScores are the lexical
// candidates' scores in enhanced mode.
func fuse[T any](st *settings, ops kindOps[T], pq *lexical.PreparedQuery, lexCands []storage.LexicalCandidate[T], lexScores []lexScore, owners []vector.OwnerHit, chunks map[string][]storage.Chunk, records map[string]*T) []Hit[T] {
	enhanced := st.fusion != merge.MethodSimple

	// Lexical list: the store's order in simple mode, lexicalScore order
	// (stable on the store's order) in enhanced mode.
	type lexEntry struct {
		id      string
		matched int
		score   float64
		signals *lexical.Signals
	}
	lexList := make([]lexEntry, 0, len(lexCands))
	for i := range lexCands {
		e := lexEntry{id: ops.id(&lexCands[i].Record), matched: lexCands[i].TermsMatched}
		if enhanced {
			e.score, e.signals = lexScores[i].score, &lexScores[i].signals
		} else {
			e.score = float64(e.matched)
		}
		lexList = append(lexList, e)
	}
	if enhanced {
		slices.SortStableFunc(lexList, func(a, b lexEntry) int { return cmp.Compare(b.score, a.score) })
	}
	lexByID := make(map[string]int, len(lexList))
	for i, e := range lexList {
		lexByID[e.id] = i
	}
	vecByID := make(map[string]int, len(owners))
	for i, o := range owners {
		vecByID[o.OwnerID] = i
	}

	// Vector-only hits get a lexicalScore too in enhanced mode (seed 000
	// §4.7), so ranking is consistent.
	extra := map[string]lexical.Signals{}
	scoreOf := func(id string) (float64, bool) {
		if sig, ok := extra[id]; ok {
			return sig.Score, sig.Pair
		}
		rec := records[id]
		if rec == nil {
			return 0, false
		}
		sc, sig := pq.Score(ops.record(rec))
		extra[id] = sig
		return sc, sig.Pair
	}

	vHits := make([]merge.Hit, 0, len(owners))
	for _, o := range owners {
		if records[o.OwnerID] == nil {
			continue // deleted between the legs
		}
		vHits = append(vHits, merge.Hit{ID: o.OwnerID, Score: o.Score})
	}
	lHits := make([]merge.Hit, len(lexList))
	for i, e := range lexList {
		lHits[i] = merge.Hit{ID: e.id, Score: e.score}
	}

	var fused []merge.Fused
	switch st.fusion {
	case merge.MethodSimple:
		fused = merge.Simple(vHits, lHits, st.limit)
	case merge.MethodWeighted:
		wl := make([]merge.LexicalHit, len(lexList))
		for i, e := range lexList {
			wl[i] = merge.LexicalHit{ID: e.id, Score: e.score, Pair: e.signals != nil && e.signals.Pair}
		}
		fused = merge.Weighted(vHits, wl, merge.WeightedOptions{Weights: st.weights, LexicalFor: func(id string) (float64, bool) { return scoreOf(id) }})
	case merge.MethodRRF, merge.MethodRelative:
		w := st.weights.Resolve()
		lists := []merge.List{
			{Name: merge.ListVector, Weight: nonZeroWeight(w.Vector), Hits: vHits},
			{Name: merge.ListLexical, Weight: nonZeroWeight(w.Lexical), Hits: lHits},
		}
		if st.fusion == merge.MethodRRF {
			fused = merge.RRF(lists, merge.RRFOptions{})
		} else {
			fused = merge.RelativeScore(lists, merge.RelativeOptions{})
		}
	}

	hits := make([]Hit[T], 0, len(fused))
	for _, f := range fused {
		rec := records[f.ID]
		if rec == nil {
			continue
		}
		h := Hit[T]{ID: f.ID, Record: *rec, Score: f.Score, Explanation: f.Explanation}
		li, inLex := lexByID[f.ID]
		vi, inVec := vecByID[f.ID]
		switch {
		case inLex && inVec:
			h.Source = SourceBoth
		case inVec:
			h.Source = SourceVector
		default:
			h.Source = SourceLexical
		}
		if inLex {
			e := lexList[li]
			h.Lexical = &LexicalEvidence{Rank: li + 1, TermsMatched: e.matched, Score: e.score, Signals: e.signals}
		} else if sig, ok := extra[f.ID]; ok {
			h.Lexical = &LexicalEvidence{Score: sig.Score, Signals: &sig}
		}
		if inVec {
			o := owners[vi]
			h.Vector = &VectorEvidence{Rank: vi + 1, Distance: o.Distance, Similarity: o.Score, Chunks: o.Matched}
			if len(o.Chunks) > 0 {
				for _, c := range chunks[o.OwnerID] {
					if c.Seq == o.Chunks[0].Seq && c.Content == o.Chunks[0].Content {
						h.Vector.Source, h.Vector.Metadata = c.Source, c.Metadata
						h.Vector.Start, h.Vector.File, h.Vector.HeadingPath = c.Start, c.File, c.HeadingPath
						break
					}
				}
			}
			h.Snippet = o.Snippet
		}
		if h.Snippet == "" {
			h.Snippet = vector.Truncate(strings.TrimSpace(ops.text(rec)), st.agg.SnippetMaxChars)
		}
		hits = append(hits, h)
	}
	return hits
}

// nonZeroWeight maps a resolved weight of 0 (component off) to merge's
// "negative means 0" convention, since merge reads 0 as 1.
func nonZeroWeight(w float64) float64 {
	if w == 0 {
		return -1
	}
	return w
}

// rerankHits reorders hits by the Searcher's reranker. On error the fused
// order is kept and the error returned for the Result.
func rerankHits[T any](ctx context.Context, s *Searcher, query string, hits []Hit[T], ops kindOps[T], limit int) ([]Hit[T], error) {
	cands := make([]rerank.Candidate, len(hits))
	for i := range hits {
		content := hits[i].Snippet
		if content == "" {
			content = ops.text(&hits[i].Record)
		}
		cands[i] = rerank.Candidate{ID: hits[i].ID, Title: ops.title(&hits[i].Record), Content: content, Score: hits[i].Score}
	}
	opts := s.opts.RerankOptions
	if opts.Final == 0 {
		opts.Final = rerank.DefaultFinal
	}
	if opts.Final < 0 || opts.Final > limit {
		opts.Final = limit
	}
	results, err := rerank.Apply(ctx, s.opts.Reranker, query, cands, opts)
	if err != nil {
		return hits, fmt.Errorf("rag: rerank: %w", err)
	}
	out := make([]Hit[T], 0, len(results))
	for _, r := range results {
		if r.Index < 0 || r.Index >= len(hits) {
			return hits, errors.New("rag: rerank: result index out of range")
		}
		h := hits[r.Index]
		h.Score = r.Score
		rr := r
		h.Rerank = &rr
		out = append(out, h)
	}
	return out, nil
}
