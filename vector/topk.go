package vector

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// noThreshold disables the distance threshold of topK: every finite
// distance is <= noThreshold. +Inf and NaN thresholds mean the same.
const noThreshold float32 = math.MaxFloat32

// match is one row returned by topK.
type match struct {
	// Row is the row index in the matrix (row r occupies
	// matrix[r*dim:(r+1)*dim]).
	Row int
	// Distance is the negative inner product of the row and the query
	// (pgvector's <#> operator): smaller is closer. For unit vectors it is
	// minus the cosine similarity, in [-1, 1].
	Distance float32
}

// Similarity returns -m.Distance, the inner product (the cosine similarity
// for unit vectors): larger is closer.
func (m match) Similarity() float32 { return -m.Distance }

// Below this many rows a single goroutine scans the matrix: starting
// goroutines costs more than it saves.
const parallelMinRows = 2048

// How many rows a worker scans between two looks at ctx.Done().
const cancelCheckRows = 1024

// topK returns the k rows of matrix closest to query by negative inner
// product (pgvector <#> semantics, smaller is closer), best first.
//
// matrix is a flat, row-major slice of rows of dim elements each; its length
// must be a multiple of dim, and query must have dim elements, otherwise
// topK returns ErrDimensionMismatch (wrapped). Only rows with
// distance <= maxDistance are kept (pass +Inf to keep all); rows
// whose distance is NaN are never kept. When keep is not nil, a row is
// considered only if keep(row) is true; keep is called from several
// goroutines at once and must be safe for concurrent use. Ties on distance
// are broken by the lower row index, so the result is deterministic.
//
// The scan is exact: one goroutine per GOMAXPROCS (a single one below 2048
// rows) takes contiguous blocks of rows from a shared counter and keeps its
// own bounded heap of k entries; the heaps are merged at the end. k <= 0
// or an empty matrix returns nil. When ctx is cancelled the workers stop
// within about a thousand rows and topK returns ctx.Err().
//
// topK neither retains nor modifies matrix or query.
func topK(ctx context.Context, matrix []float32, dim int, query []float32, k int, keep func(row int) bool, maxDistance float32) ([]match, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("vector: top-k with dimension %d: %w", dim, ErrDimensionMismatch)
	}
	if len(query) != dim {
		return nil, fmt.Errorf("vector: top-k query has %d elements, want %d: %w", len(query), dim, ErrDimensionMismatch)
	}
	if len(matrix)%dim != 0 {
		return nil, fmt.Errorf("vector: top-k matrix of %d elements is not a multiple of %d: %w", len(matrix), dim, ErrDimensionMismatch)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows := len(matrix) / dim
	if k <= 0 || rows == 0 {
		return nil, nil
	}
	if math.IsNaN(float64(maxDistance)) || math.IsInf(float64(maxDistance), 1) {
		maxDistance = noThreshold
	}
	k = min(k, rows)

	s := scan{matrix: matrix, dim: dim, query: query, k: k, keep: keep, max: maxDistance, done: ctx.Done()}
	workers := runtime.GOMAXPROCS(0)
	if rows < parallelMinRows || workers < 2 {
		workers = 1
	}
	heaps := make([]topHeap, workers)
	if workers == 1 {
		heaps[0] = s.run(0, rows, make(topHeap, 0, k))
	} else {
		// Workers take blocks of rows from a shared counter rather than one
		// fixed range each, so a goroutine slowed down by other load on its
		// core does not hold back the whole scan.
		block := max(256, rows/(workers*16))
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				h := make(topHeap, 0, k)
				for {
					lo := int(next.Add(int64(block))) - block
					if lo >= rows || h == nil {
						break
					}
					h = s.run(lo, min(lo+block, rows), h)
				}
				heaps[w] = h
			})
		}
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	n := 0
	for _, h := range heaps {
		n += len(h)
	}
	out := make([]match, 0, n)
	for _, h := range heaps {
		out = append(out, h...)
	}
	slices.SortFunc(out, compareMatch)
	if len(out) > k {
		out = out[:k:k]
	}
	return out, nil
}

// compareMatch orders by distance, then row: "a is better than b" is
// compareMatch(a, b) < 0.
func compareMatch(a, b match) int {
	if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
		return c
	}
	return cmp.Compare(a.Row, b.Row)
}

type scan struct {
	matrix []float32
	dim    int
	query  []float32
	k      int
	keep   func(int) bool
	max    float32
	done   <-chan struct{}
}

// scoreBlock is how many rows run scores per DotRows call at most: large
// enough to amortize the call, small enough for the scores to stay in L1.
// cancelCheckRows is a multiple of it.
const scoreBlock = 64

// run scans rows [lo, hi) into the bounded heap h and returns it, or nil
// when the scan was cancelled. Runs of consecutive kept rows are scored
// together by the DotRows kernel.
func (s *scan) run(lo, hi int, h topHeap) topHeap {
	q := s.query
	dim := s.dim
	var scores [scoreBlock]float32
	for b := lo; b < hi; b += scoreBlock {
		if (b-lo)%cancelCheckRows == 0 {
			select {
			case <-s.done:
				return nil
			default:
			}
		}
		e := min(b+scoreBlock, hi)
		for r := b; r < e; {
			if s.keep != nil && !s.keep(r) {
				r++
				continue
			}
			end := r + 1
			for end < e && (s.keep == nil || s.keep(end)) {
				end++
			}
			out := scores[:end-r]
			dotRows(out, s.matrix[r*dim:end*dim], q)
			for i, sc := range out {
				d := -sc
				// NaN fails this test and is dropped.
				if !(d <= s.max) {
					continue
				}
				m := match{Row: r + i, Distance: d}
				if len(h) < s.k {
					h.push(m)
				} else if compareMatch(m, h[0]) < 0 {
					h[0] = m
					h.down(0)
				}
			}
			r = end + 1 // row end, if below e, failed keep
		}
	}
	return h
}

// topHeap is a max-heap on (distance, row): the root is the worst match
// kept so far, the one a better candidate replaces.
type topHeap []match

func (h *topHeap) push(m match) {
	*h = append(*h, m)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if compareMatch(s[i], s[p]) <= 0 {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h topHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		worst := l
		if r := l + 1; r < n && compareMatch(h[r], h[l]) > 0 {
			worst = r
		}
		if compareMatch(h[worst], h[i]) <= 0 {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
