// Package scoring holds the numeric judgements of hybrid search: the
// weights and the explanation of the combined score of a hit found by the
// vector and lexical legs, and the confidence level of a retrieval.
//
// # Combined score
//
// The combined score (computed by merge.Weighted) adds five weighted
// components, each in [0, 1] before its weight: the vector similarity, the
// lexical score normalized by the best lexical score among the candidates,
// the subject+class pair flag, and a bonus for the hit's rank in the
// vector list and in the lexical list. [Weights] configure it (default
// vector 6, lexical 4, pair 4, rank bonuses 1) and [Combined] explains
// every component of one hit's score.
//
// # Confidence
//
// [Thresholds.Level] maps an average score in [0, 1] to a [Level] (by
// default high ≥ 0.85, medium ≥ 0.70, low ≥ 0.60, else none) with a pt-BR
// message for each;
// level none means "do not augment the prompt". Averaging raw cosine
// similarities would tie the levels to the embedding model's scale; the rag
// Pipeline averages the calibrated relevance of the hits it cites
// (rag.Evidence), so the levels mean the same for any embedder.
//
// # Errors and concurrency
//
// Everything here is a pure function of its arguments: no errors (bad
// numbers such as NaN are documented per function), no state, safe for
// concurrent use. Inputs are never modified.
//
// The package imports only the standard library.
package scoring
