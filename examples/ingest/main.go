package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// defaultTenant is the tenant examples/search reads by default.
const defaultTenant = "default"

// dbConnectTimeout bounds connecting and migrating.
const dbConnectTimeout = 30 * time.Second

// config is the parsed command line.
type config struct {
	catalog, faqs, docs string
	memfile, db, schema string
	tenant              string
	embedder            string
	dims                int
	batchSize           int
	replaceDuplicates   bool
	prune               bool
	bulk                bool
	concurrency         int
	writeConcurrency    int
	progress            string
	// env is the configuration read from the environment
	// (settings.ConfigFromEnv): the embedding model, dimensions and batch
	// size, and the OpenAI endpoint.
	env settings.Config
}

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop() // a second interrupt ends the process (-bulk's rebuild ignores the first)
	}()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command, reading the environment through getenv. It
// writes the summary line to stdout and everything else to stderr, and
// returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "ingest: %v\n", err)
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, "run 'ingest -h' for usage")
			return exitUsage
		}
		return exitError
	}

	// Load every file first: all malformed records are reported, the good
	// ones are indexed.
	src, bad, err := loadSources(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ingest: %v\n", err)
		return exitError
	}

	tgt, err := openTarget(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "ingest: %v\n", err)
		return exitError
	}
	defer tgt.close()

	emb, err := newEmbedder(cfg, tgt.store.Dimensions())
	if err != nil {
		fmt.Fprintf(stderr, "ingest: %v\n", err)
		return exitError
	}
	prog := newProgress(cfg.progress, stderr, len(src.Items)+len(src.FAQs)+len(src.Documents))
	ix := ingest.NewIndexer(tgt.store, emb, ingest.IndexerOptions{
		BatchSize:         cfg.batchSize,
		Concurrency:       cfg.concurrency,
		WriteConcurrency:  cfg.writeConcurrency,
		ReplaceDuplicates: cfg.replaceDuplicates,
		Prune:             cfg.prune,
		Progress:          prog.update,
	})
	if cfg.bulk {
		if err := tgt.db.BeginBulkLoad(ctx); err != nil {
			fmt.Fprintf(stderr, "ingest: %v\n", err)
			return exitError
		}
	}
	stats, ixErr := ix.Reindex(ctx, src)
	prog.finish()
	if cfg.bulk {
		// Even after a failure or an interrupt: the schema stays degraded
		// until EndBulkLoad has run (a later -bulk run also restores it).
		fmt.Fprintln(stderr, "ingest: rebuilding the word index and the HNSW indexes (an interrupt does not stop it; a second one kills the process, and a later -bulk run restores the schema)")
		start := time.Now()
		err := tgt.db.EndBulkLoad(context.WithoutCancel(ctx), postgres.BulkLoadOptions{
			Progress: func(step string, took time.Duration) {
				fmt.Fprintf(stderr, "ingest: %s: %v\n", step, took.Round(100*time.Millisecond))
			},
		})
		if err != nil {
			fmt.Fprintf(stderr, "ingest: end bulk load: %v\n", err)
			ixErr = errors.Join(ixErr, err)
		} else {
			fmt.Fprintf(stderr, "ingest: indexes rebuilt in %v\n", time.Since(start).Round(100*time.Millisecond))
		}
	}

	for _, d := range stats.Duplicates {
		fmt.Fprintf(stderr, "ingest: warning: %v\n", d)
	}
	code := exitOK
	if ixErr != nil {
		fmt.Fprintf(stderr, "ingest: index: %v\n", ixErr)
		code = exitError
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "ingest: %d malformed record(s) skipped\n", bad)
		code = exitError
	}
	// Save what was written or pruned, even after a failure: a re-run resumes.
	if err := tgt.save(stats.Written > 0 || stats.Pruned > 0); err != nil {
		fmt.Fprintf(stderr, "ingest: %v\n", err)
		code = exitError
	}
	fmt.Fprintln(stdout, stats.String())
	return code
}

