package vector_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/vector"
)

func ExampleHashEmbedder() {
	e, err := vector.NewHashEmbedder(vector.HashOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := e.Embed(context.Background(), []string{
		"fungicida para videira",
		"Fungicida sistêmico para o míldio da videira",
		"Herbicida para plantas daninhas na soja",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	grapes, _ := vector.Dot(vecs[0], vecs[1])
	soy, _ := vector.Dot(vecs[0], vecs[2])
	fmt.Println(len(vecs[0]), grapes > soy)
	// Output:
	// 1536 true
}

func ExampleAggregate() {
	chunks := []vector.ScoredChunk{
		{OwnerID: "item-1", Content: "Controle de míldio na uva.", Distance: -0.82, Seq: 1},
		{OwnerID: "item-2", Content: "Herbicida pós-emergente.", Distance: -0.61},
		{OwnerID: "item-1", Content: "Fungicida sistêmico.", Distance: -0.75},
	}
	hits := vector.Aggregate(chunks, vector.AggregateOptions{ChunksPerOwner: 2})
	for _, h := range hits {
		fmt.Printf("%s score=%.2f chunks=%d snippet=%q\n", h.OwnerID, h.Score, len(h.Chunks), h.Snippet)
	}
	// Output:
	// item-1 score=0.82 chunks=2 snippet="Controle de míldio na uva. … Fungicida sistêmico."
	// item-2 score=0.61 chunks=1 snippet="Herbicida pós-emergente."
}
