package merge

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/scoring"
)

// Names of the two lists of the hybrid search, used in explanations by
// [Simple] and [Weighted].
const (
	ListVector  = "vector"
	ListLexical = "lexical"
)

// defaultRRFK is the rank constant of reciprocal rank fusion (Cormack et
// al. 2009).
const defaultRRFK = 60

// Method names a fusion method.
type Method string

// Fusion methods.
const (
	MethodSimple   Method = "simple"
	MethodWeighted Method = "weighted"
	MethodRRF      Method = "rrf"
	MethodRelative Method = "relative"
)

// Hit is one entry of a ranked list.
type Hit struct {
	// ID identifies the item, FAQ or document.
	ID string
	// Score is the list's own score, larger is better: the similarity
	// (-distance) for a vector list, the lexicalScore or SQL rank for a
	// lexical list. RRF only reports it; the other methods use it.
	Score float64
}

// LexicalHit is one entry of the lexical list for [Weighted].
type LexicalHit struct {
	// ID identifies the item.
	ID string
	// Score is the lexicalScore.
	Score float64
	// Pair reports a subject+class match (lexical.Signals.Pair).
	Pair bool
}

// List is one ranked list for [RRF] and [RelativeScore].
type List struct {
	// Name labels the list in explanations ("vector", "lexical", ...).
	Name string
	// Weight multiplies the list's contributions; 0 means 1 and a
	// negative weight means 0 (the list's hits are kept but add nothing).
	Weight float64
	// Hits are the list's hits, best first.
	Hits []Hit
}

func (l List) weight() float64 {
	switch {
	case l.Weight == 0:
		return 1
	case l.Weight < 0 || math.IsNaN(l.Weight):
		return 0
	}
	return l.Weight
}

// Contribution explains what one input list gave to a fused hit.
type Contribution struct {
	// List is the list's name.
	List string
	// Rank is the 1-based position of the hit among the list's distinct
	// IDs; 0 means the list did not return the hit.
	Rank int
	// Raw is the hit's score in the list (for Weighted's lexical list, the
	// lexicalScore even when computed for a vector-only hit).
	Raw float64
	// Normalized is the value the method weights: 1/(k+rank) for RRF, the
	// min-max normalized score for RelativeScore, the normalized
	// component for Weighted, 0 for Simple.
	Normalized float64
	// Weight is the effective list weight.
	Weight float64
	// Contribution is what the list added to the fused score.
	Contribution float64
}

// Explanation says how a fused score was computed, by the function that
// returned it (rag.Result.Fusion names it for a search).
type Explanation struct {
	// Lists has one entry per input list, in input order.
	Lists []Contribution
	// Combined is the full combined-score breakdown (Weighted only).
	Combined *scoring.Combined
}

// List returns the contribution of the named list.
func (e Explanation) List(name string) (Contribution, bool) {
	for _, c := range e.Lists {
		if c.List == name {
			return c, true
		}
	}
	return Contribution{}, false
}

// Fused is one hit of a fused ranking.
type Fused struct {
	// ID identifies the item.
	ID string
	// Score is the fused score, larger is better (0 for Simple, which
	// ranks by position).
	Score float64
	// Explanation breaks the score down.
	Explanation Explanation
}

// In reports whether the named list returned the hit.
func (f Fused) In(list string) bool {
	c, ok := f.Explanation.List(list)
	return ok && c.Rank > 0
}

// ranked is a list reduced to its distinct IDs, in order: the hit of rank
// r (1-based) is order[r-1] with score scores[r-1].
type ranked struct {
	order  []string
	scores []float64
	rank   map[string]int
}

func rankList(n int, ids func(yield func(id string, score float64) bool)) ranked {
	r := ranked{order: make([]string, 0, n), scores: make([]float64, 0, n), rank: make(map[string]int, n)}
	for id, s := range ids {
		if id == "" {
			continue
		}
		if _, dup := r.rank[id]; dup {
			continue
		}
		r.order = append(r.order, id)
		r.scores = append(r.scores, s)
		r.rank[id] = len(r.order)
	}
	return r
}

// score returns the score of id, or 0 when the list does not hold it.
func (r ranked) score(id string) float64 {
	if i, ok := r.rank[id]; ok {
		return r.scores[i-1]
	}
	return 0
}

func hitsSeq(hits []Hit) func(func(string, float64) bool) {
	return func(yield func(string, float64) bool) {
		for _, h := range hits {
			if !yield(h.ID, h.Score) {
				return
			}
		}
	}
}

