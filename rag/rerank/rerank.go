package rerank

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Defaults of a zero [Options]: a reranker costs a model call or a score per
// candidate, so only the first 20 are rescored (a correct hit retrieval
// left lower is rarely worth the cost); 5 hits fill a chat context; 0.5
// is the middle of the rerankers' [0, 1] relevance scale.
const (
	// defaultTopN is the number of leading candidates handed to the
	// reranker.
	defaultTopN = 20
	// DefaultFinal is the number of results kept after reranking.
	DefaultFinal = 5
	// DefaultMinScore is the lowest reranked score kept.
	DefaultMinScore = 0.5
)

var (
	// ErrEmptyQuery is returned when the query is empty or white space.
	ErrEmptyQuery = errors.New("rerank: empty query")
	// ErrInvalidOptions is returned for options that cannot work, such as
	// negative or non-finite weights or an unknown flavor.
	ErrInvalidOptions = errors.New("rerank: invalid options")
	// ErrInvalidResult is returned by [Apply] when a reranker returns a
	// result with an index outside the candidates it was given, the same
	// index twice, or a score that is not a number in [0, 1].
	ErrInvalidResult = errors.New("rerank: invalid result")
	// ErrInvalidResponse is returned by [HTTP] when a server answers 2xx
	// with a body that is not the expected JSON, lacks results, or holds
	// an out-of-range or repeated index or a non-finite score.
	ErrInvalidResponse = errors.New("rerank: invalid response")
)

// Candidate is one retrieved hit to rerank.
type Candidate struct {
	// ID identifies the hit (an item, FAQ or document ID).
	ID string
	// Title is the hit's short label: an item name, a FAQ question, a
	// document title. It may be empty.
	Title string
	// Content is the text the reranker judges: a snippet, an answer, a
	// chunk.
	Content string
	// Score is the original retrieval score on any scale (a fused score,
	// a similarity, an RRF sum); higher is better.
	Score float64
}

// Result is one reranked candidate.
type Result struct {
	// ID is the candidate's ID.
	ID string
	// Index is the candidate's position in the slice given to Rerank (and,
	// from [Apply], in the slice given to Apply).
	Index int
	// Score is the reranked relevance in [0, 1]; higher is better.
	Score float64
	// Original is the candidate's original retrieval score, unchanged.
	Original float64
	// Explanation says how Score was computed.
	Explanation Explanation
}

// Method names the reranker that produced a [Result].
type Method string

// MethodKeyword names the scores of [Keyword]. [HTTP] names its scores by
// its Flavor ("cohere", "jina", "tei", "vllm"; see [Flavor.String]) and
// [LLM] by [MethodLLM]. A [Func] may use any other name.
const MethodKeyword Method = "keyword"

// Methods named after the HTTP flavors.
const (
	methodCohere Method = "cohere"
	methodJina   Method = "jina"
	methodTEI    Method = "tei"
	methodVLLM   Method = "vllm"
)

// Explanation is the typed account of a reranked score.
type Explanation struct {
	// Method is the reranker that scored the candidate.
	Method Method
	// Raw is the score as the reranker produced it, before it was mapped
	// to [0, 1]: a model's relevance score or logit for [HTTP], the same
	// as the final score for [Keyword].
	Raw float64
	// Sigmoid reports whether Raw was mapped through the logistic
	// function 1/(1+e^-x) because the server returned logits; see
	// [ScoreMapping].
	Sigmoid bool
	// Keyword holds the components of a [Keyword] score; nil for other
	// methods.
	Keyword *KeywordExplanation
}

// Reranker reorders retrieved candidates by their relevance to a query.
//
// Rerank returns at most one [Result] per candidate, with Index pointing
// into cands and Score in [0, 1]. It may omit candidates (a remote
// top-n cut); the order of the results is not part of the contract
// ([Apply] sorts them). Rerank must not modify cands, must honor ctx,
// and returns [ErrEmptyQuery] for an empty query. Implementations in this
// package are safe for concurrent use.
type Reranker interface {
	Rerank(ctx context.Context, query string, cands []Candidate) ([]Result, error)
}

// Func adapts a function to the [Reranker] interface.
type Func func(ctx context.Context, query string, cands []Candidate) ([]Result, error)

// Rerank calls f(ctx, query, cands).
func (f Func) Rerank(ctx context.Context, query string, cands []Candidate) ([]Result, error) {
	return f(ctx, query, cands)
}

