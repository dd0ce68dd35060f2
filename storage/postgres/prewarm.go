package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// errNoPrewarm is Prewarm's error when the database has no pg_prewarm
// extension and the role cannot create it (CREATE EXTENSION pg_prewarm,
// shipped with PostgreSQL's contrib modules, as a role allowed to); it
// matches errors.ErrUnsupported.
var errNoPrewarm = fmt.Errorf("postgres: the pg_prewarm extension is not installed: %w", errors.ErrUnsupported)

// Prewarm reads the indexes every search walks into the operating
// system's page cache, with PostgreSQL's pg_prewarm extension (mode
// "read": one sequential read per index, whatever shared_buffers is),
// and returns the number of 8 kB blocks read. The indexes are, for each
// kind, the word index's postings index, the HNSW index the searches use
// (none when searches are exact), and the owner tables' primary keys and
// inactive-owner indexes; the tables themselves are not read.
//
// Searches right after a restart of the machine or a bulk load find
// these indexes on disk, where each HNSW search reads about 2,300 blocks
// one at a time: at a million items of 1536 dimensions, with every file
// of the schema dropped from the page cache and the server restarted,
// BenchmarkSearchCatalogScale's p95 read 145–166 ms against 41–51 ms warm;
// with Prewarm after rag's Searcher.Warm, 41–45 ms, for 15–20 s of
// Prewarm (2.1 million blocks, 16 GB; BENCHMARKS.md, "Issue 24: final
// reads"). Call it then, before taking traffic, after Searcher.Warm
// (which reads every record and can push the indexes out again). It
// helps only when the indexes fit in memory beside what else the
// machine reads.
//
// Prewarm creates the extension when it is missing and the role may;
// otherwise it returns an error matching errors.ErrUnsupported. Tenants share the
// indexes: it reads every tenant's entries.
func (db *DB) Prewarm(ctx context.Context) (blocks int64, err error) {
	conn, err := db.acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	fn, err := db.prewarmFunc(ctx, conn.Conn())
	if err != nil {
		return 0, err
	}
	var names []string
	for _, t := range wordTables {
		names = append(names, db.q+"."+pgx.Identifier{t.Postings + "_key"}.Sanitize())
		if !db.opts.exactSearch() {
			index, _, _ := db.hnswIndex(t.kind)
			names = append(names, db.q+"."+pgx.Identifier{index}.Sanitize())
		}
	}
	for _, t := range wordTables {
		owner := db.tb.owners[t.kind]
		names = append(names, owner+"_pkey", owner+"_inactive")
	}
	names = append(names, db.tb.files+"_pkey")
	// One statement per index, in this order (the postings and the HNSW
	// graphs first): a cancelled context stops between them.
	for _, name := range names {
		var n int64
		// to_regclass skips an index that is missing (a bulk load's
		// dropped HNSW index, a schema without documents' postings).
		if err := conn.QueryRow(ctx, "SELECT coalesce("+fn+"(r, 'read'), 0) FROM to_regclass($1) r WHERE r IS NOT NULL", name).Scan(&n); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
			return blocks, wrapCtx(ctx, "prewarm "+name, err)
		}
		blocks += n
	}
	return blocks, nil
}

// prewarmFunc returns the schema-qualified pg_prewarm function, creating
// the extension when it is missing and the role may.
func (db *DB) prewarmFunc(ctx context.Context, conn *pgx.Conn) (string, error) {
	const find = "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_prewarm'"
	var schema string
	err := conn.QueryRow(ctx, find).Scan(&schema)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, cerr := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_prewarm"); cerr != nil {
			if ctx.Err() != nil {
				return "", wrapCtx(ctx, "prewarm: create extension", cerr)
			}
			return "", fmt.Errorf("%w (%w)", errNoPrewarm, wrapErr("prewarm: create extension", cerr))
		}
		err = conn.QueryRow(ctx, find).Scan(&schema)
	}
	if err != nil {
		return "", wrapCtx(ctx, "prewarm: find the extension", err)
	}
	return pgx.Identifier{schema, "pg_prewarm"}.Sanitize(), nil
}
