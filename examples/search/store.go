package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

// dbConnectTimeout bounds connecting to and checking the database.
const dbConnectTimeout = 10 * time.Second

// maxLoadWarnings is how many bad records are listed on stderr.
const maxLoadWarnings = 5

// source is an opened data source.
type source struct {
	store    storage.Store
	embedder vector.Embedder // nil with -embedder none
	dims     int
	// index describes the in-memory indexing run (files only).
	index *indexReport
	close func()
}

// openSource opens the data source of cfg: it builds and indexes an
// in-memory store from files, loads a snapshot or connects to Postgres.
func openSource(ctx context.Context, cfg *config, stderr io.Writer) (*source, error) {
	switch {
	case cfg.memfile != "":
		return openMemfile(cfg)
	case cfg.db != "":
		return openPostgres(ctx, cfg)
	default:
		return buildInMemory(ctx, cfg, stderr)
	}
}

// newEmbedder returns the query embedder of cfg at dims dimensions.
func newEmbedder(cfg *config, dims int) (vector.Embedder, error) {
	switch cfg.embedder {
	case "none":
		return nil, nil
	case "openai":
		key := os.Getenv("OPENAI_API_KEY")
		if key == "" {
			return nil, errors.New("-embedder openai needs OPENAI_API_KEY")
		}
		opts := []option.RequestOption{option.WithAPIKey(key), option.WithMaxRetries(2)}
		if base := os.Getenv("OPENAI_BASE_URL"); base != "" {
			opts = append(opts, option.WithBaseURL(base))
		}
		return llmopenai.NewEmbedder(oai.NewClient(opts...), llmopenai.EmbedderOptions{
			Model: os.Getenv("EMBEDDING_MODEL"), Dimensions: dims,
		}), nil
	default:
		e, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: dims})
		if err != nil {
			return nil, fmt.Errorf("hash embedder: %w", err)
		}
		return e, nil
	}
}

func buildInMemory(ctx context.Context, cfg *config, stderr io.Writer) (*source, error) {
	dims := cfg.dims
	if dims == 0 {
		dims = vector.DefaultDimensions
	}
	emb, err := newEmbedder(cfg, dims)
	if err != nil {
		return nil, err
	}
	st, err := memory.New(memory.Options{Dimensions: dims, AllowedMetadataKeys: cfg.metaKeys}).Tenant(cfg.tenant)
	if err != nil {
		return nil, fmt.Errorf("-tenant: %w", err)
	}

	start := time.Now()
	var src ingest.Sources
	if cfg.catalog != "" {
		items, err := load.LoadCatalog(ctx, cfg.catalog, nil)
		if err := loadOutcome("catalog", cfg.catalog, len(items), err, stderr); err != nil {
			return nil, err
		}
		src.Items = items
	}
	if cfg.faqs != "" {
		faqs, err := load.LoadFAQs(ctx, cfg.faqs, nil)
		if err := loadOutcome("FAQs", cfg.faqs, len(faqs), err, stderr); err != nil {
			return nil, err
		}
		src.FAQs = faqs
	}
	if cfg.docs != "" {
		docs, err := load.LoadDocuments(ctx, cfg.docs, nil)
		if err := loadOutcome("documents", cfg.docs, len(docs), err, stderr); err != nil {
			return nil, err
		}
		src.Documents = docs
	}
	loadTook := time.Since(start)

	var iopts ingest.IndexerOptions
	if cfg.extractLegal {
		// Also an ingest.Sectioner: statutes are chunked at their
		// articles.
		iopts.Extractors = []ingest.Extractor{legal.New(legal.Options{})}
	}
	stats, err := ingest.NewIndexer(st, emb, iopts).Reindex(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	for _, d := range stats.Duplicates {
		fmt.Fprintf(stderr, "search: warning: %v\n", d)
	}
	rep := &indexReport{
		Items: stats.Items, FAQs: stats.FAQs, Documents: stats.Documents,
		Chunks: stats.Chunks, Embedded: stats.Embedded, Dimensions: dims,
		LoadMS: ms(loadTook), IndexMS: ms(stats.Duration),
	}
	fmt.Fprintf(stderr, "indexed in memory: %s load=%s dims=%d\n", stats, loadTook.Round(time.Millisecond), dims)
	return &source{store: st, embedder: emb, dims: dims, index: rep, close: func() {}}, nil
}

// loadOutcome reports a loader's result: bad records are warnings as long as
// some records loaded; anything else is an error.
func loadOutcome(what, path string, n int, err error, stderr io.Writer) error {
	if err == nil {
		if n == 0 {
			return fmt.Errorf("load %s %s: no records", what, path)
		}
		return nil
	}
	bad, ok := err.(load.RecordErrors)
	if !ok || n == 0 {
		return fmt.Errorf("load %s: %w", what, err)
	}
	fmt.Fprintf(stderr, "search: warning: %d bad %s record(s) skipped in %s\n", len(bad), what, path)
	for i, e := range bad {
		if i == maxLoadWarnings {
			fmt.Fprintf(stderr, "  … and %d more\n", len(bad)-i)
			break
		}
		fmt.Fprintf(stderr, "  %v\n", e)
	}
	return nil
}

func openMemfile(cfg *config) (*source, error) {
	db, err := memory.LoadFile(cfg.memfile, memory.Options{Dimensions: cfg.dims, AllowedMetadataKeys: cfg.metaKeys})
	if err != nil {
		return nil, fmt.Errorf("load snapshot: %w", err)
	}
	if tenants := db.Tenants(); !slices.Contains(tenants, cfg.tenant) {
		return nil, fmt.Errorf("tenant %q is not in snapshot %s (tenants: %s)", cfg.tenant, cfg.memfile, strings.Join(tenants, ", "))
	}
	st, err := db.Tenant(cfg.tenant)
	if err != nil {
		return nil, fmt.Errorf("-tenant: %w", err)
	}
	emb, err := newEmbedder(cfg, db.Dimensions())
	if err != nil {
		return nil, err
	}
	return &source{store: st, embedder: emb, dims: db.Dimensions(), close: func() {}}, nil
}

func openPostgres(ctx context.Context, cfg *config) (*source, error) {
	dims := cfg.dims
	if dims == 0 {
		dims = vector.DefaultDimensions
	}
	pcfg, err := pgxpool.ParseConfig(cfg.db)
	if err != nil {
		// pgx masks the password in its parse errors.
		return nil, fmt.Errorf("-db: %w", err)
	}
	postgres.ConfigurePool(pcfg)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	db := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: cfg.schema, AllowedMetadataKeys: cfg.metaKeys})
	pctx, cancel := context.WithTimeout(ctx, dbConnectTimeout)
	defer cancel()
	if err := db.Ping(pctx); err != nil {
		pool.Close()
		if errors.Is(err, storage.ErrSchemaMismatch) {
			return nil, fmt.Errorf("database schema: %w (run examples/ingest first; -dims must match the dimensions it used)", err)
		}
		return nil, fmt.Errorf("connect to %s:%d/%s: %w", pcfg.ConnConfig.Host, pcfg.ConnConfig.Port, pcfg.ConnConfig.Database, err)
	}
	st, err := db.Tenant(cfg.tenant)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("-tenant: %w", err)
	}
	emb, err := newEmbedder(cfg, dims)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &source{store: st, embedder: emb, dims: dims, close: pool.Close}, nil
}
