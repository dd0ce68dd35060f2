package memory

import (
	"context"
	"runtime"
	"sync"

	"github.com/hybridrag/hybridrag/internal/q8"
	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Scans are split into one shard per available CPU once they are large
// enough for the goroutines to pay off.
const (
	minVectorShard = 1024 // rows
	ctxCheckEvery  = 4096 // rows between cancellation checks
)

// shards splits n units into at most procs ranges of at least minPer
// units (one range when n is smaller) and runs fn on each, concurrently
// when there are several. It returns the number of ranges.
func shards(n, procs, minPer int, fn func(shard, lo, hi int)) int {
	k := min(procs, max(1, n/minPer))
	if k <= 1 {
		fn(0, 0, n)
		return 1
	}
	var wg sync.WaitGroup
	for s := range k {
		lo, hi := s*n/k, (s+1)*n/k
		wg.Go(func() { fn(s, lo, hi) })
	}
	wg.Wait()
	return k
}

// normalizeFilters returns filters with normalized values, so that
// FilterValues.Match compares them without allocating.
func normalizeFilters(filters []storage.Filter) []storage.Filter {
	if len(filters) == 0 {
		return nil
	}
	out := make([]storage.Filter, len(filters))
	for i, f := range filters {
		f.Value = lexical.Normalize(f.Value)
		out[i] = f
	}
	return out
}

type lexHit struct {
	o *owner
	n int
}

// betterLex orders lexical hits: more distinct terms, then newer, then
// smaller ID.
func betterLex(a, b lexHit) bool {
	if a.n != b.n {
		return a.n > b.n
	}
	if !a.o.created.Equal(b.o.created) {
		return a.o.created.After(b.o.created)
	}
	return a.o.id < b.o.id
}

// searchLexical returns the lexical candidates of kind k; see
// storage.LexicalQuery for the semantics. A query without non-empty terms
// returns no candidates.
func searchLexical[T any](ctx context.Context, s *Store, k kindOps[T], q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storage.ValidateFilters(k.kind, q.Filters, s.db.allowed); err != nil {
		return nil, wrap(err)
	}
	if err := storage.ValidateRestrictions(q.OwnerIDs, q.ChunkFilters); err != nil {
		return nil, wrap(err)
	}
	rs := newRestriction(q.OwnerIDs, q.ChunkFilters)
	terms := storeutil.NormalizeTerms(q.Terms)
	if len(terms) == 0 {
		return nil, nil
	}
	filters := normalizeFilters(q.Filters)
	limit := storeutil.ClampLimit(q.Limit)

	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	all := newTopK(limit, betterLex)
	err := s.t.kind(k.kind).words.lexicalMatches(terms, func() error { return ctxErr(ctx) }, func(o *owner, n int) {
		if o.active && (filters == nil || o.fv.Match(filters)) && (rs.none() || rs.owner(o)) {
			all.push(lexHit{o, n})
		}
	})
	if err != nil {
		return nil, err
	}
	hits := all.sorted()
	res := make([]storage.LexicalCandidate[T], len(hits))
	for i, h := range hits {
		res[i] = storage.LexicalCandidate[T]{Record: k.out(h.o), TermsMatched: h.n}
	}
	return res, nil
}

type vecHit struct {
	score float32 // inner product; distance is -score
	row   int32
}

// vecBetter orders vector hits by distance, then owner ID, source and seq.
// rows must not change while it is in use (the caller holds the read lock).
func vecBetter(rows []rowMeta) func(a, b vecHit) bool {
	return func(a, b vecHit) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		ma, mb := rows[a.row], rows[b.row]
		if ma.o != mb.o {
			return ma.o.id < mb.o.id
		}
		return compareChunkKey(&ma.o.chunks[ma.idx].c, &mb.o.chunks[mb.idx].c) < 0
	}
}

// SearchChunks returns the chunks of active owners of q.Kind nearest to
// q.Vector by inner-product distance, closest first, ties broken by owner
// ID, source and Seq. The search is exact: every embedded chunk passing the
// filters, owner IDs and chunk filters is scored, by one goroutine per CPU over the kind's contiguous
// slab.
func (s *Store) SearchChunks(ctx context.Context, q storage.VectorQuery) ([]storage.ChunkMatch, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if !q.Kind.Valid() {
		return nil, wrap(&storage.ValidationError{Field: "kind", Reason: "want item|faq|document, got " + string(q.Kind), Err: storage.ErrInvalidRecord})
	}
	if err := storage.ValidateQueryVector(q.Vector, s.db.dims); err != nil {
		return nil, wrap(err)
	}
	if err := storage.ValidateFilters(q.Kind, q.Filters, s.db.allowed); err != nil {
		return nil, wrap(err)
	}
	if err := storage.ValidateRestrictions(q.OwnerIDs, q.ChunkFilters); err != nil {
		return nil, wrap(err)
	}
	rs := newRestriction(q.OwnerIDs, q.ChunkFilters)
	filters := normalizeFilters(q.Filters)
	limit := storeutil.ClampLimit(q.Limit)
	// Keep distance <= MaxDistance, i.e. score >= -MaxDistance, compared in
	// float64 exactly as the distance is reported.
	maxDist := q.MaxDistance
	vec := q.Vector

	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	kd := s.t.kind(q.Kind)
	rows := kd.rows
	eligible := func(r int) bool {
		m := &rows[r]
		return m.active && (filters == nil || m.o.fv.Match(filters)) && (rs.none() || rs.chunk(m.o, int(m.idx)))
	}
	var all *topK[vecHit]
	var err error
	if kd.useQ8 {
		qcodes := make([]int8, len(vec))
		var qst q8.Stats
		if qst, err = q8.Quantize(qcodes, vec); err != nil {
			return nil, wrap(err) // unreachable: the vector was validated
		}
		all, err = quantizedSearch(ctx, kd, vec, qcodes, qst, limit, maxDist, eligible)
	} else {
		all, err = exactSearch(ctx, kd, vec, limit, maxDist, eligible)
	}
	if err != nil {
		return nil, err
	}
	hits := all.sorted()
	res := make([]storage.ChunkMatch, len(hits))
	for i, h := range hits {
		m := rows[h.row]
		res[i] = storage.ChunkMatch{Chunk: kd.chunkCopy(m.o, int(m.idx), false), Distance: float64(-h.score)}
	}
	return res, nil
}

