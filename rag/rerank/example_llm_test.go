package rerank_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag/rerank"
)

// An LLM reranker on a scripted model: the model scores each candidate,
// Apply drops those below 0.5 and sorts the rest.
func ExampleLLM() {
	model := llmtest.NewModel(llmtest.Text(`{"scores":[{"index":0,"score":0.1},{"index":1,"score":0.8},{"index":2,"score":0.55},{"index":3,"score":0.95}]}`))
	r, err := rerank.NewLLM(model, rerank.LLMOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := rerank.Apply(context.Background(), r, "fungicida para videiras", catalog, rerank.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, res := range results {
		fmt.Printf("%s %.2f %s\n", res.ID, res.Score, res.Explanation.Method)
	}
	// Output:
	// p4 0.95 llm
	// p2 0.80 llm
	// p3 0.55 llm
}
