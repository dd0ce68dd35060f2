package q8_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/internal/q8"
	"github.com/hybridrag/hybridrag/vector"
)

// Quantize, DotRows and Bound give each row an interval that holds
// its exact inner product with the query, from a quarter of the bytes: a
// search scores every row on the codes and only the rows whose interval
// reaches the best scores exactly.
func ExampleDotRows() {
	const dim = 4
	rows := [][]float32{{0.9, 0.1, 0, 0.4}, {0.1, 0.8, 0.5, 0}, {0.5, 0.5, 0.5, 0.5}}
	query := []float32{1, 0, 0.2, 0.3}

	qcodes := make([]int8, dim)
	qst, _ := q8.Quantize(qcodes, query)
	codes := make([]int8, len(rows)*dim)
	stats := make([]q8.Stats, len(rows))
	for i, r := range rows {
		stats[i], _ = q8.Quantize(codes[i*dim:(i+1)*dim], r)
	}
	dots := make([]int32, len(rows))
	q8.DotRows(dots, codes, qcodes)
	for i, r := range rows {
		approx := qst.Scale * stats[i].Scale * float32(dots[i])
		bound := q8.Bound(qst, stats[i], dim)
		exact, _ := vector.Dot(query, r)
		fmt.Printf("row %d: exact %.3f within [%.3f, %.3f]: %v\n", i, exact, approx-bound, approx+bound,
			approx-bound <= exact && exact <= approx+bound)
	}
	// Output:
	// row 0: exact 1.020 within [1.012, 1.025]: true
	// row 1: exact 0.200 within [0.193, 0.204]: true
	// row 2: exact 0.750 within [0.745, 0.751]: true
}
