package eval

import (
	"math"
	"testing"
)

func TestMetricsWorkedExample(t *testing.T) {
	// Judged: d1 grade 3, d2 grade 2, d3 grade 1, d9 grade 0 (judged, not relevant).
	judged := map[string]int{"d1": 3, "d2": 2, "d3": 1, "d9": 0}
	// Ranking: d2, x, d1, d9, d3.
	ranked := []string{"d2", "x", "d1", "d9", "d3"}
	l2 := math.Log2

	tests := []struct {
		name string
		fn   func([]string, map[string]int, int) float64
		k    int
		want float64
	}{
		// DCG@3 = 2/log2(2) + 0/log2(3) + 3/log2(4) = 2 + 1.5 = 3.5
		// IDCG@3 = 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.26186 + 0.5
		{"ndcg@3", NDCG, 3, 3.5 / (3 + 2/l2(3) + 0.5)},
		// DCG@5 adds 1/log2(6) for d3 at position 5; IDCG@5 = IDCG@3.
		{"ndcg@5", NDCG, 5, (3.5 + 1/l2(6)) / (3 + 2/l2(3) + 0.5)},
		// DCG@1 = 2, IDCG@1 = 3.
		{"ndcg@1", NDCG, 1, 2.0 / 3},
		{"ndcg no cut", NDCG, 0, (3.5 + 1/l2(6)) / (3 + 2/l2(3) + 0.5)},
		// Two of the three relevant documents are in the top 3.
		{"recall@3", Recall, 3, 2.0 / 3},
		{"recall@5", Recall, 5, 1},
		{"recall@1", Recall, 1, 1.0 / 3},
		// First relevant at rank 1.
		{"mrr@10", MRR, 10, 1},
		{"precision@3", Precision, 3, 2.0 / 3},
		{"precision@10", Precision, 10, 3.0 / 10},
		{"precision no cut", Precision, 0, 3.0 / 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fn(ranked, judged, tt.k); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMetricsEdges(t *testing.T) {
	judged := map[string]int{"a": 1, "b": 2}
	tests := []struct {
		name   string
		ranked []string
		judged map[string]int
		k      int
		ndcg   float64
		recall float64
		mrr    float64
		prec   float64
	}{
		{name: "empty ranking", ranked: nil, judged: judged, k: 10},
		{name: "no relevant judgements", ranked: []string{"a"}, judged: map[string]int{"a": 0}, k: 10},
		{name: "nothing relevant found", ranked: []string{"x", "y"}, judged: judged, k: 10},
		{
			// MRR: first relevant at rank 3 → 1/3. nDCG: DCG = 2/log2(4) = 1;
			// IDCG = 2 + 1/log2(3).
			name: "relevant at rank 3", ranked: []string{"x", "y", "b"}, judged: judged, k: 10,
			ndcg: 1 / (2 + 1/math.Log2(3)), recall: 0.5, mrr: 1.0 / 3, prec: 0.1,
		},
		{
			name: "relevant beyond k", ranked: []string{"x", "y", "b"}, judged: judged, k: 2,
		},
		{
			// The duplicate "b" neither counts twice nor shifts "a".
			name: "duplicates count once", ranked: []string{"b", "b", "a"}, judged: judged, k: 2,
			ndcg: 1, recall: 1, mrr: 1, prec: 1,
		},
		{
			// Perfect ranking: nDCG 1.
			name: "ideal", ranked: []string{"b", "a"}, judged: judged, k: 10,
			ndcg: 1, recall: 1, mrr: 1, prec: 0.2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []struct {
				name string
				got  float64
				want float64
			}{
				{"ndcg", NDCG(tt.ranked, tt.judged, tt.k), tt.ndcg},
				{"recall", Recall(tt.ranked, tt.judged, tt.k), tt.recall},
				{"mrr", MRR(tt.ranked, tt.judged, tt.k), tt.mrr},
				{"precision", Precision(tt.ranked, tt.judged, tt.k), tt.prec},
			} {
				if math.Abs(m.got-m.want) > 1e-12 {
					t.Errorf("%s = %v, want %v", m.name, m.got, m.want)
				}
			}
		})
	}
}
