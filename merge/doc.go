// Package merge fuses ranked result lists into one ranking: the reference
// store's simple mode (vector hits first, then lexical, deduplicated) and
// enhanced mode (the weighted combined score, with scoring's weights), plus
// reciprocal rank fusion and relative score fusion for comparison.
//
// Worked example with two lists, vector [a b c] and lexical [c d]:
//
//	Simple:          a b c d (vector order, then new lexical hits)
//	RRF (k = 60):    c = 1/63 + 1/61 ≈ 0.03227, a = 1/61 ≈ 0.01639,
//	                 b = 1/62 ≈ 0.01613, d = 1/62 ≈ 0.01613 → c a b d
//	                 (b and d tie and are ordered by ID)
//
// # Determinism
//
// Every function is pure: inputs are read, never modified or retained;
// the same inputs always give the same output. Hits are expected best
// first; ranks are 1-based positions among a list's distinct IDs (a
// repeated ID keeps its first, best position and later copies are
// ignored; hits with an empty ID are ignored). Equal fused scores are
// ordered by ID. Every fused hit carries a typed [Explanation]: for each
// input list its rank, raw score, normalized score, weight and
// contribution.
//
// # Errors and concurrency
//
// The functions have no error cases: bad numbers are documented per
// function (NaN or infinite scores normalize to 0). They are safe for
// concurrent use.
//
// The package imports the standard library and the project's scoring
// package only.
package merge