// parseFlags parses the command line, and the environment through getenv
// (see settings.ConfigFromEnv): an invalid variable is a usage error naming
// it. -dims and -batch-size win over EMBEDDING_DIMENSIONS and
// EMBEDDING_BATCH_SIZE.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fl := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&cfg.catalog, "catalog", "", "catalog `file` (.jsonl, .json or .csv)")
	fl.StringVar(&cfg.faqs, "faqs", "", "FAQ `file` (.jsonl or .csv)")
	fl.StringVar(&cfg.docs, "docs", "", "documents: a `directory` (.md, .txt, .docx, .jsonl) or a .jsonl file")
	fl.StringVar(&cfg.memfile, "memfile", "", "memory snapshot `file` to update (created when missing)")
	fl.StringVar(&cfg.db, "db", "", "PostgreSQL `DSN` (pgx syntax)")
	fl.StringVar(&cfg.schema, "schema", "", "PostgreSQL schema (default "+postgres.DefaultSchema+")")
	fl.StringVar(&cfg.tenant, "tenant", defaultTenant, "tenant ID")
	fl.StringVar(&cfg.embedder, "embedder", "hash", "embedder: hash (offline) or openai")
	fl.IntVar(&cfg.dims, "dims", 0, "embedding dimensions (default: $EMBEDDING_DIMENSIONS, else the snapshot's, else 1536)")
	fl.IntVar(&cfg.batchSize, "batch-size", 0, "texts per embedding request (default: $EMBEDDING_BATCH_SIZE, else the Indexer's, 16)")
	fl.BoolVar(&cfg.replaceDuplicates, "replace-duplicates", false, "let a document replace a stored one with the same content")
	fl.BoolVar(&cfg.prune, "prune", false, "delete the tenant's records of each kind given that are absent from the input, with their chunks (a kind not given is left alone)")
	fl.BoolVar(&cfg.bulk, "bulk", false, "with -db: a bulk load (postgres.DB.BeginBulkLoad): the word index and HNSW indexes of the whole schema are rebuilt once at the end instead of row by row; searches of every tenant are degraded until it ends")
	fl.IntVar(&cfg.concurrency, "concurrency", 0, "embedding requests in flight (default: the Indexer's, 2)")
	fl.IntVar(&cfg.writeConcurrency, "write-concurrency", 0, "write transactions in flight (default 2 with -db, 1 with -memfile)")
	fl.StringVar(&cfg.progress, "progress", "auto", "progress display: auto, bar, lines or none")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: ingest [-catalog F] [-faqs F] [-docs DIR|F.jsonl] (-memfile OUT | -db DSN) [flags]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{err.Error()}
	}
	switch {
	case fl.NArg() > 0:
		return nil, &usageError{fmt.Sprintf("unexpected argument %q", fl.Arg(0))}
	case cfg.catalog == "" && cfg.faqs == "" && cfg.docs == "":
		return nil, &usageError{"nothing to ingest: give -catalog, -faqs or -docs"}
	case (cfg.memfile == "") == (cfg.db == ""):
		return nil, &usageError{"give exactly one of -memfile and -db"}
	case cfg.embedder != "hash" && cfg.embedder != "openai":
		return nil, &usageError{fmt.Sprintf("-embedder %q: want hash or openai", cfg.embedder)}
	case cfg.dims < 0:
		return nil, &usageError{fmt.Sprintf("-dims %d: want a positive number", cfg.dims)}
	case cfg.batchSize < 0:
		return nil, &usageError{fmt.Sprintf("-batch-size %d: want a positive number", cfg.batchSize)}
	case cfg.concurrency < 0:
		return nil, &usageError{fmt.Sprintf("-concurrency %d: want a positive number", cfg.concurrency)}
	case cfg.writeConcurrency < 0:
		return nil, &usageError{fmt.Sprintf("-write-concurrency %d: want a positive number", cfg.writeConcurrency)}
	case cfg.schema != "" && cfg.db == "":
		return nil, &usageError{"-schema needs -db"}
	case cfg.bulk && cfg.db == "":
		return nil, &usageError{"-bulk needs -db"}
	}
	switch cfg.progress {
	case "auto", "bar", "lines", "none":
	default:
		return nil, &usageError{fmt.Sprintf("-progress %q: want auto, bar, lines or none", cfg.progress)}
	}
	if err := storage.ValidateTenant(cfg.tenant); err != nil {
		return nil, &usageError{fmt.Sprintf("-tenant: %v", err)}
	}
	env, err := settings.ConfigFromEnv(getenv)
	if err != nil {
		return nil, &usageError{fmt.Sprintf("environment: %v", err)}
	}
	cfg.env = env
	if cfg.dims == 0 && strings.TrimSpace(getenv(settings.EnvEmbeddingDimensions)) != "" {
		cfg.dims = env.Embedding.Dimensions
	}
	if cfg.batchSize == 0 {
		cfg.batchSize = env.Embedding.BatchSize
	}
	if cfg.writeConcurrency == 0 {
		// pgvector's HNSW inserts dominate a Postgres ingest and scale with
		// a second writer; the memory store gains nothing from one.
		cfg.writeConcurrency = 1
		if cfg.db != "" {
			cfg.writeConcurrency = 2
		}
	}
	return cfg, nil
}

