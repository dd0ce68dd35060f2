package rerank_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/rerank"
)

var catalog = []rerank.Candidate{
	{ID: "p1", Title: "Herbicida Glifosato 480", Content: "Controle de plantas daninhas em soja e milho.", Score: 0.82},
	{ID: "p2", Title: "Fungicida Cúprico", Content: "Fungicida para videira: controle do míldio nas uvas.", Score: 0.74},
	{ID: "p3", Title: "Adubo foliar", Content: "Nutrição de videiras em floração.", Score: 0.70},
	{ID: "p4", Title: "Fungicida sistêmico para uva", Content: "Oídio e míldio da videira.", Score: 0.60},
}

func ExampleKeyword() {
	k, err := rerank.NewKeyword(rerank.KeywordOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := k.Rerank(context.Background(), "fungicida para videiras", catalog)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("%s %.3f = %v\n", r.ID, r.Score, r.Explanation.Keyword)
	}
	// Output:
	// p2 0.707 = 0.60×0.636 (original) + 0.25×1.000 (content: fungicida videir) + 0.15×0.500 (title: fungicida)
	// p1 0.600 = 0.60×1.000 (original) + 0.25×0.000 (content) + 0.15×0.000 (title)
	// p3 0.398 = 0.60×0.455 (original) + 0.25×0.500 (content: videir) + 0.15×0.000 (title)
	// p4 0.200 = 0.60×0.000 (original) + 0.25×0.500 (content: videir) + 0.15×0.500 (title: fungicida)
}

func ExampleApply() {
	k, err := rerank.NewKeyword(rerank.KeywordOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The seed's cut: the first 20 candidates, at least 0.5, the best 5.
	results, err := rerank.Apply(context.Background(), k, "fungicida para videiras", catalog, rerank.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("%s %.3f (was %.2f, #%d)\n", r.ID, r.Score, r.Original, r.Index+1)
	}
	// Output:
	// p2 0.707 (was 0.74, #2)
	// p1 0.600 (was 0.82, #1)
}

func ExampleApply_fallback() {
	// A model reranker that is down; the caller falls back to Keyword.
	down := rerank.Func(func(context.Context, string, []rerank.Candidate) ([]rerank.Result, error) {
		return nil, &llm.APIError{Provider: "cohere", StatusCode: 503, Retryable: true}
	})
	keyword, _ := rerank.NewKeyword(rerank.KeywordOptions{})
	ctx := context.Background()
	opts := rerank.Options{Final: 2}
	results, err := rerank.Apply(ctx, down, "fungicida videira", catalog, opts)
	var apiErr *llm.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("model:", err)
		results, err = rerank.Apply(ctx, keyword, "fungicida videira", catalog, opts)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("%s %.3f %s\n", r.ID, r.Score, r.Explanation.Method)
	}
	// Output:
	// model: llm: cohere API error 503
	// p2 0.707 keyword
	// p1 0.600 keyword
}
