// Command eval measures hybridrag's retrieval quality on a data file with
// evaluation queries and graded judgements:
//
//	eval (-catalog F | -faqs F | -docs F) -queries Q.jsonl -qrels R.tsv
//	     [-mode lexical|vector|hybrid|all] [-fusion weighted|rrf|relative] [-k 10] [-json]
//
// and, with -chat, the answers of the chat pipeline on conversations with
// expected sources, abstentions and facts (see Chat evaluation below).
//
// It loads the file with package rag/load, indexes it in a memory store
// with the offline hash embedder (-dims, default 1536), and runs every
// query through a rag.Searcher with default options in each mode: lexical
// and vector (one leg), hybrid (the Searcher's fusion, or -fusion), and
// with -mode all (the default) also hybrid-weighted, hybrid-rrf and
// hybrid-relative. It prints nDCG@k, Recall@k, MRR@k, Precision@k and the
// number of zero-result queries per mode, then nDCG / MRR / zero-result per
// query type and per split (tune / heldout). With -json it prints one
// object:
//
//	{"k":10,"queries":N,"modes":{"hybrid":{"ndcg":0.0,"recall":0.0,"mrr":0.0,"zero_result":0,
//	  "precision":0.0,"queries":N,"by_type":{…},"by_split":{…},"latency_ms":{…}},…},
//	 "order":[…],"types":[…],"splits":[…],"settings":{…},"per_query":{…}}
//
// (nDCG gain = grade, log2 discount, ideal from all judged documents;
// recall counts grade >= 1; MRR cut at k). per_query appears with
// -per-query MODE|all; -latency=false drops the latencies, leaving output
// that is byte-identical from run to run.
//
// Selecting queries: -split tune|heldout, -type T.
//
// Knobs, to measure a change before making it a default: -threshold,
// -aggregate max|sum|topk-mean, -weights vector,lexical[,pair],
// -cand-mult, -cand-max; -vocab=false, -typo=false, -idf=false turn the
// vocabulary-driven analysis (typo correction, IDF weights) off; -idf-ref,
// -idf-floor, -idf-cap, -min-df reshape it; -stem none|light|snowball,
// -match substring|word-prefix, -max-tokens N, -bm25=false and
// -proximity W, -file-weight W (catalog file text; 1 was the default
// before it was tuned to 3) change the default scorers (the FAQ and document ones use
// BM25F, Snowball stems, word-prefix matching, 24 tokens and proximity
// 0.5; "-stem none -match substring -max-tokens 8 -bm25=false" is their
// presence scoring of before); -synonyms F merges a domain synonym table
// (lexical JSON format) over the default one.
//
// Anchors: -anchors seed-sql,pg-fts,pg-fts-or (or all) also evaluates the
// engines hybridrag is compared with, over the same records and queries,
// and reports them as modes anchor-NAME in the same tables: seed-sql is
// the seeds' lexical SQL alone (substring OR over the record's own fields,
// ranked by terms matched); pg-fts is PostgreSQL full-text search
// (plainto_tsquery('portuguese') ranked by ts_rank over the fields and
// attached files) and pg-fts-or the same with the query's lexemes ORed.
// The pg-* anchors need -anchor-db DSN; the records go to a temporary
// table of that database.
//
// The evaluation data of the project (see BENCHMARKS.md):
//
//	go run ./examples/eval -catalog ../shared/data/agrofit/catalog.jsonl \
//	    -queries testdata/eval/agrofit_queries.jsonl -qrels testdata/eval/agrofit_qrels.tsv.gz
//	go run ./examples/eval -faqs ../shared/data/br_taxqa/faqs.jsonl \
//	    -queries testdata/eval/irpf_queries.jsonl -qrels testdata/eval/irpf_qrels.tsv
//	go run ./examples/eval -docs ../shared/data/faquad/documents.jsonl \
//	    -queries ../shared/data/faquad/queries.jsonl -qrels ../shared/data/faquad/qrels.tsv
//
// The AGROFIT queries and judgements are generated from the registry by
// ./agrofitgen (go generate ./examples/eval regenerates them).
//
// # Chat evaluation
//
//	eval -chat CASES.jsonl [-testdata DIR | -catalog F -faqs F -docs F]
//	     [-split tune|heldout] [-type T] [-rerank off|keyword] [-v] [-json] [-latency]
//
// measures the answers of the chat pipeline rather than one search. It
// builds the pipeline `go run ./examples/chatserver` serves offline — a
// memory store of the default tenant, the hash embedder at
// settings.DefaultConfig's 1536 dimensions (-dims changes it; package
// examples/internal/settings), the searcher, pipeline and indexer options
// mapped from settings.DefaultConfig (-env maps settings.ConfigFromEnv
// instead, reading the chatserver's variables; the models stay offline),
// the hash embedder's suggested vector threshold,
// offline.KeywordClassifier and offline.ExtractiveAnswerer — over the
// chatserver's testdata (testdata/ found from the working directory
// upwards, or -testdata DIR: catalog.jsonl, faqs.jsonl, documents/ and
// documents.jsonl) or over the -catalog, -faqs and -docs files given. The
// switches of the Knobs paragraph (-typo, -stem, -synonyms, ...) apply
// to its searcher too; -rerank keyword turns the offline keyword reranker
// (rag/rerank.Keyword) on for every search; the other retrieval flags are
// refused.
//
// The cases are JSONL, one conversation a line:
//
//	{"id":"c01","type":"followup","split":"","note":"…",
//	 "messages":[{"role":"user","content":"…"},{"role":"assistant","content":"…"},{"role":"user","content":"…"}],
//	 "expect":{"sources":["prd-016","faq-007"],"abstain":false,"facts":["250 g/100 L"]}}
//
// The last message is the question and must be the user's; the earlier
// ones are the history (rag.ChatRequest.History). type, split, note and
// expect are optional; an empty split is eval.SplitOf(id) ("held-out" is
// read as "heldout"). expect.sources are record IDs (items, FAQs,
// documents); expect.abstain true with sources is refused. A malformed
// line stops the run with an error naming the file and line.
//
// Each case runs through pipeline.Chat, one at a time. Its sources are
// the IDs of the response's Sources, in order, without repeats; it
// abstained when ChatResponse.Abstained is set. The metrics, over the
// cases selected:
//
//   - source_precision = Σ|cited ∩ expected| / Σ|cited| over the
//     answerable cases (an expect with abstain false and at least one
//     source), micro-averaged; 0 when they cite nothing (the text
//     report says so).
//   - source_recall = the share of answerable cases citing at least one
//     expected source.
//   - abstention_accuracy = the share of cases with an expect whose
//     abstention equals expect.abstain.
//   - fact_recall = the share of the expected facts, over all cases,
//     found in the answer: lexical.Normalize of the fact is a substring
//     of lexical.Normalize of the answer (case, accents and white space
//     do not matter; punctuation does).
//   - context_fact_recall = the share of the expected facts found the same
//     way in the context the answerer was given (Debug.Context): what a
//     model told to answer only from its context could state at best.
//     context_tokens_median and context_tokens_p95 (nearest rank) sum up
//     the context's estimated size per turn (Debug.ContextTokens).
//
// A ratio with nothing to count is 0; the counts behind each are
// reported with it (answerable, cited, cited_expected, recalled,
// with_expect, abstention_correct, facts, facts_found). A case fails on
// a wrong abstention, an answerable case citing no expected source,
// a cited source that is not expected (any, when the case expects an
// abstention) or a missing fact.
//
// The text report is a table of the four metrics and the context's,
// overall, per split and per type, then the failing cases (every case with -v) with what
// failed, the cited sources, the question and the first 200 characters
// of the answer. With -json it prints one object:
//
//	{"questions":N,"source_precision":…,"source_recall":…,"abstention_accuracy":…,"fact_recall":…,
//	 "context_fact_recall":…,"context_tokens_median":…,"context_tokens_p95":…,
//	 "answerable":…,"cited":…,…,"failed":…,
//	 "by_split":{"tune":{"questions":…,"source_precision":…,…},"heldout":{…}},"by_type":{…},
//	 "settings":{…},
//	 "results":[{"id":…,"type":…,"split":…,"question":…,"answer":…,"sources":["prd-016",…],
//	   "abstained":false,"intent":"catalog","expect":{…},"missing_facts":[…],
//	   "unexpected_sources":[…],"failures":["missing_facts",…],
//	   "context_missing_facts":[…],"context_tokens":…}]}
//
// by_type reports cases without a type as "untyped". The output is
// byte-identical from run to run: timings appear only when -latency is
// given (then latency_ms, mean/p50/p95/max, and each result's
// latency_ms).
//
// Exit status: 0 on success, 1 on a failure, 2 on a usage error.
package main

//go:generate go run ./agrofitgen -catalog ../../../shared/data/agrofit/catalog.jsonl -out ../../testdata/eval