// loadSources loads the files named by cfg. Malformed records are printed
// to stderr and counted in bad; err is a failure to read a file at all.
func loadSources(ctx context.Context, cfg *config, stderr io.Writer) (src ingest.Sources, bad int, err error) {
	report := func(what string, n int, err error) error {
		recs, fatal := splitLoadError(err)
		for _, e := range recs {
			if errors.Is(e, load.ErrDuplicateDocument) {
				fmt.Fprintf(stderr, "ingest: warning: %v\n", e)
				continue
			}
			fmt.Fprintf(stderr, "ingest: %v\n", e)
			bad++
		}
		if fatal != nil {
			return fmt.Errorf("load %s: %w", what, fatal)
		}
		return ctx.Err()
	}
	if cfg.catalog != "" {
		items, err := load.LoadCatalog(ctx, cfg.catalog, nil)
		if err := report("catalog", len(items), err); err != nil {
			return src, bad, err
		}
		src.Items = items
	}
	if cfg.faqs != "" {
		faqs, err := load.LoadFAQs(ctx, cfg.faqs, nil)
		if err := report("FAQs", len(faqs), err); err != nil {
			return src, bad, err
		}
		src.FAQs = faqs
	}
	if cfg.docs != "" {
		docs, err := load.LoadDocuments(ctx, cfg.docs, nil)
		if err := report("documents", len(docs), err); err != nil {
			return src, bad, err
		}
		src.Documents = docs
	}
	return src, bad, nil
}

// splitLoadError separates a loader's record errors from a failure to read
// at all (a missing file, an I/O error), which loaders join with them.
func splitLoadError(err error) (recs load.RecordErrors, fatal error) {
	if err == nil {
		return nil, nil
	}
	if r, ok := err.(load.RecordErrors); ok {
		return r, nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var others []error
		for _, e := range joined.Unwrap() {
			if r, ok := e.(load.RecordErrors); ok {
				recs = append(recs, r...)
			} else {
				others = append(others, e)
			}
		}
		return recs, errors.Join(others...)
	}
	return nil, err
}

// target is where records are indexed.
type target struct {
	store storage.Backend
	db    *postgres.DB // with -db
	save  func(written bool) error
	close func()
}

func openTarget(ctx context.Context, cfg *config) (*target, error) {
	if cfg.memfile != "" {
		return openMemfile(cfg)
	}
	return openPostgres(ctx, cfg)
}

