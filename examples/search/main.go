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
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Kinds of search.
const (
	kindCatalog = "catalog"
	kindFAQ     = "faq"
	kindDoc     = "doc"
)

// defaultTenant is the tenant used when -tenant is not given; examples/ingest
// writes to the same one by default.
const defaultTenant = "default"

// usageError is a command-line mistake: exit status 2 and the usage text.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// config is the parsed command line.
type config struct {
	catalog, faqs, docs string
	memfile, db, schema string
	query               string
	kind                string
	legs                rag.Legs
	fusion              merge.Method
	seedMode            string
	limit               int
	tenant              string
	dims                int
	embedder            string
	threshold           float64 // NaN: the Searcher's default
	json, explain       bool
	snippetChars        int
	// filters restrict the search (-category, -manufacturer, -tag,
	// -source, -meta); metaKeys are the metadata keys they name, the
	// store's allowlist.
	filters  []storage.Filter
	metaKeys []string
	// chunkFilters keep the chunks whose metadata matches (-chunk).
	chunkFilters []storage.ChunkFilter
	// docIDs restrict a document search to these documents (-doc-id).
	docIDs []string
	// context adds the hits formatted as a chat turn's context (-context).
	context bool
	// extractLegal runs the legal metadata extractor on the documents
	// indexed in memory (-extract legal).
	extractLegal bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command: it parses args, searches and writes the report
// to stdout; diagnostics go to stderr. It returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "search: %v\nRun 'search -h' for usage.\n", err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "search: %v\n", err)
		return exitUsage
	}
	rep, err := execute(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "search: %v\n", err)
		return exitError
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "search: write output: %v\n", err)
			return exitError
		}
		return exitOK
	}
	if err := printReport(stdout, rep, cfg.explain, isTerminal(stdout), cfg.snippetChars); err != nil {
		fmt.Fprintf(stderr, "search: write output: %v\n", err)
		return exitError
	}
	return exitOK
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &config{}
	var legs, fusion, seedMode, threshold string
	var ff filterFlags
	fs.StringVar(&cfg.catalog, "catalog", "", "catalog `file` (JSONL, JSON or CSV) to index in memory")
	fs.StringVar(&cfg.faqs, "faqs", "", "FAQ `file` (JSONL or CSV) to index in memory")
	fs.StringVar(&cfg.docs, "docs", "", "documents `dir|file` (directory of .md/.txt/.docx, or JSONL) to index in memory")
	fs.StringVar(&cfg.memfile, "memfile", "", "memory snapshot `file` written by examples/ingest")
	fs.StringVar(&cfg.db, "db", "", "PostgreSQL `DSN` of a database filled by examples/ingest")
	fs.StringVar(&cfg.schema, "schema", "", "PostgreSQL `schema` of the tables (with -db; default hybridrag)")
	fs.StringVar(&cfg.query, "q", "", "query `text` (required)")
	fs.StringVar(&cfg.kind, "kind", "", "what to search: catalog|faq|doc (default: the kind of the only file given, else catalog)")
	fs.StringVar(&legs, "mode", string(rag.LegsHybrid), "retrieval legs: lexical|vector|hybrid")
	fs.StringVar(&fusion, "fusion", string(merge.MethodWeighted), "fusion method: weighted|rrf|relative|simple")
	fs.StringVar(&seedMode, "seedmode", seedEnhanced, "seed search mode: enhanced (lexicalScore + fusion) | simple (store order, vector first)")
	fs.IntVar(&cfg.limit, "limit", 10, "number of hits (clamped to the Searcher's maximum)")
	fs.StringVar(&cfg.tenant, "tenant", defaultTenant, "tenant `ID`")
	fs.IntVar(&cfg.dims, "dims", 0, "embedding dimensions (default: 1536, or the snapshot's for -memfile)")
	fs.StringVar(&cfg.embedder, "embedder", "hash", "query embedder: hash|openai|none (must match the one used to index)")
	fs.StringVar(&threshold, "threshold", "", "vector distance threshold (default -0.5; \"inf\" keeps all)")
	fs.IntVar(&cfg.snippetChars, "snippet", 0, "snippet characters shown per hit (default 160, 800 with -explain)")
	fs.StringVar(&ff.category, "category", "", "only items or FAQs of this `category` (case and accents ignored)")
	fs.StringVar(&ff.manufacturer, "manufacturer", "", "only items of this `manufacturer`")
	fs.StringVar(&ff.tag, "tag", "", "only items with this `tag`")
	fs.StringVar(&ff.source, "source", "", "only documents from this `source`")
	fs.Var(&ff.meta, "meta", "only items or documents whose metadata `key=value` (repeatable; ANDed with the other filters)")
	fs.Var(&ff.docIDs, "doc-id", "only the document with this `ID` (repeatable, at most 100; -kind doc)")
	fs.Var(&ff.chunk, "chunk", "only chunks whose metadata `key=value` (repeatable), and the records having one; see -extract")
	var extract string
	fs.StringVar(&extract, "extract", "none", "metadata extractor of the documents indexed in memory: none|legal (legal: artigo, inciso, ... on chunks, tipo_documento on documents)")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON object instead of the human report")
	fs.BoolVar(&cfg.explain, "explain", false, "show the full score explanations")
	fs.BoolVar(&cfg.context, "context", false, "also print the hits formatted as a chat turn's context for the model (rag.FormatContext)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: search (-catalog F.jsonl | -faqs F.jsonl | -docs DIR|F.jsonl | -memfile F | -db DSN) -q \"texto\" [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected arguments %q (quote the query: -q \"...\")", fs.Args())
	}

	cfg.query = strings.TrimSpace(cfg.query)
	if cfg.query == "" {
		return nil, usagef("-q is required and must not be empty")
	}
	files := cfg.catalog != "" || cfg.faqs != "" || cfg.docs != ""
	n := 0
	for _, set := range []bool{files, cfg.memfile != "", cfg.db != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, usagef("a data source is required: -catalog, -faqs, -docs, -memfile or -db")
	case n > 1:
		return nil, usagef("-catalog/-faqs/-docs, -memfile and -db are mutually exclusive")
	}

	if cfg.schema != "" && cfg.db == "" {
		return nil, usagef("-schema needs -db")
	}

	switch cfg.kind {
	case "":
		cfg.kind = kindCatalog
		switch {
		case cfg.faqs != "" && cfg.catalog == "" && cfg.docs == "":
			cfg.kind = kindFAQ
		case cfg.docs != "" && cfg.catalog == "" && cfg.faqs == "":
			cfg.kind = kindDoc
		}
	case kindCatalog, kindFAQ, kindDoc:
	case "faqs":
		cfg.kind = kindFAQ
	case "docs", "document", "documents":
		cfg.kind = kindDoc
	default:
		return nil, usagef("-kind %q: want catalog, faq or doc", cfg.kind)
	}
	if files {
		if (cfg.kind == kindCatalog && cfg.catalog == "") || (cfg.kind == kindFAQ && cfg.faqs == "") || (cfg.kind == kindDoc && cfg.docs == "") {
			return nil, usagef("-kind %s needs the matching file flag (-catalog, -faqs or -docs)", cfg.kind)
		}
	}

	filters, keys, err := ff.filters(cfg.kind)
	if err != nil {
		return nil, err
	}
	cfg.filters, cfg.metaKeys, cfg.chunkFilters, cfg.docIDs = filters, keys, ff.chunk, ff.docIDs
	switch {
	case len(cfg.docIDs) > 0 && cfg.kind != kindDoc:
		return nil, usagef("-doc-id applies to -kind doc only (kind %s)", cfg.kind)
	case len(cfg.docIDs) > maxDocIDs:
		return nil, usagef("-doc-id given %d times, at most %d", len(cfg.docIDs), maxDocIDs)
	}
	switch extract {
	case "none":
	case "legal":
		if cfg.docs == "" {
			return nil, usagef("-extract legal needs -docs (it runs when documents are indexed in memory)")
		}
		cfg.extractLegal = true
	default:
		return nil, usagef("-extract %q: want none or legal", extract)
	}

	cfg.legs = rag.Legs(legs)
	switch cfg.legs {
	case rag.LegsLexical, rag.LegsVector, rag.LegsHybrid:
	default:
		return nil, usagef("-mode %q: want lexical, vector or hybrid", legs)
	}
	cfg.fusion = merge.Method(fusion)
	switch cfg.fusion {
	case merge.MethodWeighted, merge.MethodRRF, merge.MethodRelative, merge.MethodSimple:
	default:
		return nil, usagef("-fusion %q: want weighted, rrf, relative or simple", fusion)
	}
	cfg.seedMode = seedMode
	if cfg.seedMode != seedSimple && cfg.seedMode != seedEnhanced {
		return nil, usagef("-seedmode %q: want simple or enhanced", seedMode)
	}
	if cfg.limit < 1 {
		return nil, usagef("-limit must be at least 1, got %d", cfg.limit)
	}
	if cfg.dims < 0 {
		return nil, usagef("-dims must not be negative, got %d", cfg.dims)
	}
	switch cfg.embedder {
	case "hash", "openai", "none":
	default:
		return nil, usagef("-embedder %q: want hash, openai or none", cfg.embedder)
	}
	if cfg.embedder == "none" && cfg.legs == rag.LegsVector {
		return nil, usagef("-mode vector needs an embedder (not -embedder none)")
	}
	cfg.threshold = math.NaN()
	if threshold != "" {
		t, err := strconv.ParseFloat(strings.TrimSpace(threshold), 64)
		if err != nil || math.IsNaN(t) {
			return nil, usagef("-threshold %q: want a number or inf", threshold)
		}
		cfg.threshold = t
	}
	if cfg.snippetChars < 0 {
		return nil, usagef("-snippet must not be negative")
	}
	if cfg.snippetChars == 0 {
		cfg.snippetChars = 160
		if cfg.explain {
			cfg.snippetChars = 800
		}
	}
	return cfg, nil
}

// isTerminal reports whether w is a character device (a terminal), to
// decide on colors.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// The seeds' search modes (-seedmode): simple is the simple fusion method,
// enhanced any other.
const (
	seedSimple   = "simple"
	seedEnhanced = "enhanced"
)
