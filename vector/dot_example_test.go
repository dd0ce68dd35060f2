package vector_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/vector"
)

// DotRows scores every row of a flat matrix against one query, the inner
// loop of an exact vector search.
func ExampleDotRows() {
	const dim = 3
	matrix := []float32{
		1, 0, 0, // row 0
		0, 1, 0, // row 1
		1, 1, 1, // row 2
	}
	query := []float32{0.5, 2, -1}
	scores := make([]float32, len(matrix)/dim)
	n := vector.DotRows(scores, matrix, query)
	fmt.Println(n, scores)
	// Output: 3 [0.5 2 1.5]
}