// Simple is the simple merge: every vector hit in its order, then
// the lexical hits not already present, in their order; cut at limit
// (limit <= 0 means no cut). Fused scores are 0: the order is the result.
// The explanation records each hit's rank and raw score in both lists.
//
// Example: vector [a b], lexical [b c d], limit 3 → a b c.
func Simple(vector, lexical []Hit, limit int) []Fused {
	v := rankList(len(vector), hitsSeq(vector))
	l := rankList(len(lexical), hitsSeq(lexical))
	ids := slices.Clone(v.order)
	for _, id := range l.order {
		if _, ok := v.rank[id]; !ok {
			ids = append(ids, id)
		}
	}
	if limit > 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	if len(ids) == 0 {
		return nil
	}
	out := make([]Fused, len(ids))
	contribs := make([]Contribution, 2*len(ids))
	for i, id := range ids {
		lists := contribs[2*i : 2*i+2 : 2*i+2]
		lists[0] = Contribution{List: ListVector, Rank: v.rank[id], Raw: v.score(id)}
		lists[1] = Contribution{List: ListLexical, Rank: l.rank[id], Raw: l.score(id)}
		out[i] = Fused{ID: id, Explanation: Explanation{Lists: lists}}
	}
	return out
}

// WeightedOptions configures [Weighted]. The zero value uses the default
// weights, no limit and no lexical scoring of vector-only hits.
type WeightedOptions struct {
	// Weights are the combined-score weights; a zero field means its
	// default (vector 6, lexical 4, pair 4, rank bonuses 1).
	Weights scoring.Weights
	// Limit cuts the result; <= 0 means no cut.
	Limit int
	// LexicalFor scores a hit that only the vector list returned, so that
	// it is ranked on the same scale as hits both lists returned (a
	// catalog Searcher scores the record's text against the query). nil gives them a lexical score
	// of 0 and no pair. It is called once per such hit, in vector order.
	LexicalFor func(id string) (score float64, pair bool)
}

// Weighted is the weighted merge: every distinct hit of either list
// is scored with the combined score
//
//	score = Wv·clamp(sim, 0, 1)                       // normalized vector component
//	      + Wl·lex/max(lexMax, lex)                    // normalized lexicalScore
//	      + Wp·[subject+class pair]                    // pair priority bonus
//	      + Wvr·1/vectorRank + Wlr·1/lexicalRank        // rank bonuses (0 when absent)
//
// (vector similarity = Hit.Score, lexicalScore normalized by the best
// lexical score among all candidates; non-finite or negative similarities
// and lexical scores contribute 0, so every score is finite and >= 0) and
// the hits are sorted by that score, ties by ID, and cut at opts.Limit.
//
// In the explanation, the vector entry's Contribution is the vector
// component plus its rank bonus, the lexical entry's the lexical component
// plus its rank bonus; the pair bonus and every term are in Combined.
//
// Worked example with the default weights: vector [a 0.9, b 0.6], lexical
// [b 8 (pair), c 4]:
//
//	a = 6·0.9 + 1/1                         = 6.4
//	b = 6·0.6 + 4·(8/8) + 4 + 1/2 + 1/1     = 13.1
//	c = 4·(4/8) + 1/2                       = 2.5   → b a c
func Weighted(vector []Hit, lexical []LexicalHit, opts WeightedOptions) []Fused {
	v := rankList(len(vector), hitsSeq(vector))
	pair := make(map[string]bool, len(lexical))
	l := rankList(len(lexical), func(yield func(string, float64) bool) {
		for _, h := range lexical {
			if _, seen := pair[h.ID]; !seen {
				pair[h.ID] = h.Pair
			}
			if !yield(h.ID, h.Score) {
				return
			}
		}
	})

	type cand struct {
		id       string
		lex      float64
		pair     bool
		computed bool
	}
	cands := make([]cand, 0, len(v.order)+len(l.order))
	for _, id := range v.order {
		c := cand{id: id}
		if _, ok := l.rank[id]; ok {
			c.lex, c.pair = l.score(id), pair[id]
		} else if opts.LexicalFor != nil {
			c.lex, c.pair = opts.LexicalFor(id)
			c.computed = true
		}
		cands = append(cands, c)
	}
	for _, id := range l.order {
		if _, ok := v.rank[id]; !ok {
			cands = append(cands, cand{id: id, lex: l.score(id), pair: pair[id]})
		}
	}
	if len(cands) == 0 {
		return nil
	}
	lexMax := 0.0
	for _, c := range cands {
		if c.lex > lexMax && !math.IsInf(c.lex, 0) {
			lexMax = c.lex
		}
	}

	out := make([]Fused, len(cands))
	combs := make([]scoring.Combined, len(cands))
	contribs := make([]Contribution, 2*len(cands))
	for i, c := range cands {
		vr := v.rank[c.id]
		comb := &combs[i]
		*comb = combinedScore(combinedInput{
			HasVector:        vr > 0,
			VectorSimilarity: v.score(c.id),
			LexicalScore:     c.lex,
			LexicalMax:       lexMax,
			Pair:             c.pair,
			VectorRank:       vr,
			LexicalRank:      l.rank[c.id],
		}, opts.Weights)
		lists := contribs[2*i : 2*i+2 : 2*i+2]
		lists[0] = Contribution{
			List: ListVector, Rank: vr, Raw: v.score(c.id),
			Normalized: comb.Vector.Normalized, Weight: comb.Vector.Weight,
			Contribution: comb.Vector.Contribution + comb.VectorRank.Contribution,
		}
		lists[1] = Contribution{
			List: ListLexical, Rank: l.rank[c.id], Raw: c.lex,
			Normalized: comb.Lexical.Normalized, Weight: comb.Lexical.Weight,
			Contribution: comb.Lexical.Contribution + comb.LexicalRank.Contribution,
		}
		out[i] = Fused{ID: c.id, Score: comb.Score, Explanation: Explanation{
			Lists: lists, Combined: comb,
		}}
	}
	return sortCut(out, opts.Limit)
}