// openMemfile loads the snapshot when it exists, or starts an empty one.
func openMemfile(cfg *config) (*target, error) {
	db, err := memory.LoadFile(cfg.memfile, memory.Options{Dimensions: cfg.dims})
	exists := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		db = memory.New(memory.Options{Dimensions: cfg.dims})
	case err != nil:
		return nil, fmt.Errorf("-memfile %s: %w", cfg.memfile, err)
	}
	st, err := db.Tenant(cfg.tenant)
	if err != nil {
		return nil, fmt.Errorf("-tenant: %w", err)
	}
	return &target{
		store: st,
		save: func(written bool) error {
			if exists && !written {
				return nil
			}
			if err := db.SaveFile(cfg.memfile); err != nil {
				return fmt.Errorf("save %s: %w", cfg.memfile, err)
			}
			return nil
		},
		close: func() {},
	}, nil
}

// openPostgres migrates the database and returns a pool registering
// pgvector's types on every connection. Migration runs on a pool of its own
// first, because registering the types needs the extension it creates.
func openPostgres(ctx context.Context, cfg *config) (*target, error) {
	pcfg, err := pgxpool.ParseConfig(cfg.db)
	if err != nil {
		return nil, fmt.Errorf("-db: %w", err) // pgx masks the password
	}
	where := fmt.Sprintf("%s:%d/%s", pcfg.ConnConfig.Host, pcfg.ConnConfig.Port, pcfg.ConnConfig.Database)
	opts := postgres.Options{Dimensions: cfg.dims, Schema: cfg.schema}

	mctx, cancel := context.WithTimeout(ctx, dbConnectTimeout)
	defer cancel()
	mcfg := pcfg.Copy()
	mcfg.MaxConns = 2 // Migrate holds one connection while Check takes another
	mpool, err := pgxpool.NewWithConfig(mctx, mcfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	err = postgres.New(mpool, opts).Migrate(mctx)
	mpool.Close()
	if err != nil {
		if errors.Is(err, storage.ErrSchemaMismatch) {
			return nil, fmt.Errorf("migrate %s: %w (is -dims or EMBEDDING_DIMENSIONS the one the schema was created with?)", where, err)
		}
		return nil, fmt.Errorf("migrate %s: %w", where, err)
	}

	postgres.ConfigurePool(pcfg)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	db := postgres.New(pool, opts)
	st, err := db.Tenant(cfg.tenant)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("-tenant: %w", err)
	}
	return &target{store: st, db: db, save: func(bool) error { return nil }, close: pool.Close}, nil
}

// newEmbedder returns the embedder of cfg. The OpenAI client owns the
// retries (3, with backoff); the Indexer does not retry.
func newEmbedder(cfg *config, dims int) (vector.Embedder, error) {
	if cfg.embedder == "openai" {
		p := cfg.env.Providers
		if p.OpenAIAPIKey == "" {
			return nil, errors.New("-embedder openai needs OPENAI_API_KEY")
		}
		opts := []option.RequestOption{option.WithAPIKey(p.OpenAIAPIKey.Value()), option.WithMaxRetries(embedRetries)}
		if p.OpenAIBaseURL != "" {
			opts = append(opts, option.WithBaseURL(p.OpenAIBaseURL))
		}
		emb := llmopenai.NewEmbedder(oai.NewClient(opts...), llmopenai.EmbedderOptions{
			Model: cfg.env.Embedding.Model, Dimensions: dims, MaxBatch: cfg.batchSize,
		})
		return emb, nil
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: dims})
	if err != nil {
		return nil, fmt.Errorf("hash embedder: %w", err)
	}
	return emb, nil
}

// embedRetries is how many times the OpenAI client retries a failed
// embedding request, with backoff: enough to ride out a rate limit or a
// brief outage of a long ingestion without giving up on the batch.
const embedRetries = 3