// ChunkRefs lists the stored chunks of the given owners (every owner of the
// kind when ownerIDs is nil), ordered by owner ID, source and Seq. Unknown
// owners are skipped.
func (s *Store) ChunkRefs(ctx context.Context, kind storage.OwnerKind, ownerIDs []string) ([]storage.ChunkRef, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if !kind.Valid() {
		return nil, wrap(&storage.ValidationError{Field: "kind", Reason: "want item|faq|document, got " + string(kind), Err: storage.ErrInvalidRecord})
	}
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	kd := s.t.kind(kind)
	var owners []*owner
	if ownerIDs == nil {
		owners = append(owners, kd.list...)
	} else {
		seen := make(map[string]bool, len(ownerIDs))
		for _, id := range ownerIDs {
			if o, ok := kd.owners[id]; ok && !seen[id] {
				seen[id] = true
				owners = append(owners, o)
			}
		}
	}
	sortOwners(owners)
	var refs []storage.ChunkRef
	for _, o := range owners {
		for _, c := range o.chunks {
			refs = append(refs, storage.ChunkRef{
				Owner:        c.c.Owner,
				Source:       c.c.Source,
				Seq:          c.c.Seq,
				ContentHash:  c.c.ContentHash,
				HasEmbedding: c.row >= 0,
			})
		}
	}
	return refs, nil
}

// Chunks returns the chunks of one owner with their embeddings, ordered by
// source and Seq; none (and no error) when the owner has no chunks or does
// not exist.
func (s *Store) Chunks(ctx context.Context, ref storage.OwnerRef) ([]storage.Chunk, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storage.ValidateOwnerRef(ref); err != nil {
		return nil, wrap(err)
	}
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	kd := s.t.kind(ref.Kind)
	o, ok := kd.owners[ref.ID]
	if !ok || len(o.chunks) == 0 {
		return nil, nil
	}
	out := make([]storage.Chunk, len(o.chunks))
	for i := range o.chunks {
		out[i] = kd.chunkCopy(o, i, true)
	}
	return out, nil
}

// exactSearch scores every eligible row of kd against vec with the
// float32 kernel, one goroutine per CPU, and returns the best limit hits
// within maxDist. The caller holds the tenant's read lock.
func exactSearch(ctx context.Context, kd *kindData, vec []float32, limit int, maxDist float64, eligible func(int) bool) (*topK[vecHit], error) {
	rows, dims := kd.rows, kd.dims
	better := vecBetter(rows)
	procs := runtime.GOMAXPROCS(0)
	heaps := make([]*topK[vecHit], procs)
	errs := make([]error, procs)
	n := shards(len(rows), procs, minVectorShard, func(shard, lo, hi int) {
		h := newTopK(limit, better)
		heaps[shard] = h
		emit := func(score float32, r int32) {
			if float64(-score) <= maxDist {
				h.push(vecHit{score, r})
			}
		}
		var scores [scoreBlock]float32
		errs[shard] = eachRun(ctx, lo, hi, eligible, func(r, end int) {
			out := scores[:end-r]
			vector.DotRows(out, kd.slab[r*dims:end*dims], vec)
			for i, sc := range out {
				emit(sc, int32(r+i))
			}
		})
	})
	all := heaps[0]
	for i := 1; i < n; i++ {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, hit := range heaps[i].h {
			all.push(hit)
		}
	}
	if errs[0] != nil {
		return nil, errs[0]
	}
	return all, nil
}

// eachRun calls fn(r, end) for every run [r, end) of consecutive eligible
// rows in [lo, hi), cut at multiples of scoreBlock from lo, and checks ctx
// every ctxCheckEvery rows.
func eachRun(ctx context.Context, lo, hi int, eligible func(int) bool, fn func(r, end int)) error {
	for b := lo; b < hi; b += scoreBlock {
		if b > lo && (b-lo)%ctxCheckEvery == 0 && ctx.Err() != nil {
			return ctxErr(ctx)
		}
		e := min(b+scoreBlock, hi)
		for r := b; r < e; {
			if !eligible(r) {
				r++
				continue
			}
			end := r + 1
			for end < e && eligible(end) {
				end++
			}
			fn(r, end)
			r = end + 1 // row end, if below e, is not eligible
		}
	}
	return nil
}
