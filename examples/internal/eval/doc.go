// Package eval measures retrieval quality: it runs a search over a set of
// queries with graded relevance judgements and reports nDCG@k, Recall@k,
// MRR@k and Precision@k (package scoring) per configuration (lexical,
// vector, hybrid with each fusion method), per query type and per split,
// with zero-result counts, latencies and per-query results.
//
// # Data
//
// Queries are JSONL, one {"id","text"} object per line, optionally with a
// "type" (for the per-type breakdown: "class_crop", "typo", ...) and a
// "split": "tune" or "heldout". Tune defaults on the tune half and report
// both; a query without a split gets [SplitOf] its ID, a hash, so the
// halves never depend on the order or number of queries. Judgements
// (qrels) are TSV lines "query_id doc_id grade" with an optional header;
// grade >= 1 is relevant. [LoadQueries] and [LoadQrels] read files,
// gzip-compressed when their name ends in ".gz".
//
// # Running
//
// [Run] takes a [SearchFunc] — [SearcherFunc] adapts a rag.Searcher's
// SearchCatalog, SearchFAQs or SearchDocuments — and the [Config]s to
// compare ([Configs] builds the standard ones). Queries without any
// relevant judgement are skipped and listed. Searches run one at a time so
// latencies are undisturbed; everything but the latencies is deterministic
// for a deterministic search. [Report.WriteText] prints tables; the
// Report marshals to JSON:
//
//	{"k":10,"queries":N,"modes":{"hybrid":{"ndcg":…,"recall":…,"mrr":…,"zero_result":0,…},…},…}
//
// The command examples/eval wraps all of this for data files.
//
// # Errors and concurrency
//
// Malformed data is a *[FormatError] (wrapping [ErrFormat]) naming the file
// and line; bad options wrap [ErrInvalidOptions]; a search error stops Run
// and is returned wrapped with the configuration and query ID. Run is safe
// to call concurrently with different arguments; a Report is not
// synchronized.
package eval
