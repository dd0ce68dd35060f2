// Command benchplot keeps the benchmark figures of BENCHMARKS.md and the
// README as data: it records benchmark and evaluation results into CSV
// files and renders SVG plots from them.
//
//	benchplot render [-dir docs/bench] [-out DIR]
//	benchplot record [-dir docs/bench] [-date YYYY-MM-DD] [-source TEXT]
//	                 [-bench FILE]... [-quality SET=FILE]... [-chat SET=FILE]...
//
// The data files, in -dir (docs/bench in the repository):
//
//   - latency.csv: series, items, p50_ms, p95_ms, mean_ms, date, source,
//     command. One search latency per engine and catalog size: hybridrag's
//     SearchCatalog in the memory store and through PostgreSQL, the
//     anchors (PostgreSQL full-text search, the seeds' SQL, chromem-go's
//     vector top-10) and the memory store's vector top-10.
//   - quality.csv: set, system, queries, ndcg10, recall10, mrr10,
//     zero_result, date, source, command. The retrieval quality of every
//     mode of examples/eval and of its anchors on AGROFIT, IRPF and FaQuAD.
//   - chat.csv: set, split, cases, source_precision, source_recall,
//     abstention_accuracy, fact_recall, abstained, failed, date, source,
//     command. The chat answer metrics of examples/eval -chat per
//     evaluation set, over all cases and per split.
//
// Every row names the run that printed its figures (date, source) and the
// command; an empty cell is a figure that run did not report.
//
// render writes latency.svg (p50 against catalog size, log-log), quality.svg
// (nDCG@10 per data set against the anchors) and chat.svg (the four chat
// metrics per evaluation set) from the data files. Rendering is
// deterministic: the same data gives the same bytes, and the package's test
// fails when a committed figure is not the rendering of the committed data.
//
// record merges results into the data files: -bench reads `go test -bench`
// output (BenchmarkSearchCatalog, BenchmarkPostgresCatalog,
// BenchmarkSearchChunks, BenchmarkSearchCatalogScale) and replaces the rows
// of the same series and size; -quality and -chat read the -json output of
// examples/eval and replace every row of their set. A file FILE.cmd beside
// an input holds the command that produced it. Rows no input mentions keep
// their recorded figures.
//
// reproduce.sh, beside this file, runs the benchmarks and evaluations that
// fit a 2-core machine in minutes, then record and render:
//
//	bash examples/benchplot/reproduce.sh [-quick] [-only quality,chat,memory,postgres,scale]
package main
