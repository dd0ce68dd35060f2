package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
	"github.com/hybridrag/hybridrag/vector/cache"
)

// Testdata file names, relative to the testdata directory.
const (
	catalogFile      = "catalog.jsonl"
	faqsFile         = "faqs.jsonl"
	documentsDir     = "documents"
	documentsJSONL   = "documents.jsonl"
	dbConnectTimeout = 10 * time.Second
)

// Store names of components.Store and the search responses; the latter
// say memory for the fallback.
const (
	storeMemory   = "memory"
	storePostgres = "postgres"
	// storeMemoryFallback is the memory store standing in for an
	// unreachable PostgreSQL (-fallback-memory).
	storeMemoryFallback = "memory (fallback)"
)

// errTestdataNotFound is returned when no testdata directory is found.
var errTestdataNotFound = errors.New("testdata not found")

// store is what the server needs from a tenant-scoped store: the records
// to search and read, and the writer the Indexer of the write API uses.
type store = storage.Backend

// components names what is in use, for the start-up line and /api/stats.
type components struct {
	// Store is memory, postgres, or "memory (fallback)" when PostgreSQL
	// was unreachable at start and -fallback-memory was given.
	Store      string `json:"store"`
	Tenant     string `json:"tenant"`
	Embedder   string `json:"embedder"`
	Dimensions int    `json:"dimensions"`
	Classifier string `json:"classifier"`
	Answerer   string `json:"answerer"`
	Summarizer string `json:"summarizer,omitempty"`
	// Extractor is the documents' metadata extractor: "none" or "legal"
	// (-extract, DOCUMENT_EXTRACTOR).
	Extractor string `json:"extractor"`
	// Reranker is "off" or "keyword" (-rerank, RERANK).
	Reranker  string `json:"reranker"`
	ChatModel string `json:"chat_model,omitempty"`
	Assist    string `json:"assist"`
	Agentic   string `json:"agentic"`
	Testdata  string `json:"testdata,omitempty"`
}

// indexInfo describes the start-up indexing.
type indexInfo struct {
	// Seeded is false when a non-empty Postgres store was used as it was.
	Seeded     bool    `json:"seeded"`
	Items      int     `json:"items"`
	FAQs       int     `json:"faqs"`
	Documents  int     `json:"documents"`
	Chunks     int     `json:"chunks"`
	Embedded   int     `json:"embedded"`
	Skipped    int     `json:"skipped"`
	LoadMS     float64 `json:"load_ms"`
	IndexMS    float64 `json:"index_ms"`
	Duplicates int     `json:"duplicates,omitempty"`
}

// backend is the wired library: store, embedder, searcher, pipeline and
// the optional model-backed parts.
type backend struct {
	store    store
	searcher *rag.Searcher
	pipeline *rag.Pipeline
	// indexer writes the records of the write API with the embedder the
	// store was indexed with (raw, not the query cache).
	indexer *ingest.Indexer
	// cache is the query-embedding cache of the searcher.
	cache *cache.Embedder
	// searchMetrics are fed by the searcher's tracer (metrics.go).
	searchMetrics *searchMetrics
	// assist suggests catalog fields; nil when no model is configured.
	assist assistFunc
	// chat is the chat model of agentic turns; nil offline.
	chat    llm.ChatModel
	agentic rag.AgentOptions
	// agentOnce builds agentBuilt (the agentic mode over pipeline and
	// chat) at the first agentic turn.
	agentOnce  sync.Once
	agentBuilt *rag.Agent
	agentErr   error
	// quotes receives the quote requests users confirmed (the agentic
	// mode's action, internal/actions.NewQuoteTool).
	quotes *quoteBook
	// storeKind is the store searched, memory or postgres (info.Store
	// may say "memory (fallback)").
	storeKind string
	// ping checks the store (nil: nothing to check).
	ping  func(ctx context.Context) error
	info  components
	index indexInfo
	close func()
}

