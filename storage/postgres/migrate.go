package postgres

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded SQL file, NNNN_name.sql, rendered with the
// schema and dimensions before it runs.
type migration struct {
	version int
	name    string
	tmpl    *template.Template
}

// migrationLockKey is the first key of the advisory lock serializing
// Migrate calls ("hrag"); the second is the schema name's hash.
const migrationLockKey = 0x68726167

// embeddedMigrations parses the embedded migrations once. The files are part
// of the package source, so an error is a build defect that every test
// catches; it is returned by Migrate and Check rather than by a panic.
var embeddedMigrations = sync.OnceValues(func() ([]migration, error) {
	return loadMigrations(migrationFS)
})

func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".sql")
		num, label, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("postgres: migration file %s: want NNNN_name.sql", n)
		}
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		t, err := template.New(base).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("postgres: migration %s: %w", n, err)
		}
		ms = append(ms, migration{version: v, name: label, tmpl: t})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("postgres: two migrations with version %d", ms[i].version)
		}
	}
	return ms, nil
}

// latestVersion is the version of the newest migration of ms.
func latestVersion(ms []migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// chunkTable names one kind's chunk table, its owner table and its narrow
// table of chunk metadata (migration 0007).
type chunkTable struct{ Table, Owner, Meta string }

// wordTable names the word index tables of one kind's owner table: its
// dictionaries of words (0003) and tokens (0006) and their postings.
type wordTable struct {
	kind                           storage.OwnerKind
	Owner, Words, Tokens, Postings string
}

var wordTables = []wordTable{
	{storage.KindItem, "items", "item_words", "item_tokens", "item_postings"},
	{storage.KindFAQ, "faqs", "faq_words", "faq_tokens", "faq_postings"},
	{storage.KindDocument, "documents", "document_words", "document_tokens", "document_postings"},
}

// templateData is what migrations are rendered with; every field is
// produced by this package (the schema is validated and quoted).
type templateData struct {
	S           string
	Dims        int
	Plain       bool
	HNSW        bool
	ChunkTables []chunkTable
	WordTables  []wordTable
}

func (db *DB) templateData() templateData {
	d := db.opts.Dimensions
	return templateData{
		S:     db.q,
		Dims:  d,
		Plain: !db.opts.StorageDefault && d <= maxPlainDimensions,
		// The full-precision index; the half-precision one is built by
		// ensureVectorIndexes after the migrations.
		HNSW: d <= maxIndexedDimensions && !db.opts.HalfPrecisionIndex,
		ChunkTables: []chunkTable{
			{"item_chunks", "items", "item_chunk_meta"},
			{"faq_chunks", "faqs", "faq_chunk_meta"},
			{"document_chunks", "documents", "document_chunk_meta"},
		},
		WordTables: wordTables,
	}
}

// Migrate creates or upgrades the schema: the vector, pg_trgm and btree_gin
// extensions (when missing), the schema, its tables and indexes. It applies
// the embedded migrations not yet recorded in the schema_migrations table,
// in one transaction under an advisory lock, so concurrent calls (several
// processes starting at once) are safe and Migrate is idempotent. The
// embedding columns are created as vector(Options.Dimensions); when the
// schema already exists with other dimensions, Migrate returns an error
// wrapping storage.ErrSchemaMismatch and changes nothing.
//
// Migrate, BeginBulkLoad and EndBulkLoad are the methods that run DDL.
// Migrate needs the privileges to create the schema (and the extensions,
// if they are missing).
func (db *DB) Migrate(ctx context.Context) error {
	migrations, err := embeddedMigrations()
	if err != nil {
		return err
	}
	if err := db.migrateTo(ctx, latestVersion(migrations)); err != nil {
		return err
	}
	if err := db.ensureVectorIndexes(ctx); err != nil {
		return err
	}
	return db.Check(ctx)
}

// ensureVectorIndexes gives every chunk table the HNSW index of the DB's
// options (full or half precision, Options.HalfPrecisionIndex) and drops
// the other one. During a bulk load (the word-index triggers disabled,
// see BeginBulkLoad) it builds nothing: EndBulkLoad builds the indexes.
func (db *DB) ensureVectorIndexes(ctx context.Context) error {
	return db.schemaTx(ctx, "migrate: vector indexes", func(tx pgx.Tx) error {
		var bulk bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = $2 AND tgenabled = 'D')`,
			db.tb.owners[storage.KindItem], wordTables[0].triggers()[0]).Scan(&bulk); err != nil {
			return wrapCtx(ctx, "migrate: vector indexes: bulk load state", err)
		}
		for _, t := range wordTables {
			index, method, other := db.hnswIndex(t.kind)
			if _, err := tx.Exec(ctx, "DROP INDEX IF EXISTS "+db.q+"."+pgx.Identifier{other}.Sanitize()); err != nil {
				return wrapCtx(ctx, "migrate: drop "+other, err)
			}
			if bulk || !db.opts.hnsw() {
				continue
			}
			if _, err := tx.Exec(ctx, "CREATE INDEX IF NOT EXISTS "+pgx.Identifier{index}.Sanitize()+" ON "+db.tb.chunks[t.kind]+" "+method); err != nil {
				return wrapCtx(ctx, "migrate: build "+index, err)
			}
		}
		return nil
	})
}

// migrateTo applies the embedded migrations up to version last (tests use
// it to build the schema of an older release).
func (db *DB) migrateTo(ctx context.Context, last int) error {
	if db.err != nil {
		return db.err
	}
	migrations, err := embeddedMigrations()
	if err != nil {
		return err
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return wrapErr("migrate: acquire connection", err)
	}
	defer conn.Release()
	err = pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", int32(migrationLockKey), db.opts.Schema); err != nil {
			return wrapErr("migrate: advisory lock", err)
		}
		for _, ext := range []string{"vector", "pg_trgm", "btree_gin"} {
			var exists bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1)", ext).Scan(&exists); err != nil {
				return wrapErr("migrate: look up extension "+ext, err)
			}
			if !exists {
				if _, err := tx.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{ext}.Sanitize()); err != nil {
					return wrapErr("migrate: create extension "+ext+" (install it or ask a superuser to create it)", err)
				}
			}
		}
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+db.q); err != nil {
			return wrapErr("migrate: create schema", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+db.tb.migrations+` (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return wrapErr("migrate: create schema_migrations", err)
		}
		applied, err := appliedVersions(ctx, tx, db.tb.migrations)
		if err != nil {
			return err
		}
		latest := latestVersion(migrations)
		for v := range applied {
			if v > latest {
				return fmt.Errorf("postgres: migrate: schema %s has migration %d, newer than this package (%d): %w",
					db.opts.Schema, v, latest, storage.ErrSchemaMismatch)
			}
		}
		if len(applied) > 0 {
			// An existing schema must have been created for our dimensions.
			if err := db.checkDims(ctx, tx); err != nil {
				return err
			}
		}
		data := db.templateData()
		for _, m := range migrations {
			if applied[m.version] || m.version > last {
				continue
			}
			var sql bytes.Buffer
			if err := m.tmpl.Execute(&sql, data); err != nil {
				return fmt.Errorf("postgres: migrate: render %04d_%s: %w", m.version, m.name, err)
			}
			// No arguments: pgx sends the script with the simple protocol,
			// which allows several statements.
			if _, err := tx.Exec(ctx, sql.String()); err != nil {
				return wrapErr(fmt.Sprintf("migrate: apply %04d_%s", m.version, m.name), err)
			}
			if step := goSteps[m.version]; step != nil {
				if err := step(ctx, db, tx); err != nil {
					return fmt.Errorf("postgres: migrate: %04d_%s: %w", m.version, m.name, err)
				}
			}
			if _, err := tx.Exec(ctx, "INSERT INTO "+db.tb.migrations+" (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
				return wrapErr("migrate: record migration", err)
			}
		}
		return nil
	})
	return err
}

