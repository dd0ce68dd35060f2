package chunkagg_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/internal/chunkagg"
)

func ExampleAggregate() {
	chunks := []chunkagg.ScoredChunk{
		{OwnerID: "item-1", Content: "Controle de míldio na uva.", Distance: -0.82, Seq: 1},
		{OwnerID: "item-2", Content: "Herbicida pós-emergente.", Distance: -0.61},
		{OwnerID: "item-1", Content: "Fungicida sistêmico.", Distance: -0.75},
	}
	hits := chunkagg.Aggregate(chunks, chunkagg.Options{ChunksPerOwner: 2})
	for _, h := range hits {
		fmt.Printf("%s score=%.2f chunks=%d snippet=%q\n", h.OwnerID, h.Score, len(h.Chunks), h.Snippet)
	}
	// Output:
	// item-1 score=0.82 chunks=2 snippet="Controle de míldio na uva. … Fungicida sistêmico."
	// item-2 score=0.61 chunks=1 snippet="Herbicida pós-emergente."
}
