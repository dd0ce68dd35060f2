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
