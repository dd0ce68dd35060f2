// Package rerank reorders retrieved hits by their relevance to the query,
// the last stage of a search: the first 20 candidates of a retrieval are
// rescored, results scoring below 0.5 are dropped and the best 5 are kept.
//
// A [Reranker] scores candidates; [Apply] runs one over the leading
// candidates of a list and applies the cut ([Options]: TopN 20, Final 5,
// MinScore 0.5 by default). Two rerankers are provided:
//
//   - [Keyword], the offline fallback, with no model: 0.60 ×
//     original score (min-max normalized over the candidates) plus 0.25 ×
//     content overlap plus 0.15 × title overlap, where an overlap is the
//     fraction of the query's normalized, stemmed, stopword-free tokens
//     (package lexical) found in the text. Every component is explained
//     in a [KeywordExplanation].
//   - [HTTP], a client for Cohere-compatible /rerank APIs served by
//     Cohere (v1 and v2), Jina, Hugging Face text-embeddings-inference
//     and vLLM ([Flavor]). Server scores are mapped to [0, 1]; logits go
//     through the logistic function ([ScoreMapping]).
//
// A third, [LLM], asks a chat model (the llm.ChatModel port) for a
// relevance score per candidate with structured output. [Func] adapts any
// other function.
//
// Typical use, falling back to the keyword reranker when the model fails:
//
//	res, err := rerank.Apply(ctx, cohere, query, cands, rerank.Options{})
//	if err != nil {
//		res, err = rerank.Apply(ctx, keyword, query, cands, rerank.Options{})
//	}
//
// # Scores
//
// Result.Score is in [0, 1], higher is better, and comparable within one
// call; Result.Original keeps the retrieval score. Equal scores are
// ordered by the candidate's position in the input, so a stable
// retrieval order stays stable.
//
// # Errors
//
// [ErrEmptyQuery] for a blank query; [ErrInvalidOptions] from the
// constructors (and from Apply for a NaN MinScore or a nil Reranker);
// [ErrInvalidResult] from Apply when a reranker returns an index it was
// not given, an index twice, or a score outside [0, 1]. [HTTP] wraps an
// [*llm.APIError] for a non-2xx answer (Provider the flavor, StatusCode,
// a truncated body without the API key as Message, Retryable, RetryAfter), wraps [ErrInvalidResponse] for a
// malformed or inconsistent 2xx answer, and wraps the context's error
// when it ends first. [LLM] wraps [ErrInvalidResponse] for an answer that
// is not the requested JSON or holds a bad index or score, and returns the
// model's errors (llm.APIError, context errors) wrapped. Apply returns a reranker's error as is; the caller
// (rag.Searcher) decides whether to fall back.
//
// # Concurrency
//
// [Keyword], [HTTP] and [LLM] are immutable after construction and safe
// for concurrent use (LLM when its model is); Apply is safe for concurrent use when its Reranker is.
// Inputs are never modified.
//
// The package imports the standard library and the project's lexical and
// llm packages only.
package rerank
