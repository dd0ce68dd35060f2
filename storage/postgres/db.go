package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/hybridrag/hybridrag/storage"
)

// DB is hybridrag's PostgreSQL + pgvector database: a pgx pool, a schema and
// the embedding dimensions. It holds any number of tenants; Tenant scopes it
// to one.
//
// New does no I/O. Run Migrate once (at deploy time or at start-up) to
// create or upgrade the schema; stores check the schema on first use and
// return storage.ErrSchemaMismatch when it is missing or was created for
// other dimensions.
//
// A DB is safe for concurrent use.
type DB struct {
	pool *pgxpool.Pool
	opts Options
	err  error // invalid options, returned by every method that does I/O
	now  func() time.Time

	q  string // quoted schema, e.g. "hybridrag"
	tb tables

	checked atomic.Bool
	// words caches the lexical searches' word lookups (wordCache).
	words wordCache
}

// tables holds the schema-qualified, quoted table names.
type tables struct {
	items, files, faqs, docs, migrations string
	// versions is the tenants' change markers (migration 0005).
	versions string
	chunks   map[storage.OwnerKind]string
	owners   map[storage.OwnerKind]string
	// meta is each kind's narrow table of chunk metadata (migration
	// 0007): one row per chunk and key.
	meta map[storage.OwnerKind]string
	// words, tokens and postings are the word index of each kind's
	// owners (migrations 0003 and 0006).
	words, tokens, postings map[storage.OwnerKind]string
}

// New returns a DB using pool with the given options. It does no I/O: call
// Migrate to create the schema, Check (or any store method) to verify it.
// Invalid options are reported by Migrate, Check and Tenant.
//
// The pool's connections should have pgvector's types registered (see
// ConfigurePool); the stores register them on connections that lack them,
// at the cost of one query per new connection.
func New(pool *pgxpool.Pool, opts Options) *DB {
	o, err := opts.withDefaults()
	db := &DB{pool: pool, opts: o, err: err, now: time.Now}
	if pool == nil && err == nil {
		db.err = errors.New("postgres: New: nil pool")
	}
	q := pgx.Identifier{o.Schema}.Sanitize()
	db.q = q
	db.tb = tables{
		items:      q + ".items",
		files:      q + ".item_files",
		faqs:       q + ".faqs",
		docs:       q + ".documents",
		migrations: q + ".schema_migrations",
		versions:   q + ".tenant_versions",
		chunks: map[storage.OwnerKind]string{
			storage.KindItem:     q + ".item_chunks",
			storage.KindFAQ:      q + ".faq_chunks",
			storage.KindDocument: q + ".document_chunks",
		},
		owners: map[storage.OwnerKind]string{
			storage.KindItem:     q + ".items",
			storage.KindFAQ:      q + ".faqs",
			storage.KindDocument: q + ".documents",
		},
		meta: map[storage.OwnerKind]string{
			storage.KindItem:     q + ".item_chunk_meta",
			storage.KindFAQ:      q + ".faq_chunk_meta",
			storage.KindDocument: q + ".document_chunk_meta",
		},
		words:    map[storage.OwnerKind]string{},
		tokens:   map[storage.OwnerKind]string{},
		postings: map[storage.OwnerKind]string{},
	}
	for _, t := range wordTables {
		db.tb.words[t.kind] = q + "." + t.Words
		db.tb.tokens[t.kind] = q + "." + t.Tokens
		db.tb.postings[t.kind] = q + "." + t.Postings
	}
	return db
}

// ConfigurePool makes every connection of a pool built from cfg register
// pgvector's types (vector, halfvec, sparsevec) when it connects, after any
// AfterConnect hook already set. Call it before pgxpool.NewWithConfig:
//
//	cfg, err := pgxpool.ParseConfig(dsn)
//	...
//	postgres.ConfigurePool(cfg)
//	pool, err := pgxpool.NewWithConfig(ctx, cfg)
//
// Connections made before the vector extension exists (before the first
// Migrate) skip the registration; the stores register the types on them
// when they first use them.
func ConfigurePool(cfg *pgxpool.Config) {
	prev := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		if prev != nil {
			if err := prev(ctx, conn); err != nil {
				return err
			}
		}
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT to_regtype('vector') IS NOT NULL").Scan(&exists); err != nil {
			return fmt.Errorf("postgres: look up the vector type: %w", err)
		}
		if !exists {
			return nil
		}
		if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
			return fmt.Errorf("postgres: register pgvector types: %w", err)
		}
		return nil
	}
}

// Options returns the options in effect, defaults filled in.
func (db *DB) Options() Options {
	o := db.opts
	o.AllowedMetadataKeys = append([]string(nil), o.AllowedMetadataKeys...)
	return o
}

// Dimensions is the embedding length of the database.
func (db *DB) Dimensions() int { return db.opts.Dimensions }

// Tenant returns the store of one tenant. It does no I/O. The ID must pass
// storage.ValidateTenant; every query of the returned Store filters on it.
func (db *DB) Tenant(id string) (*Store, error) {
	if db.err != nil {
		return nil, db.err
	}
	if err := storage.ValidateTenant(id); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return &Store{db: db, tenant: id}, nil
}

