package eval

import (
	"cmp"
	"math"
	"slices"
)

// Ranking metrics for evaluation (nDCG@k, Recall@k, MRR@k, Precision@k).
//
// Every metric takes the ranked result IDs of one query, best first, and
// the judgements of that query: a map from document ID to grade, where a
// grade >= 1 means relevant and higher is more relevant (the qrels TSV
// format). Unjudged documents and grades below 1 count as not relevant. A
// document repeated in the ranking counts only at its first position.
// k <= 0 means no cut-off (the whole ranking). A query with no relevant
// judgement scores 0 on every metric; evaluators usually report such
// queries apart.

// cut returns the first k distinct IDs of ranked (all when k <= 0).
func cut(ranked []string, k int) []string {
	out := make([]string, 0, min(len(ranked), max(k, 0)))
	seen := make(map[string]bool, len(ranked))
	for _, id := range ranked {
		if k > 0 && len(out) == k {
			break
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

func gain(grade int) float64 {
	if grade < 1 {
		return 0
	}
	return float64(grade)
}

// NDCG returns nDCG@k with gain = grade and a log2 discount:
// DCG = Σ_{i=1..k} grade_i / log2(i+1), divided by the DCG of the ideal
// ranking of all judged documents (grades sorted in decreasing order, cut
// at k). The result is in [0, 1].
func NDCG(ranked []string, judged map[string]int, k int) float64 {
	var dcg float64
	for i, id := range cut(ranked, k) {
		dcg += gain(judged[id]) / math.Log2(float64(i+2))
	}
	grades := make([]int, 0, len(judged))
	for _, g := range judged {
		if g >= 1 {
			grades = append(grades, g)
		}
	}
	slices.SortFunc(grades, func(a, b int) int { return cmp.Compare(b, a) })
	if k > 0 && len(grades) > k {
		grades = grades[:k]
	}
	var ideal float64
	for i, g := range grades {
		ideal += gain(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// Recall returns Recall@k: the fraction of relevant documents (grade >= 1)
// found in the first k results.
func Recall(ranked []string, judged map[string]int, k int) float64 {
	relevant := 0
	for _, g := range judged {
		if g >= 1 {
			relevant++
		}
	}
	if relevant == 0 {
		return 0
	}
	return float64(hitsIn(cut(ranked, k), judged)) / float64(relevant)
}

// Precision returns Precision@k: the fraction of the first k results that
// are relevant. The denominator is k even when fewer results were
// returned (missing results are not relevant); with k <= 0 it is the
// number of distinct results.
func Precision(ranked []string, judged map[string]int, k int) float64 {
	top := cut(ranked, k)
	n := k
	if k <= 0 {
		n = len(top)
	}
	if n == 0 {
		return 0
	}
	return float64(hitsIn(top, judged)) / float64(n)
}

// MRR returns the reciprocal rank of the first relevant result within the
// first k (1 for a relevant first result, 1/2 for the second, ...), or 0
// when none is relevant; averaged over queries it is MRR@k.
func MRR(ranked []string, judged map[string]int, k int) float64 {
	for i, id := range cut(ranked, k) {
		if judged[id] >= 1 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

func hitsIn(ids []string, judged map[string]int) int {
	n := 0
	for _, id := range ids {
		if judged[id] >= 1 {
			n++
		}
	}
	return n
}
