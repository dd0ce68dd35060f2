package rag

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/textutil"

	"github.com/hybridrag/hybridrag/internal/chunkagg"
	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Defaults of the Searcher: 5 hits (what a chat answer cites), at most 50;
// candidate pools of 6 × the limit, at most 200, so fusion has hits the
// other leg ranked low to promote without scoring the whole store; a query
// embedding gives up after 2 s and the search goes on lexically, because
// an answer without the vector leg beats no answer; FAQ queries with their
// conversation context are cut at 1,200 characters, other queries at
// 2,000.
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
	words    [numKinds]kindWords
	// stalled counts query embeddings abandoned by their search and still
	// running (see embedQuery).
	stalled atomic.Int64
	// tracers are the interfaces opts.Tracer implements.
	tracers searchTracers
	// disc is the discontinued index (nil until first needed, and again
	// after Refresh).
	disc atomic.Pointer[discontinuedIndex]
	// fresh follows the store's change marker (see keepFresh).
	fresh freshness
}

// NewSearcher returns a Searcher over store. embedder may be nil, in which
// case every search is lexical with FallbackEmbeddingDisabled. Query
// vectors are checked and normalized to unit length (vector.Checked); a
// bad vector is a vector-leg failure like an embedder error. The options
// are copied, pointers included. NewSearcher does no I/O.
func NewSearcher(store storage.Store, embedder vector.Embedder, opts SearcherOptions) *Searcher {
	o := opts.withDefaults()
	s := &Searcher{store: store, embedder: embedder, opts: o, norm: newNormCache(defaultNormalizedCacheSize), tracers: newSearchTracers(o.Tracer)}
	if embedder != nil {
		s.checked = vector.Checked(embedder)
	}
	s.fresh.every = freshCheckInterval
	s.evidence = o.Evidence.withDefaults()
	s.scorers[itemKind.index] = kindScorer(itemKind, &o)
	s.scorers[faqKind.index] = kindScorer(faqKind, &o)
	s.scorers[docKind.index] = kindScorer(docKind, &o)
	return s
}

// Options returns the Searcher's effective configuration.
func (s *Searcher) Options() SearcherOptions { return s.opts }

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
	return search(ctx, s, q, opsOf(s, itemKind), combineQueryWithContext(q.Text, q.Context, s.opts.Limits.MaxQueryChars))
}

// SearchFAQs runs a hybrid search over active FAQs; q.Context is appended
// to the query text up to LimitOptions.MaxFAQQueryChars. A query without Legs uses
// SearcherOptions.Kinds.FAQs.Legs.
func (s *Searcher) SearchFAQs(ctx context.Context, q Query) (*Result[storage.FAQ], error) {
	if textutil.IsBlank(strings.ToValidUTF8(q.Text, "")) {
		return nil, ErrEmptyQuery
	}
	return search(ctx, s, q, opsOf(s, faqKind), combineQueryWithContext(q.Text, q.Context, s.opts.Limits.MaxFAQQueryChars))
}

// SearchDocuments runs a hybrid search over documents.
func (s *Searcher) SearchDocuments(ctx context.Context, q Query) (*Result[storage.Document], error) {
	if textutil.IsBlank(strings.ToValidUTF8(q.Text, "")) {
		return nil, ErrEmptyQuery
	}
	return search(ctx, s, q, opsOf(s, docKind), combineQueryWithContext(q.Text, q.Context, s.opts.Limits.MaxQueryChars))
}

// CombineQueryWithContext appends context to query, separated by a space,
// and cuts the result to maxChars characters. The query itself is kept whole when it alone
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
	agg                       chunkagg.Options
	rerank                    bool
	// chunkFilters are the query's chunk filters, grouped by key, values
	// normalized.
	chunkFilters []storeutil.ChunkFilterGroup
	// rawChunkFilters are the query's chunk filters as given (for the
	// store).
	rawChunkFilters []storage.ChunkFilter
	// ownerIDs are the query's document IDs; nil means every owner.
	ownerIDs map[string]bool
	// ownerList are the same IDs, sorted, for the store.
	ownerList []string
}