// openBackend builds the backend cfg selects: the store (memory, or
// Postgres with DATABASE_URL), the embedder, the models, and indexes the
// testdata into the store when it is empty (always, for memory).
func openBackend(ctx context.Context, cfg config, log *slog.Logger) (_ *backend, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	be := &backend{close: func() {}}
	defer func() {
		if err != nil {
			be.close()
		}
	}()

	m, err := openModels(cfg.Env.RAG)
	if err != nil {
		return nil, err
	}
	be.info.Classifier, be.info.Answerer, be.info.Summarizer, be.info.ChatModel = m.classifierName, m.answererName, m.summarizerName, m.chatModel
	be.chat = m.chat
	be.quotes = newQuoteBook(log)
	if be.agentic, err = withQuoteAction(m.agenticOptions, be.quotes); err != nil {
		return nil, fmt.Errorf("quote tool: %w", err)
	}
	be.info.Assist = "off (needs OPENAI_API_KEY or OPENROUTER_API_KEY)"
	be.info.Agentic = "off (needs a chat model)"
	if m.chat != nil {
		be.info.Assist, be.info.Agentic = m.chatModel, m.chatModel
	}

	emb := m.embedder
	if emb == nil {
		h, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: m.dims})
		if err != nil {
			return nil, fmt.Errorf("hash embedder: %w", err)
		}
		emb = h
		be.info.Embedder = "hash (offline, " + h.Model() + ")"
	} else {
		be.info.Embedder = m.embedderName
	}
	be.info.Dimensions = emb.Dimensions()
	be.info.Tenant = cfg.Tenant

	// Store.
	var seed, fallback bool
	if dsn := cfg.Env.DatabaseURL; dsn != "" {
		st, ping, closeDB, empty, err := openPostgres(ctx, dsn, cfg.Schema, cfg.Tenant, emb.Dimensions(), cfg.MetadataKeys)
		switch {
		case err == nil:
			be.store, be.ping, be.close = st, ping, closeDB
			be.info.Store, be.storeKind = storePostgres, storePostgres
			seed = empty
		case cfg.FallbackMemory && (isConnectionError(err) || (errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil)):
			// The error names the host, port, user and database, never
			// the password (pgx leaves it out).
			log.Warn("POSTGRESQL UNREACHABLE AT START: FALLING BACK TO THE MEMORY STORE (-fallback-memory). "+
				"Searches and writes use an in-memory copy of the testdata, lost at exit; restart once PostgreSQL answers",
				"error", err)
			fallback = true
		default:
			return nil, err
		}
	}
	if be.store == nil {
		st, err := memory.New(memory.Options{Dimensions: emb.Dimensions(), AllowedMetadataKeys: cfg.MetadataKeys}).Tenant(cfg.Tenant)
		if err != nil {
			return nil, fmt.Errorf("-tenant: %w", err)
		}
		be.store = st
		be.info.Store, be.storeKind = storeMemory, storeMemory
		if fallback {
			be.info.Store = storeMemoryFallback
		}
		seed = true
	}

	iopts := m.indexerOptions
	be.info.Extractor = string(extractNone)
	if cfg.Extract == extractLegal {
		// Also an ingest.Sectioner: statutes are chunked at their
		// articles (IndexerOptions.DocumentChunker).
		iopts.Extractors = append(slices.Clone(iopts.Extractors), legal.New(legal.Options{}))
		be.info.Extractor = string(extractLegal)
	}
	be.indexer = ingest.NewIndexer(be.store, markedEmbedder{emb}, iopts)

	// Testdata: needed to seed; optional for a filled Postgres store.
	dir, derr := findTestdata(cfg.Testdata)
	if derr == nil {
		be.info.Testdata = dir
	}
	if seed {
		if derr != nil {
			return nil, derr
		}
		start := time.Now()
		src, err := loadTestdata(ctx, dir, log)
		if err != nil {
			return nil, err
		}
		loaded := time.Since(start)
		st, err := be.indexer.Reindex(ctx, src)
		if err != nil {
			return nil, fmt.Errorf("index testdata: %w", err)
		}
		be.index = indexInfo{
			Seeded: true, Items: st.Items, FAQs: st.FAQs, Documents: st.Documents, Chunks: st.Chunks,
			Embedded: st.Embedded, Skipped: st.Skipped, Duplicates: len(st.Duplicates),
			LoadMS: ms(loaded), IndexMS: ms(st.Duration),
		}
		for _, d := range st.Duplicates {
			log.Warn("duplicate document skipped", "error", d)
		}
	}

	// Search and chat. The searcher embeds queries through a cache; the
	// indexer above used the raw embedder so chunk texts do not fill it.
	be.cache = cache.New(emb, cache.Options{})
	// The cache passes the embedder's threshold suggestion on (Unwrap).
	sopts := m.searcherOptions
	be.info.Reranker = string(rerankOff)
	if cfg.Rerank == rerankKeyword {
		kw, err := rerank.NewKeyword(rerank.KeywordOptions{})
		if err != nil {
			return nil, fmt.Errorf("keyword reranker: %w", err)
		}
		// Every search reranks, the chat's included (the pipeline's
		// searches use the Searcher's default).
		sopts.Rerank.Reranker, sopts.Rerank.Enabled = kw, rag.On
		be.info.Reranker = string(rerankKeyword)
	}
	// One "rag search" record per search (counts, timings, fallback
	// reason), and an audit of what each tool gave the model ("rag tool payload"), both at info level.
	sopts.Logger = log
	be.searchMetrics = newSearchMetrics()
	sopts.Tracer = withSearchMetrics(sopts.Tracer, be.searchMetrics)
	be.searcher = rag.NewSearcher(be.store, be.cache, sopts)
	popts := m.pipelineOptions
	popts.Logger = log
	popts.MaxMessageChars = cfg.MaxMessageChars
	be.pipeline, err = rag.NewPipeline(be.searcher, m.classifier, m.answerer, popts)
	if err != nil {
		return nil, err
	}
	if m.chat != nil {
		aopts := m.rag.AssistOptions(storeCategories(ctx, be.store))
		if cfg.Verbose {
			aopts.Logger = log
		}
		be.assist = newAssist(m.chat, aopts)
	}
	return be, nil
}

