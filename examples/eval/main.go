package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// config is the parsed command line.
type config struct {
	catalog, faqs, docs string
	queries, qrels      string
	mode                string
	fusion              merge.Method
	k, dims             int
	json, latency       bool
	split, qtype        string
	perQuery            string
	threshold           float64 // NaN: the Searcher's default
	aggregate           string
	weights             *scoring.Weights
	candMult, candMax   int
	ablation            ablation
	anchors             []string
	anchorDB            string

	// The chat evaluation (-chat, chatrun.go).
	chat, testdata string
	verbose, env   bool
	// rerank is the chat pipeline's reranker: off or keyword.
	rerank string
	// The cross-domain chat evaluation (-cross, cross.go): the shared
	// data directory and the questions taken from each domain.
	cross       string
	crossMax    int
	crossStores []string
	crossLang   string
	// set are the flags given on the command line.
	set map[string]bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "eval: %v\nRun 'eval -h' for usage.\n", err)
		return exitUsage
	}
	if err := execute(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "eval: %v\n", err)
		return exitError
	}
	return exitOK
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &config{}
	var fusion, threshold, weights string
	fs.StringVar(&cfg.catalog, "catalog", "", "catalog `file` (JSONL, JSON or CSV): evaluate SearchCatalog")
	fs.StringVar(&cfg.faqs, "faqs", "", "FAQ `file` (JSONL or CSV): evaluate SearchFAQs")
	fs.StringVar(&cfg.docs, "docs", "", "documents `dir|file` (directory of .md/.txt/.docx, or JSONL): evaluate SearchDocuments")
	fs.StringVar(&cfg.queries, "queries", "", "queries JSONL `file` ({\"id\",\"text\"[,\"type\",\"split\"]})")
	fs.StringVar(&cfg.qrels, "qrels", "", "judgements TSV `file` (query_id doc_id grade)")
	fs.StringVar(&cfg.mode, "mode", "all", "`mode`: lexical|vector|hybrid|all (all adds hybrid-weighted, hybrid-rrf, hybrid-relative)")
	fs.StringVar(&fusion, "fusion", "", "fusion `method` of the hybrid mode: weighted|rrf|relative (default: the Searcher's, weighted)")
	fs.IntVar(&cfg.k, "k", eval.DefaultK, "metric cut-off `k` (hits asked for)")
	fs.IntVar(&cfg.dims, "dims", vector.DefaultDimensions, "hash embedder `dimensions`")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON object instead of tables")
	fs.BoolVar(&cfg.latency, "latency", true, "report search latency (turn off for byte-identical output; with -chat only when given)")
	fs.StringVar(&cfg.split, "split", "all", "queries (with -chat: cases) to evaluate: all|tune|heldout")
	fs.StringVar(&cfg.qtype, "type", "", "evaluate only queries of this `type`")
	fs.StringVar(&cfg.perQuery, "per-query", "", "also print per-query results of this `mode` (or \"all\")")
	fs.StringVar(&threshold, "threshold", "", "vector `threshold` (distance <= t; default: the embedder's suggestion)")
	fs.StringVar(&cfg.aggregate, "aggregate", "", "chunk aggregation `mode`: max|sum|topk-mean (default: the Searcher's)")
	fs.StringVar(&weights, "weights", "", "fusion `weights` vector,lexical[,pair] (default 6,4,4)")
	fs.IntVar(&cfg.candMult, "cand-mult", 0, "candidate pool `multiplier` of the limit (default the Searcher's, 6)")
	fs.IntVar(&cfg.candMax, "cand-max", 0, "candidate pool `maximum` (default the Searcher's, 200)")
	var anchors string
	fs.StringVar(&anchors, "anchors", "", "also evaluate these anchors over the same records: seed-sql|pg-fts|pg-fts-or|all, comma-separated (pg-* need -anchor-db)")
	fs.StringVar(&cfg.anchorDB, "anchor-db", "", "PostgreSQL `DSN` for the pg-fts anchors (records go to a temporary table)")
	cfg.ablation.register(fs)
	fs.StringVar(&cfg.chat, "chat", "", "chat cases JSONL `file`: evaluate the chat pipeline's answers instead of searches")
	fs.StringVar(&cfg.testdata, "testdata", "", "with -chat: `dir` with catalog.jsonl, faqs.jsonl, documents/ and documents.jsonl (default: ./testdata, searched upwards)")
	fs.StringVar(&cfg.rerank, "rerank", "off", "with -chat: the searches' reranker, off|keyword (rag/rerank.Keyword, the seed's offline fallback)")
	fs.BoolVar(&cfg.verbose, "v", false, "with -chat: list every case, not only the failing ones; with -cross: list the failing cases")
	fs.StringVar(&cfg.cross, "cross", "", "shared data `dir` (../shared/data): cross-domain chat evaluation, each store (testdata, AGROFIT, IRPF, FaQuAD) asked its own and the other domains' questions")
	var crossStores string
	fs.StringVar(&crossStores, "cross-stores", "", "with -cross: the `stores` to build, comma-separated (default all: agro-store,agrofit,irpf,faquad); every domain's questions are still asked")
	fs.IntVar(&cfg.crossMax, "cross-max", 100, "with -cross: at most this many `questions` from each domain (0: all)")
	fs.StringVar(&cfg.crossLang, "cross-lang", "pt", "with -cross: the questions' `language`, pt (the sets as written) or en (the English translations in testdata/eval/*_en.jsonl: the agro store's 24 questions and 15 each of IRPF and FaQuAD; AGROFIT has none)")
	fs.BoolVar(&cfg.env, "env", false, "with -chat: read the search and chat knobs from the environment (settings.ConfigFromEnv) like the chatserver; models stay offline")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: eval (-catalog F | -faqs F | -docs F) -queries Q.jsonl -qrels R.tsv [-mode lexical|vector|hybrid|all] [-fusion weighted|rrf|relative] [-k 10] [-json]\n"+
			"       eval -chat CASES.jsonl [-testdata DIR | -catalog F -faqs F -docs F] [-split tune|heldout] [-type T] [-v] [-json]\n"+
			"       eval -cross ../shared/data [-cross-max N] [-json]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	cfg.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { cfg.set[f.Name] = true })
	if cfg.split == splitHeldOutAlias {
		cfg.split = eval.SplitHeldOut
	}
	if cfg.cross == "" {
		for _, name := range []string{"cross-lang", "cross-max", "cross-stores"} {
			if cfg.set[name] {
				return nil, usagef("-%s needs -cross", name)
			}
		}
	}
	if cfg.cross != "" {
		for _, name := range []string{"chat", "catalog", "faqs", "docs", "queries", "qrels", "split", "type", "env", "rerank"} {
			if cfg.set[name] {
				return nil, usagef("-%s is not used with -cross", name)
			}
		}
		if cfg.crossLang != "pt" && cfg.crossLang != "en" {
			return nil, usagef("-cross-lang %q: want pt or en", cfg.crossLang)
		}
		if cfg.crossMax < 0 {
			return nil, usagef("-cross-max %d: want ≥ 0", cfg.crossMax)
		}
		for _, name := range strings.Split(crossStores, ",") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			if !slices.ContainsFunc(crossDomains, func(d crossDomain) bool { return d.name == name }) {
				return nil, usagef("-cross-stores: unknown store %q", name)
			}
			cfg.crossStores = append(cfg.crossStores, name)
		}
		return cfg, nil
	}
	if cfg.chat != "" {
		if err := checkChatFlags(cfg); err != nil {
			return nil, err
		}
		return cfg, nil
	}
	for _, name := range chatOnlyFlags {
		if cfg.set[name] {
			return nil, usagef("-%s needs -chat", name)
		}
	}
	n := 0
	for _, s := range []string{cfg.catalog, cfg.faqs, cfg.docs} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, usagef("give exactly one of -catalog, -faqs, -docs")
	}
	var err error
	if cfg.anchors, err = parseAnchors(anchors); err != nil {
		return nil, usagef("-anchors: %v", err)
	}
	if cfg.anchorDB == "" && (slices.Contains(cfg.anchors, anchorFTS) || slices.Contains(cfg.anchors, anchorFTSOr)) {
		return nil, usagef("-anchors pg-fts and pg-fts-or need -anchor-db DSN")
	}
	if cfg.queries == "" || cfg.qrels == "" {
		return nil, usagef("-queries and -qrels are required")
	}
	if cfg.k < 1 || cfg.k > rag.DefaultSearcherOptions().Limits.Max {
		return nil, usagef("-k %d: want 1..%d", cfg.k, rag.DefaultSearcherOptions().Limits.Max)
	}
	if cfg.dims < 1 {
		return nil, usagef("-dims %d: want > 0", cfg.dims)
	}
	switch cfg.split {
	case "all", eval.SplitTune, eval.SplitHeldOut:
	default:
		return nil, usagef("-split %q: want all|tune|heldout", cfg.split)
	}
	cfg.fusion = merge.Method(fusion)
	if _, err := eval.Configs(cfg.mode, cfg.fusion); err != nil {
		return nil, usagef("%v", err)
	}
	cfg.threshold = math.NaN()
	if threshold != "" {
		t, err := strconv.ParseFloat(threshold, 64)
		if err != nil || math.IsNaN(t) {
			return nil, usagef("-threshold %q: want a number", threshold)
		}
		cfg.threshold = t
	}
	if cfg.aggregate != "" {
		if _, err := vector.ParseAggregateMode(cfg.aggregate); err != nil {
			return nil, usagef("-aggregate: %v", err)
		}
	}
	if weights != "" {
		w, err := parseWeights(weights)
		if err != nil {
			return nil, usagef("-weights: %v", err)
		}
		cfg.weights = w
	}
	return cfg, nil
}