func (s *Searcher) resolve(q *Query, ops fusionDefaults) (settings, error) {
	var st settings
	st.limit = q.Limit
	if st.limit < 1 {
		st.limit = cmp.Or(ops.limit, s.opts.Limits.Default)
	}
	st.limit = min(st.limit, s.opts.Limits.Max)
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
	mult, cmax := s.opts.Lexical.CandidateMultiplier, s.opts.Lexical.CandidateMax
	pool := max(st.limit, min(st.limit*mult, cmax))
	vmult := cmp.Or(s.opts.Vector.CandidateMultiplier, mult)
	vmax := cmp.Or(s.opts.Vector.CandidateMax, cmax)
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
	st.agg = chunkagg.Options{
		Mode:            s.opts.Vector.Aggregate,
		ChunksPerOwner:  s.opts.Vector.ChunksPerOwner,
		SnippetMaxChars: s.opts.Vector.SnippetMaxChars,
	}
	switch st.agg.Mode {
	case vector.AggregateMax, vector.AggregateSum, vector.AggregateTopKMean:
	default:
		return st, fmt.Errorf("%w: aggregate mode %v", ErrInvalidQuery, st.agg.Mode)
	}
	st.rerank = q.Rerank.enabled(s.opts.Rerank.Enabled.enabled(false))
	st.rerank = st.rerank && s.opts.Rerank.Reranker != nil
	return st, nil
}