// openPostgres connects to dsn, migrates the schema and returns the tenant
// store; empty reports a store without any record (to be seeded). keys
// are the metadata keys search filters may name.
func openPostgres(ctx context.Context, dsn, schema, tenant string, dims int, keys []string) (st *postgres.Store, ping func(context.Context) error, closeDB func(), empty bool, err error) {
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx errors may echo the DSN; never print it (it may hold a password).
		return nil, nil, nil, false, errors.New("DATABASE_URL: not a valid PostgreSQL connection string")
	}
	postgres.ConfigurePool(pcfg)
	cctx, cancel := context.WithTimeout(ctx, dbConnectTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(cctx, pcfg)
	if err != nil {
		return nil, nil, nil, false, fmt.Errorf("postgres: connect: %w", err)
	}
	db := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: schema, AllowedMetadataKeys: keys})
	fail := func(err error) (*postgres.Store, func(context.Context) error, func(), bool, error) {
		pool.Close()
		return nil, nil, nil, false, err
	}
	if err := db.Migrate(cctx); err != nil {
		return fail(err) // "postgres: migrate: …" already
	}
	// Every pooled connection's first vector search would otherwise pay
	// for loading pgvector's index into its backend.
	if err := db.Warm(cctx, 0); err != nil {
		return fail(fmt.Errorf("postgres: warm connections: %w", err))
	}
	st, err = db.Tenant(tenant)
	if err != nil {
		return fail(fmt.Errorf("-tenant: %w", err))
	}
	c, err := st.Counts(cctx)
	if err != nil {
		return fail(fmt.Errorf("postgres: count records: %w", err))
	}
	empty = c.Items == 0 && c.FAQs == 0 && c.Documents == 0
	return st, db.Ping, pool.Close, empty, nil
}

// findTestdata returns the testdata directory: dir when given (it must
// hold catalog.jsonl), else the first "testdata" holding catalog.jsonl in
// the working directory or one of its parents.
func findTestdata(dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, catalogFile)); err != nil {
			return "", fmt.Errorf("%w: -testdata %s has no %s", errTestdataNotFound, dir, catalogFile)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("%w: %w", errTestdataNotFound, err)
	}
	for d := wd; ; {
		cand := filepath.Join(d, "testdata")
		if _, err := os.Stat(filepath.Join(cand, catalogFile)); err == nil {
			return cand, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("%w: no testdata/%s in %s or its parents; run from the repository root (go run ./examples/chatserver) or pass -testdata DIR",
		errTestdataNotFound, catalogFile, wd)
}

// loadTestdata reads the catalog, FAQs and documents of dir. Bad records
// are logged and skipped; a missing catalog or FAQ file is an error,
// missing documents are not.
func loadTestdata(ctx context.Context, dir string, log *slog.Logger) (ingest.Sources, error) {
	var src ingest.Sources
	items, err := load.LoadCatalog(ctx, filepath.Join(dir, catalogFile), nil)
	if err := loadOutcome(log, "catalog", len(items), err); err != nil {
		return src, err
	}
	src.Items = items
	faqs, err := load.LoadFAQs(ctx, filepath.Join(dir, faqsFile), nil)
	if err := loadOutcome(log, "FAQs", len(faqs), err); err != nil {
		return src, err
	}
	src.FAQs = faqs
	for _, name := range []string{documentsDir, documentsJSONL} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		docs, err := load.LoadDocuments(ctx, p, nil)
		if err := loadOutcome(log, "documents", len(docs), err); err != nil {
			return src, err
		}
		src.Documents = append(src.Documents, docs...)
	}
	return src, nil
}

// loadOutcome turns a loader result into an error, or logs the bad records
// when some loaded.
func loadOutcome(log *slog.Logger, what string, n int, err error) error {
	if err == nil {
		return nil
	}
	var bad load.RecordErrors
	if !errors.As(err, &bad) || n == 0 {
		return fmt.Errorf("load %s: %w", what, err)
	}
	for _, e := range bad {
		log.Warn("bad record skipped", "what", what, "error", e)
	}
	return nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// agent returns the Agent of agentic turns, built once over the pipeline
// and the chat model.
func (be *backend) agent() (*rag.Agent, error) {
	be.agentOnce.Do(func() { be.agentBuilt, be.agentErr = rag.NewAgent(be.pipeline, be.chat, be.agentic) })
	return be.agentBuilt, be.agentErr
}