func parseWeights(s string) (*scoring.Weights, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("%q: want vector,lexical[,pair]", s)
	}
	var v [3]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		v[i] = f
	}
	return &scoring.Weights{Vector: v[0], Lexical: v[1], Pair: v[2]}, nil
}

// output is the -json document: the report (k, queries, modes, ...) plus
// the settings and, with -per-query, per-query results.
type output struct {
	*eval.Report
	Settings map[string]any                `json:"settings"`
	PerQuery map[string][]eval.QueryResult `json:"per_query,omitempty"`
}

func execute(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	if cfg.cross != "" {
		return executeCross(ctx, cfg, stdout, stderr)
	}
	if cfg.chat != "" {
		return executeChat(ctx, cfg, stdout, stderr)
	}
	queries, err := eval.LoadQueries(cfg.queries)
	if err != nil {
		return err
	}
	qrels, err := eval.LoadQrels(cfg.qrels)
	if err != nil {
		return err
	}
	if err := cfg.ablation.check(); err != nil {
		return err
	}
	if err := cfg.ablation.load(); err != nil {
		return err
	}
	ix, err := buildIndex(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	searcher := rag.NewSearcher(ix.store, ix.embedder, cfg.searcherOptions())
	search, err := eval.SearcherFunc(searcher, ix.kind)
	if err != nil {
		return err
	}
	configs, err := eval.Configs(cfg.mode, cfg.fusion)
	if err != nil {
		return err
	}
	for i := range configs {
		t := &configs[i].Template
		if !math.IsNaN(cfg.threshold) {
			th := cfg.threshold
			t.VectorThreshold = &th
		}
	}
	opts := eval.Options{K: cfg.k, Configs: configs, Filter: func(q eval.Query) bool {
		return (cfg.split == "all" || q.Split == cfg.split) && (cfg.qtype == "" || q.Type == cfg.qtype)
	}}
	start := time.Now()
	rep, err := eval.Run(ctx, search, queries, qrels, opts)
	if err != nil {
		return err
	}
	if err := runAnchors(ctx, cfg, ix.src, queries, qrels, rep, opts); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "evaluated %d queries × %d modes in %s\n", rep.Queries, len(rep.Order), time.Since(start).Round(time.Millisecond))
	if !cfg.latency {
		for _, m := range rep.Modes {
			m.Latency = nil
		}
	}
	var perQuery []string
	switch cfg.perQuery {
	case "":
	case "all":
		perQuery = rep.Order
	default:
		if rep.Modes[cfg.perQuery] == nil {
			return fmt.Errorf("-per-query %q: not a mode of this run (%s)", cfg.perQuery, strings.Join(rep.Order, ", "))
		}
		perQuery = []string{cfg.perQuery}
	}

	if cfg.json {
		out := output{Report: rep, Settings: settingsOf(cfg, ix)}
		if len(perQuery) > 0 {
			out.PerQuery = make(map[string][]eval.QueryResult, len(perQuery))
			for _, name := range perQuery {
				out.PerQuery[name] = rep.Modes[name].PerQuery
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "kind=%s dims=%d split=%s %s\n", ix.kind, cfg.dims, cfg.split, cfg.ablation)
	if err := rep.WriteText(stdout, cfg.latency); err != nil {
		return err
	}
	for _, name := range perQuery {
		fmt.Fprintf(stdout, "\nper query: %s\n", name)
		if err := rep.WritePerQuery(stdout, name); err != nil {
			return err
		}
	}
	return nil
}

func settingsOf(cfg *config, ix *index) map[string]any {
	s := map[string]any{
		"kind": ix.kind, "dims": cfg.dims, "split": cfg.split, "mode": cfg.mode,
		"fusion": string(cfg.fusion), "embedder": "hash",
	}
	if cfg.qtype != "" {
		s["type"] = cfg.qtype
	}
	if !math.IsNaN(cfg.threshold) {
		s["threshold"] = cfg.threshold
	}
	if cfg.aggregate != "" {
		s["aggregate"] = cfg.aggregate
	}
	if cfg.weights != nil {
		s["weights"] = cfg.weights
	}
	if cfg.candMult > 0 {
		s["cand_mult"] = cfg.candMult
	}
	if cfg.candMax > 0 {
		s["cand_max"] = cfg.candMax
	}
	cfg.ablation.describe(s)
	return s
}

// index is the in-memory store built from the data file.
type index struct {
	store    *memory.Store
	embedder vector.Embedder
	kind     eval.Kind
	src      ingest.Sources // the records indexed, for the anchors
}

func buildIndex(ctx context.Context, cfg *config, stderr io.Writer) (*index, error) {
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: cfg.dims})
	if err != nil {
		return nil, fmt.Errorf("hash embedder: %w", err)
	}
	st, err := memory.New(memory.Options{Dimensions: cfg.dims}).Tenant("eval")
	if err != nil {
		return nil, err
	}
	ix := &index{store: st, embedder: emb}
	var src ingest.Sources
	switch {
	case cfg.catalog != "":
		ix.kind = eval.KindCatalog
		src.Items, err = load.LoadCatalog(ctx, cfg.catalog, nil)
	case cfg.faqs != "":
		ix.kind = eval.KindFAQ
		src.FAQs, err = load.LoadFAQs(ctx, cfg.faqs, nil)
	default:
		ix.kind = eval.KindDocument
		src.Documents, err = load.LoadDocuments(ctx, cfg.docs, nil)
	}
	if err != nil {
		var bad load.RecordErrors
		if !errors.As(err, &bad) || len(src.Items)+len(src.FAQs)+len(src.Documents) == 0 {
			return nil, fmt.Errorf("load: %w", err)
		}
		fmt.Fprintf(stderr, "eval: warning: %d bad record(s) skipped\n", len(bad))
	}
	stats, err := ingest.NewIndexer(st, emb, ingest.IndexerOptions{}).Reindex(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	fmt.Fprintf(stderr, "indexed in memory: %s\n", stats)
	ix.src = src
	return ix, nil
}