type fusionDefaults struct {
	kind      storage.OwnerKind
	weights   scoring.Weights
	threshold *float64
	legs      Legs
	limit     int // the kind's default limit; 0 means LimitOptions.Default
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
	owners    []chunkagg.OwnerHit
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
	text = textutil.TruncateRunes(strings.TrimSpace(text), s.opts.Limits.MaxQueryChars)
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

	s.keepFresh(ctx)
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
		// lexReady carries the lexical candidates (nil on error) as soon
		// as the lexical leg has them, before it scores them.
		lexReady = make(chan []storage.LexicalCandidate[T], 1)
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
				lexReady <- lex.cands
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
		// The canonical terms of the synonyms the query used are appended
		// before embedding it ("fungicida para videira" is embedded as
		// "fungicida para videira uva"), so an embedder that knows no
		// synonyms (the hash embedder) still meets the catalog's
		// vocabulary; for semantic models the addition is harmless.
		vtext := expandForEmbedding(text, res.Query.Synonyms)
		wg.Go(func() {
			if lt := s.tracers.leg; lt == nil {
				vec = s.vectorLeg(ctx, ops.kind, vtext, &st, q.Filters)
			} else {
				ctx := lt.TraceLegStart(ctx, trace.LegStartData{Kind: ops.kind, Leg: trace.LegVector})
				vec = s.vectorLeg(ctx, ops.kind, vtext, &st, q.Filters)
				lt.TraceLegEnd(ctx, trace.LegEndData{Candidates: len(vec.owners), FallbackReason: string(vec.reason), Err: vec.err})
			}
			if len(vec.owners) > 0 {
				// The vector hits' records, read in this leg: when the
				// lexical leg is still running, a store round trip off the
				// search's critical path, at the price of reading again the
				// records it also returns; when it has ended (usually, at a
				// small store's size), the records it returned are not read
				// again (fuse takes the lexical candidates' records first).
				t := time.Now()
				var lexIDs map[string]bool
				select {
				case cands := <-lexReady:
					lexIDs = make(map[string]bool, len(cands))
					for i := range cands {
						lexIDs[ops.id(&cands[i].Record)] = true
					}
				default:
				}
				ids := make([]string, 0, len(vec.owners))
				for _, o := range vec.owners {
					if !lexIDs[o.OwnerID] {
						ids = append(ids, o.OwnerID)
					}
				}
				if len(ids) > 0 {
					vecRecs, vecRecsErr = ops.get(ctx, ids)
				}
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
	addEvidence(ctx, s, ops, text, pq, lx, corrections, own, vec.query, res.Hits)
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
	cm := make([]chunkagg.ScoredChunk, len(matches))
	v.chunks = make(map[string][]storage.Chunk, len(matches))
	for i, m := range matches {
		v.chunks[m.Chunk.Owner.ID] = append(v.chunks[m.Chunk.Owner.ID], m.Chunk)
		cm[i] = chunkagg.ScoredChunk{OwnerID: m.Chunk.Owner.ID, Content: m.Chunk.Content, Distance: m.Distance, Seq: m.Chunk.Seq}
	}
	v.owners = chunkagg.Aggregate(cm, st.agg)
	return v
}

// errEmbedderStalled is wrapped by Result.VectorError when a search
// skipped the embedder because defaultMaxStalledEmbeds earlier
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
// counted in s.stalled until it returns; with defaultMaxStalledEmbeds of them
// outstanding, the embedder is not called at all.
func (s *Searcher) embedQuery(ctx context.Context, kind storage.OwnerKind, text string) (v []float32, err error) {
	if n := s.stalled.Load(); n >= int64(defaultMaxStalledEmbeds) {
		return nil, fmt.Errorf("rag: query embedding: %d earlier calls still running past their timeout: %w", n, errEmbedderStalled)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Vector.EmbedTimeout)
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
func fuse[T any](st *settings, ops kindOps[T], pq *lexical.PreparedQuery, lexCands []storage.LexicalCandidate[T], lexScores []lexScore, owners []chunkagg.OwnerHit, chunks map[string][]storage.Chunk, records map[string]*T) []Hit[T] {
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

	// Vector-only hits get a lexical score too in weighted fusion, so that
	// every hit is ranked on the same scale.
	extra := map[string]lexical.Signals{}
	scoreOf := func(id string) (float64, bool) {
		if sig, ok := extra[id]; ok {
			return sig.Breakdown.Total(), sig.Pair
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
			h.Lexical = &LexicalEvidence{Score: sig.Breakdown.Total(), Signals: &sig}
		}
		if inVec {
			o := owners[vi]
			h.Vector = &VectorEvidence{Rank: vi + 1, Distance: o.Distance, Similarity: o.Score, Chunks: o.Matched}
			if len(o.Chunks) > 0 {
				for _, c := range chunks[o.OwnerID] {
					if c.Seq == o.Chunks[0].Seq && c.Content == o.Chunks[0].Content {
						h.Vector.Metadata, h.Vector.HeadingPath = c.Metadata, c.HeadingPath
						break
					}
				}
			}
			h.Snippet = o.Snippet
		}
		if h.Snippet == "" {
			h.Snippet = chunkagg.Truncate(strings.TrimSpace(ops.text(rec)), st.agg.SnippetMaxChars)
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
	opts := s.opts.Rerank.Window
	if opts.Final == 0 {
		opts.Final = rerank.DefaultFinal
	}
	if opts.Final < 0 || opts.Final > limit {
		opts.Final = limit
	}
	results, err := rerank.Apply(ctx, s.opts.Rerank.Reranker, query, cands, opts)
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

// catalogNames returns the words of text that name catalog items: the
// words at most namedMinRecords items hold (or namedMaxShare of them) that
// are words of the name of an item text names — its whole name, or its
// first word when that is such a rare word no word list ranks (a brand:
// "o Glifovale"). Used to carry the products an answer named into a
// follow-up's context. The answer's other rare words are not carried: a
// corn seed's "safrinha" in a dose row made "e o preço?" after the
// glyphosate doses for corn lead with the seed, and the answer's footer
// ("Confira sempre …") carried "sempre" (the newcomer walk); a word list
// alone was no filter, since names are words too ("Pérola", "Carioca",
// "Respirador": the review).
func (s *Searcher) catalogNames(ctx context.Context, text string) []string {
	items, words := s.namedItems(ctx, text)
	tok := lexical.Tokenizer{MaxTokens: -1}
	var out []string
	for _, it := range items {
		for _, w := range tok.Tokens(it.Name) {
			if slices.Contains(words, w) && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// namedItems returns the catalog items text names (catalogNames:
// its whole name, or a brand no word list ranks as its first word), in
// the order the catalog search returns them, and the rare words of text
// it looked them up by.
func (s *Searcher) namedItems(ctx context.Context, text string) ([]storage.CatalogItem, []string) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	lx := s.lexicon(ctx, itemKind.kind, s.scorers[itemKind.index])
	if lx.df == nil {
		return nil, nil
	}
	tok := lexical.Tokenizer{MaxTokens: -1}
	rare := func(w string) bool {
		n := lx.df(w)
		return n > 0 && float64(n) <= max(namedMinRecords, namedMaxShare*float64(lx.docs)) && strings.ContainsFunc(w, unicode.IsLetter)
	}
	var words []string
	for _, w := range tok.Tokens(text) {
		if rare(w) && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	cands, err := opsOf(s, itemKind).lexSearch(ctx, storage.LexicalQuery{Terms: words, Limit: catalogNamesLimit})
	if err != nil {
		return nil, nil
	}
	norm := lexical.Normalize(text)
	freq := s.evidence.Frequencies
	var out []storage.CatalogItem
	for _, c := range cands {
		name := tok.Tokens(c.Record.Name)
		if len(name) == 0 {
			continue
		}
		brand := rare(name[0]) && freq.Rank(name[0]) == 0 && !freq.Function(name[0]) && slices.Contains(words, name[0])
		if !brand && !strings.Contains(norm, lexical.Normalize(c.Record.Name)) {
			continue
		}
		out = append(out, c.Record)
	}
	return out, words
}

// catalogNamesLimit bounds the items catalogNames reads.
const catalogNamesLimit = 50
