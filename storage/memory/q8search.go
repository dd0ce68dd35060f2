package memory

import (
	"context"
	"runtime"

	"github.com/hybridrag/hybridrag/internal/q8"
	"github.com/hybridrag/hybridrag/vector"
)

// maxQ8Dims bounds the dimensions at which rows are also kept quantized:
// the integer inner products of longer codes could overflow int32.
const maxQ8Dims = 16000

// useQ8 reports whether kinds of the given dimensions keep quantized rows
// and search them with quantizedSearch: only where the int8 kernel is
// accelerated (q8.Accelerated), since elsewhere the float32 scan is
// faster than the portable int8 loop.
func useQ8(dims int) bool {
	return forceQ8 || (q8.Accelerated() && dims <= maxQ8Dims)
}

// forceQ8 makes every new tenant keep quantized rows, for tests on
// processors without the int8 kernel.
var forceQ8 = false

// q8Cand is a row that may belong in the result: its exact score is in
// [lb, ub].
type q8Cand struct {
	ub, lb float32
	row    int32
}

// q8Rescored, when set (by tests and benchmarks), receives the number of
// rows quantizedSearch scored exactly.
var q8Rescored func(n int)

// quantizedSearch returns the same hits as exactSearch while reading a
// quarter of the bytes for most rows. Every eligible row is first scored
// on its 8-bit codes (q8.DotRows), which with q8.Bound gives a
// lower and an upper bound of its exact float32 score; rows whose upper
// bound cannot meet maxDist, or is below the limit-th best lower bound
// seen, are dropped. The rows with the best lower bounds are then scored
// exactly, with the same float32 kernel as exactSearch, and so is every
// other row whose upper bound still reaches the worst of the best limit
// exact scores found so far. A row left out has an upper bound, and so an
// exact score, below every hit kept, so the result is exactly
// exactSearch's, scores bitwise included. The caller holds the tenant's
// read lock.
func quantizedSearch(ctx context.Context, kd *kindData, vec []float32, qcodes []int8, qst q8.Stats, limit int, maxDist float64, eligible func(int) bool) (*topK[vecHit], error) {
	rows, dims := kd.rows, kd.dims
	// The bound of row r is a linear function of its error and norm:
	// Q8Bound(q, r) = Err_r*(N_q+E_q) + Norm_r*(E_q + c*N_q), rounded up.
	qn, qe := float64(qst.Norm), float64(qst.Err)
	cErr := float32((qn + qe) * (1 + 1e-6))
	cNorm := float32((qe + float64(dims+16)*0x1p-22*qn) * (1 + 1e-6))

	procs := runtime.GOMAXPROCS(0)
	cands := make([][]q8Cand, procs)
	seeds := make([]*topK[q8Cand], procs)
	errs := make([]error, procs)
	byLower := func(a, b q8Cand) bool {
		if a.lb != b.lb {
			return a.lb > b.lb
		}
		return a.row < b.row
	}
	n := shards(len(rows), procs, minVectorShard, func(shard, lo, hi int) {
		// seed keeps the shard's rows with the best lower bounds: the
		// limit-th best exact score is at least the limit-th best lower
		// bound, so a row whose upper bound is below it cannot be a hit.
		seed := newTopK(limit, byLower)
		seeds[shard] = seed
		var cs []q8Cand
		var scores [scoreBlock]int32
		errs[shard] = eachRun(ctx, lo, hi, eligible, func(r, end int) {
			out := scores[:end-r]
			q8.DotRows(out, kd.q8[r*dims:end*dims], qcodes)
			for i, sc := range out {
				st := &kd.q8st[r+i]
				approx := qst.Scale * st.Scale * float32(sc)
				bound := st.Err*cErr + st.Norm*cNorm
				// The slack covers the float32 arithmetic of approx ± bound.
				slack := 1e-6 * (abs32(approx) + bound)
				c := q8Cand{ub: approx + bound + slack, lb: approx - bound - slack, row: int32(r + i)}
				if float64(-c.ub) > maxDist { // cannot meet MaxDistance
					continue
				}
				if seed.full() && c.ub < seed.worst().lb {
					continue
				}
				cs = append(cs, c)
				if float64(-c.lb) <= maxDist { // sure to meet MaxDistance
					seed.push(c)
				}
			}
		})
		cands[shard] = cs
	})
	for i := range n {
		if errs[i] != nil {
			return nil, errs[i]
		}
	}

	all := newTopK(limit, vecBetter(rows))
	rescored := 0
	score := func(r int32) {
		rescored++
		var out [1]float32
		vector.DotRows(out[:], kd.vec(r), vec)
		if float64(-out[0]) <= maxDist {
			all.push(vecHit{out[0], r})
		}
	}
	// The rows with the best lower bounds first: they set the bar.
	done := make(map[int32]bool, limit*n)
	for _, seed := range seeds[:n] {
		for _, c := range seed.h {
			done[c.row] = true
			score(c.row)
		}
	}
	for _, cs := range cands[:n] {
		for _, c := range cs {
			if done[c.row] || (all.full() && c.ub < all.worst().score) {
				continue
			}
			score(c.row)
		}
	}
	if q8Rescored != nil {
		q8Rescored(rescored)
	}
	return all, nil
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
