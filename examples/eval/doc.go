// Command eval measures hybridrag's retrieval quality on a data file with
// evaluation queries and graded judgements (DESIGN §11):
//
//	eval (-catalog F | -faqs F | -docs F) -queries Q.jsonl -qrels R.tsv
//	     [-mode lexical|vector|hybrid|all] [-fusion weighted|rrf|relative] [-k 10] [-json]
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
// Exit status: 0 on success, 1 on a failure, 2 on a usage error.
package main

//go:generate go run ./agrofitgen -catalog ../../../shared/data/agrofit/catalog.jsonl -out ../../testdata/eval