// goSteps are the parts of migrations written in Go, run right after the
// version's SQL in the same transaction.
var goSteps = map[int]func(ctx context.Context, db *DB, tx pgx.Tx) error{
	4: backfillChunkMetadata,
}

// backfillChunkBatch is how many chunks backfillChunkMetadata reads and
// updates per statement.
const backfillChunkBatch = 2000

// backfillChunkMetadata fills metadata_norm (migration 0004) for the
// existing chunks with metadata, in primary key order, a batch at a time.
func backfillChunkMetadata(ctx context.Context, db *DB, tx pgx.Tx) error {
	for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
		table := db.tb.chunks[kind]
		var (
			tenant, owner, source string
			seq                   int32
			first                 = true
		)
		for {
			var rows pgx.Rows
			var err error
			const cols = "SELECT tenant_id, owner_id, source, seq, metadata FROM "
			if first {
				rows, err = tx.Query(ctx, cols+table+` WHERE metadata <> '{}'::jsonb
					ORDER BY tenant_id, owner_id, source, seq LIMIT $1`, backfillChunkBatch)
			} else {
				rows, err = tx.Query(ctx, cols+table+` WHERE metadata <> '{}'::jsonb
					AND (tenant_id, owner_id, source, seq) > ($2, $3, $4, $5)
					ORDER BY tenant_id, owner_id, source, seq LIMIT $1`, backfillChunkBatch, tenant, owner, source, seq)
			}
			if err != nil {
				return wrapErr("backfill chunk metadata", err)
			}
			var tenants, owners, sources, norms []string
			var seqs []int32
			var meta map[string]string
			_, err = pgx.ForEachRow(rows, []any{&tenant, &owner, &source, &seq, &meta}, func() error {
				b, err := json.Marshal(storeutil.NormalizeChunkMetadata(meta))
				if err != nil {
					return err
				}
				tenants, owners, sources, seqs, norms = append(tenants, tenant), append(owners, owner),
					append(sources, source), append(seqs, seq), append(norms, string(b))
				return nil
			})
			if err != nil {
				return wrapErr("backfill chunk metadata", err)
			}
			if len(tenants) == 0 {
				break
			}
			if _, err := tx.Exec(ctx, "UPDATE "+table+` c SET metadata_norm = v.m::jsonb
				FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::text[]) AS v(t, o, s, q, m)
				WHERE c.tenant_id = v.t AND c.owner_id = v.o AND c.source = v.s AND c.seq = v.q`,
				tenants, owners, sources, seqs, norms); err != nil {
				return wrapErr("backfill chunk metadata", err)
			}
			first = false
			if len(tenants) < backfillChunkBatch {
				break
			}
		}
	}
	return nil
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func appliedVersions(ctx context.Context, q querier, table string) (map[int]bool, error) {
	rows, err := q.Query(ctx, "SELECT version FROM "+table)
	if err != nil {
		return nil, wrapErr("read schema_migrations", err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, wrapErr("read schema_migrations", err)
	}
	applied := make(map[int]bool, len(vs))
	for _, v := range vs {
		applied[int(v)] = true
	}
	return applied, nil
}

// check verifies the migrations and the embedding dimensions.
func (db *DB) check(ctx context.Context, q querier) error {
	migrations, err := embeddedMigrations()
	if err != nil {
		return err
	}
	var exists bool
	if err := q.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", db.tb.migrations).Scan(&exists); err != nil {
		return wrapErr("check schema", err)
	}
	if !exists {
		return fmt.Errorf("postgres: schema %s is not migrated (run Migrate): %w", db.opts.Schema, storage.ErrSchemaMismatch)
	}
	applied, err := appliedVersions(ctx, q, db.tb.migrations)
	if err != nil {
		return err
	}
	latest := latestVersion(migrations)
	for _, m := range migrations {
		if !applied[m.version] {
			return fmt.Errorf("postgres: schema %s lacks migration %04d_%s (run Migrate): %w",
				db.opts.Schema, m.version, m.name, storage.ErrSchemaMismatch)
		}
	}
	for v := range applied {
		if v > latest {
			return fmt.Errorf("postgres: schema %s has migration %d, newer than this package (%d): %w",
				db.opts.Schema, v, latest, storage.ErrSchemaMismatch)
		}
	}
	return db.checkDims(ctx, q)
}