// Ping checks that the database is reachable and that its schema matches
// the options (see Check).
func (db *DB) Ping(ctx context.Context) error {
	if db.err != nil {
		return db.err
	}
	if err := db.pool.Ping(ctx); err != nil {
		return wrapErr("ping", err)
	}
	return db.Check(ctx)
}

// Check verifies the schema: every migration known to this version of the
// package has been applied, none unknown has, and the embedding columns are
// vector(Options.Dimensions). It returns an error wrapping
// storage.ErrSchemaMismatch otherwise. Stores run Check once, on first use.
func (db *DB) Check(ctx context.Context) error {
	if db.err != nil {
		return db.err
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return wrapErr("check schema", err)
	}
	defer conn.Release()
	if err := db.check(ctx, conn.Conn()); err != nil {
		return err
	}
	db.checked.Store(true)
	return nil
}

// ensure runs Check once per DB, until it succeeds.
func (db *DB) ensure(ctx context.Context) error {
	if db.err != nil {
		return db.err
	}
	if db.checked.Load() {
		return nil
	}
	return db.Check(ctx)
}

// acquire returns a pooled connection with pgvector's types registered.
func (db *DB) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	if err := db.ensure(ctx); err != nil {
		return nil, err
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, wrapErr("acquire connection", err)
	}
	if _, ok := conn.Conn().TypeMap().TypeForName("vector"); !ok {
		if err := pgxvec.RegisterTypes(ctx, conn.Conn()); err != nil {
			conn.Release()
			return nil, wrapErr("register pgvector types", err)
		}
	}
	return conn, nil
}

// timestamp returns the current time as stored: UTC, microseconds.
func (db *DB) timestamp() time.Time { return storedTime(db.now()) }

func storedTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// Warm opens up to conns pooled connections at once (conns < 1, or more
// than the pool's MaxConns, means MaxConns) and prepares each for
// searches: it registers pgvector's types and runs one vector query
// through each kind's HNSW index (one inner product, with no scan, when
// searches are exact) and one lexical probe of each owner table, then
// returns the connections to the pool. A connection's first vector
// search otherwise pays for loading the vector extension and the index's
// catalog entries into its backend — measured at about 17 ms against 1 ms
// for the next search — so a service calls Warm after Migrate, before
// taking traffic. Connections the pool opens later (after MaxConnLifetime,
// or beyond conns) are not warmed.
//
// Warm returns the first error met; connections already warmed stay
// warmed. It reads no tenant's data.
func (db *DB) Warm(ctx context.Context, conns int) error {
	if err := db.ensure(ctx); err != nil {
		return err
	}
	// Every connection is held until all are acquired, so that each
	// warm-up runs on a different one; asking for more than the pool can
	// open would wait forever.
	if maxConns := int(db.pool.Config().MaxConns); conns < 1 || conns > maxConns {
		conns = maxConns
	}
	held := make([]*pgxpool.Conn, 0, conns)
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()
	for range conns {
		c, err := db.acquire(ctx)
		if err != nil {
			return err
		}
		held = append(held, c)
	}
	errs := make(chan error, len(held))
	for _, c := range held {
		go func() { errs <- db.warmConn(ctx, c.Conn()) }()
	}
	var first error
	for range held {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// warmConn runs the warm-up queries on one connection.
func (db *DB) warmConn(ctx context.Context, conn *pgx.Conn) error {
	zero := pgvector.NewVector(make([]float32, db.opts.Dimensions))
	for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
		// The same shape as SearchChunks, unfiltered: the planner picks the
		// HNSW index for ORDER BY embedding <#> $1 LIMIT n. Without one, that
		// would scan the table, so exact searches only touch one row.
		sql := "SELECT c.owner_id FROM " + db.tb.chunks[kind] + " c ORDER BY " + db.vectorOrder("c", "$1") + " LIMIT 1"
		if db.opts.exactSearch() {
			sql = "SELECT c.embedding <#> $1 FROM " + db.tb.chunks[kind] + " c LIMIT 1"
		}
		if _, err := conn.Exec(ctx, sql, zero); err != nil {
			return wrapCtx(ctx, "warm "+string(kind)+" vector index", err)
		}
		// A lexical probe: the word index (dictionary, trigram index,
		// postings) and the owner table's primary key, for an empty tenant
		// ID (no tenant has it).
		sql = "SELECT i.id FROM " + db.tb.owners[kind] + " i WHERE i.tenant_id = '' AND i.id = ANY(ARRAY(SELECT p.owner_id FROM " +
			db.tb.postings[kind] + " p WHERE p.tenant_id = '' AND p.word_id = ANY(ARRAY(SELECT d.id FROM " + db.tb.words[kind] +
			" d WHERE d.tenant_id = '' AND d.word LIKE '%warm%'))))"
		if _, err := conn.Exec(ctx, sql); err != nil {
			return wrapCtx(ctx, "warm "+string(kind)+" lexical index", err)
		}
	}
	return nil
}