// RRFOptions configures [RRF].
type RRFOptions struct {
	// K is the rank constant; values <= 0 (and NaN) mean 60, the constant of
	// Cormack et al. (2009).
	K float64
	// Limit cuts the result; <= 0 means no cut.
	Limit int
}

// RRF is reciprocal rank fusion: a hit scores Σ weight_l / (k + rank_l)
// over the lists l that returned it, with 1-based ranks. Scores inside
// the lists are reported but not used. Ties are ordered by ID.
//
// Worked example, k = 60, vector [a b c] (weight 1), lexical [c d]
// (weight 2):
//
//	c = 1/63 + 2/61 ≈ 0.04866, d = 2/62 ≈ 0.03226,
//	a = 1/61 ≈ 0.01639,       b = 1/62 ≈ 0.01613   → c d a b
func RRF(lists []List, opts RRFOptions) []Fused {
	k := opts.K
	if !(k > 0) || math.IsInf(k, 0) {
		k = defaultRRFK
	}
	return fuse(lists, opts.Limit, func(r ranked) func(id string) float64 {
		return func(id string) float64 { return 1 / (k + float64(r.rank[id])) }
	})
}

// RelativeOptions configures [RelativeScore].
type RelativeOptions struct {
	// Limit cuts the result; <= 0 means no cut.
	Limit int
}

// RelativeScore is relative score fusion: each list's scores are min-max
// normalized to [0, 1] over its distinct hits, (s − min) / (max − min),
// and a hit scores Σ weight_l × normalized_l over the lists that returned
// it. When all scores of a list are equal (including a single hit) they
// all normalize to 1: each hit was the list's best. NaN and infinite
// scores are left out of min and max and normalize to 0. Ties are ordered
// by ID.
//
// Worked example, vector [a 0.9, b 0.7, c 0.5], lexical [c 12, d 4]
// (both weight 1):
//
//	vector: a (0.9−0.5)/0.4 = 1, b 0.5, c 0;  lexical: c 1, d 0
//	a = 1, c = 0 + 1 = 1, b = 0.5, d = 0   → a c b d (a and c tie, by ID)
func RelativeScore(lists []List, opts RelativeOptions) []Fused {
	return fuse(lists, opts.Limit, func(r ranked) func(id string) float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, id := range r.order {
			s := r.score(id)
			if math.IsNaN(s) || math.IsInf(s, 0) {
				continue
			}
			lo, hi = min(lo, s), max(hi, s)
		}
		return func(id string) float64 {
			s := r.score(id)
			switch {
			case math.IsNaN(s) || math.IsInf(s, 0):
				return 0
			case hi == lo:
				return 1
			}
			return (s - lo) / (hi - lo)
		}
	})
}

// fuse is the shared body of RRF and RelativeScore: norm(list) returns the
// per-hit normalized value of that list.
func fuse(lists []List, limit int, norm func(ranked) func(string) float64) []Fused {
	rs := make([]ranked, len(lists))
	norms := make([]func(string) float64, len(lists))
	var ids []string
	seen := make(map[string]bool)
	for i, l := range lists {
		rs[i] = rankList(len(l.Hits), hitsSeq(l.Hits))
		norms[i] = norm(rs[i])
		for _, id := range rs[i].order {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	out := make([]Fused, len(ids))
	n := len(lists)
	contribs := make([]Contribution, len(ids)*n)
	for j, id := range ids {
		f := Fused{ID: id, Explanation: Explanation{Lists: contribs[j*n : (j+1)*n : (j+1)*n]}}
		for i, l := range lists {
			c := Contribution{List: l.Name, Weight: l.weight()}
			if rank, ok := rs[i].rank[id]; ok {
				c.Rank = rank
				c.Raw = rs[i].scores[rank-1]
				c.Normalized = norms[i](id)
				c.Contribution = c.Weight * c.Normalized
				f.Score += c.Contribution
			}
			f.Explanation.Lists[i] = c
		}
		out[j] = f
	}
	return sortCut(out, limit)
}

// sortCut orders by score (descending), then ID, and keeps limit hits.
func sortCut(out []Fused, limit int) []Fused {
	slices.SortFunc(out, func(a, b Fused) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit:limit]
	}
	return out
}