// checkDims compares the typmod of every embedding column, which pgvector
// sets to the declared dimensions, with Options.Dimensions.
func (db *DB) checkDims(ctx context.Context, q querier) error {
	rows, err := q.Query(ctx, `
		SELECT c.relname::text, a.atttypmod
		FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND a.attname = 'embedding' AND NOT a.attisdropped
		  AND c.relname IN ('item_chunks', 'faq_chunks', 'document_chunks')`, db.opts.Schema)
	if err != nil {
		return wrapErr("check embedding dimensions", err)
	}
	type col struct {
		Table string
		Dims  int32
	}
	cols, err := pgx.CollectRows(rows, pgx.RowToStructByPos[col])
	if err != nil {
		return wrapErr("check embedding dimensions", err)
	}
	if len(cols) != 3 {
		return fmt.Errorf("postgres: schema %s has %d of the 3 chunk tables: %w", db.opts.Schema, len(cols), storage.ErrSchemaMismatch)
	}
	for _, c := range cols {
		if int(c.Dims) != db.opts.Dimensions {
			return fmt.Errorf("postgres: schema %s: %s.embedding is vector(%d), Options.Dimensions is %d: %w",
				db.opts.Schema, c.Table, c.Dims, db.opts.Dimensions, storage.ErrSchemaMismatch)
		}
	}
	return nil
}
