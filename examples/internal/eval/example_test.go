package eval_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/rag"
)

func ExampleRun() {
	queries, _ := eval.ReadQueries(strings.NewReader(
		`{"id":"q1","text":"fungicida para uva","type":"class_crop"}
{"id":"q2","text":"fungisida pra uva","type":"typo"}
`), "queries.jsonl")
	qrels, _ := eval.ReadQrels(strings.NewReader(
		"query_id\tdoc_id\tgrade\nq1\tp1\t2\nq1\tp2\t1\nq2\tp1\t2\nq2\tp2\t1\n"), "qrels.tsv")

	// Any engine can be evaluated; eval.SearcherFunc adapts a rag.Searcher.
	search := func(_ context.Context, q rag.Query) ([]string, error) {
		if strings.Contains(q.Text, "fungisida") {
			return []string{"p9", "p2"}, nil // misses the best product
		}
		return []string{"p1", "p2"}, nil
	}
	configs, _ := eval.Configs("hybrid", "")
	rep, err := eval.Run(context.Background(), search, queries, qrels, eval.Options{K: 10, Configs: configs})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := rep.Modes["hybrid"]
	fmt.Printf("queries=%d nDCG@10=%.3f MRR@10=%.3f recall@10=%.3f\n", rep.Queries, h.NDCG, h.MRR, h.Recall)
	for _, typ := range rep.Types {
		fmt.Printf("%s nDCG@10=%.3f\n", typ, h.ByType[typ].NDCG)
	}
	// Output:
	// queries=2 nDCG@10=0.620 MRR@10=0.750 recall@10=0.750
	// class_crop nDCG@10=1.000
	// typo nDCG@10=0.240
}

func ExampleNDCG() {
	// Judgements of one query (qrels): grade >= 1 is relevant.
	judged := map[string]int{"d1": 3, "d2": 2, "d3": 1}
	ranked := []string{"d2", "x", "d1", "d3"}
	fmt.Printf("nDCG@3 %.3f\n", eval.NDCG(ranked, judged, 3))
	fmt.Printf("Recall@3 %.3f\n", eval.Recall(ranked, judged, 3))
	fmt.Printf("MRR@3 %.3f\n", eval.MRR(ranked, judged, 3))
	fmt.Printf("P@3 %.3f\n", eval.Precision(ranked, judged, 3))
	// Output:
	// nDCG@3 0.735
	// Recall@3 0.667
	// MRR@3 1.000
	// P@3 0.667
}