// Options are the per-call settings of [Apply]. The zero value means the
// defaults: rerank the first 20 candidates, keep the best 5 with a
// score of at least 0.5. A reranker costs a model call or a score per
// candidate, so only the first 20 are rescored (a correct hit retrieval
// left lower is rarely worth the cost); 5 hits fill a chat context; 0.5 is
// the middle of the rerankers' [0, 1] relevance scale.
type Options struct {
	// TopN is how many leading candidates are reranked; 0 means
	// 20 and a negative value means all of them.
	// Candidates past TopN are dropped: they are never returned.
	TopN int
	// Final is how many results are kept; 0 means DefaultFinal (5) and a
	// negative value means no cap.
	Final int
	// MinScore drops results scoring below it; 0 means DefaultMinScore
	// (0.5) and a negative value keeps every score. NaN is invalid.
	MinScore float64
}

func (o Options) topN(n int) int {
	switch {
	case o.TopN < 0:
		return n
	case o.TopN == 0:
		return min(n, defaultTopN)
	}
	return min(n, o.TopN)
}

func (o Options) final() int {
	switch {
	case o.Final < 0:
		return math.MaxInt
	case o.Final == 0:
		return DefaultFinal
	}
	return o.Final
}

func (o Options) minScore() float64 {
	switch {
	case o.MinScore < 0:
		return math.Inf(-1)
	case o.MinScore == 0:
		return DefaultMinScore
	}
	return o.MinScore
}

// Apply reranks the leading candidates of cands with r and returns the
// best results, the last stage of a search after retrieval:
//
//  1. take the first opts.TopN candidates (default 20);
//  2. call r.Rerank on them;
//  3. check every result (index in range and not repeated, score a
//     number in [0, 1]) and set its ID and Original from the candidate;
//  4. drop results scoring below opts.MinScore (default 0.5);
//  5. sort by score, best first, equal scores by the candidate's position
//     in cands;
//  6. keep the first opts.Final results (default 5).
//
// Result.Index points into cands. Apply returns nil without calling r
// when cands is empty, [ErrEmptyQuery] for a blank query, and
// [ErrInvalidOptions] for a NaN MinScore or a nil r. A reranker error is
// returned as is: deciding to fall back
// (for example to [Keyword]) is the caller's job. A result the reranker
// got wrong fails the call with [ErrInvalidResult]. Apply does not modify
// cands and is safe for concurrent use when r is.
func Apply(ctx context.Context, r Reranker, query string, cands []Candidate, opts Options) ([]Result, error) {
	if math.IsNaN(opts.MinScore) {
		return nil, fmt.Errorf("%w: MinScore is NaN", ErrInvalidOptions)
	}
	if r == nil {
		return nil, fmt.Errorf("%w: nil Reranker", ErrInvalidOptions)
	}
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmptyQuery
	}
	window := cands[:opts.topN(len(cands))]
	if len(window) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	// Hand the reranker a copy so a misbehaving one cannot change the
	// caller's slice.
	results, err := r.Rerank(ctx, query, slices.Clone(window))
	if err != nil {
		return nil, err
	}
	if err := checkResults(results, window); err != nil {
		return nil, err
	}
	minScore := opts.minScore()
	out := make([]Result, 0, len(results))
	for _, res := range results {
		if res.Score < minScore {
			continue
		}
		c := window[res.Index]
		res.ID, res.Original = c.ID, c.Score
		out = append(out, res)
	}
	sortResults(out)
	if final := opts.final(); len(out) > final {
		out = slices.Clip(out[:final])
	}
	return out, nil
}

// checkResults reports the first result that does not fit the candidates.
func checkResults(results []Result, cands []Candidate) error {
	seen := make([]bool, len(cands))
	for i, res := range results {
		if res.Index < 0 || res.Index >= len(cands) {
			return fmt.Errorf("%w: result %d has index %d, want 0..%d", ErrInvalidResult, i, res.Index, len(cands)-1)
		}
		if seen[res.Index] {
			return fmt.Errorf("%w: index %d returned twice", ErrInvalidResult, res.Index)
		}
		seen[res.Index] = true
		if !(res.Score >= 0 && res.Score <= 1) {
			return fmt.Errorf("%w: index %d has score %v, want a number in [0, 1]", ErrInvalidResult, res.Index, res.Score)
		}
	}
	return nil
}

// sortResults orders results best first, equal scores by index.
func sortResults(results []Result) {
	slices.SortFunc(results, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
}
