package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/storage"
)

// hnswMethod is the HNSW index every chunk table gets. It repeats the
// definition in migrations 0001 and 0002 (applied migrations are not
// edited): change them together.
const hnswMethod = "USING hnsw (embedding vector_ip_ops) WITH (m = 16, ef_construction = 64)"

// triggers are the names of the triggers that maintain t's word index
// (migration 0003).
func (t wordTable) triggers() [2]string {
	return [2]string{t.Owner + "_index_words", t.Owner + "_reindex_words"}
}

// hnswIndexName is the full-precision HNSW index of kind's chunk table,
// unqualified.
func hnswIndexName(kind storage.OwnerKind) string { return chunkTableName(kind) + "_embedding_hnsw" }

// halfIndexName is the half-precision HNSW index of kind's chunk table
// (Options.HalfPrecisionIndex), unqualified.
func halfIndexName(kind storage.OwnerKind) string {
	return chunkTableName(kind) + "_embedding_half_hnsw"
}

// halfCast is the expression of the half-precision index and of the
// searches that use it: the expressions must be identical for the planner
// to match them.
func (db *DB) halfCast(expr string) string {
	return "(" + expr + ")::halfvec(" + strconv.Itoa(db.opts.Dimensions) + ")"
}

// hnswIndex returns the name (unqualified) and the method (what follows ON
// table) of the HNSW index kind's chunk table gets with the DB's options,
// and the name of the other one, which the table must not keep.
func (db *DB) hnswIndex(kind storage.OwnerKind) (name, method, other string) {
	if db.opts.HalfPrecisionIndex {
		return halfIndexName(kind),
			"USING hnsw ((" + db.halfCast("embedding") + ") halfvec_ip_ops) WITH (m = 16, ef_construction = 64)",
			hnswIndexName(kind)
	}
	return hnswIndexName(kind), hnswMethod, halfIndexName(kind)
}

// vectorOrder is the ORDER BY expression of a search on the HNSW index of
// the chunk alias c for the query vector param (a vector): the inner
// product of the embedding, or of its half-precision copy.
func (db *DB) vectorOrder(c, param string) string {
	if db.opts.HalfPrecisionIndex {
		return db.halfCast(c+".embedding") + " <#> " + db.halfCast(param+"::vector")
	}
	return c + ".embedding <#> " + param
}

// BulkLoadOptions tune EndBulkLoad's index builds. The zero value uses the
// server's settings.
type BulkLoadOptions struct {
	// MaintenanceWorkMemKB is maintenance_work_mem for the HNSW builds, in
	// kB (PostgreSQL's unit); 0 keeps the server's. An HNSW build is much
	// faster when its graph fits: about 1.25 × rows × (4 × dimensions +
	// 8 × m) bytes for m = 16; 1 million 1536-dimension chunks need about
	// 8 GB. The postings' index is built with 64 MB whatever it says (a
	// sort is faster in small runs).
	MaintenanceWorkMemKB int
	// ParallelWorkers is max_parallel_maintenance_workers for the builds
	// (besides the leader); 0 keeps the server's, negative means none.
	ParallelWorkers int
	// Progress, when set, is called on the caller's goroutine after each
	// step of EndBulkLoad with
	// its name ("item_postings", "item_chunks_embedding_hnsw", "vacuum",
	// ...) and duration: a rebuild over millions of rows takes minutes.
	Progress func(step string, took time.Duration)
}

func (o BulkLoadOptions) step(name string, start time.Time) {
	if o.Progress != nil {
		o.Progress(name, time.Since(start))
	}
}

// BeginBulkLoad prepares the whole schema (every tenant) for a large load:
// it stops maintaining the word index (the triggers on the owner tables are
// disabled) and drops the chunk tables' HNSW indexes, so that inserts cost
// only their rows. Load with the usual writers (rag/ingest.Indexer, the
// store's Apply, or your own COPY into the tables), then call EndBulkLoad,
// which rebuilds the word index and the HNSW indexes in bulk (a million
// items: BENCHMARKS.md, "A million items").
//
// Between the two calls the schema is degraded for every tenant and every
// process using it: lexical search does not find records inserted since
// BeginBulkLoad, nor new words of records changed since, and may still
// match records deactivated or changed since by their old words; vector
// search is an exact scan. Use it for an initial load or a full reload,
// not on a store serving traffic. The state lives in the database: if the
// loading process dies, EndBulkLoad (from any process) restores it.
//
// BeginBulkLoad and EndBulkLoad run DDL (ALTER TABLE, DROP/CREATE INDEX), so
// they need the privileges Migrate needs, and they lock tables (see
// EndBulkLoad). A cancelled context closes the connection; the server may
// finish the statement it was running, holding its locks, before it
// notices.
func (db *DB) BeginBulkLoad(ctx context.Context) error {
	if err := db.ensure(ctx); err != nil {
		return err
	}
	return db.schemaTx(ctx, "begin bulk load", func(tx pgx.Tx) error {
		for _, t := range wordTables {
			owner := db.tb.owners[t.kind]
			for _, trig := range t.triggers() {
				if _, err := tx.Exec(ctx, "ALTER TABLE "+owner+" DISABLE TRIGGER "+pgx.Identifier{trig}.Sanitize()); err != nil {
					return wrapCtx(ctx, "begin bulk load: disable "+trig, err)
				}
			}
		}
		for _, t := range wordTables {
			for _, index := range []string{hnswIndexName(t.kind), halfIndexName(t.kind)} {
				if _, err := tx.Exec(ctx, "DROP INDEX IF EXISTS "+db.q+"."+pgx.Identifier{index}.Sanitize()); err != nil {
					return wrapCtx(ctx, "begin bulk load: drop HNSW index", err)
				}
			}
		}
		return nil
	})
}

// EndBulkLoad ends a bulk load (see BeginBulkLoad). In one transaction
// it rebuilds every kind's word index from the owner rows of all tenants
// (new words added to the dictionary, postings inserted and their index
// built after them), enables the word-index triggers again and moves
// every tenant's version (Store.Version); meanwhile writes to the schema
// and lexical searches wait (the owner and chunk tables are locked in
// SHARE mode at its start, so a write cannot commit without postings and
// no deadlock can arise half-way). At the same time, in a second
// transaction on another connection of the pool (after it when the pool
// has one connection), it builds the missing HNSW indexes, during which
// chunk writes wait and searches go on: the word index is built by one
// process and an HNSW build by the leader and its parallel workers, so
// the two overlap on a machine of few cores (a million items: the
// postings and the HNSW index had taken 12 and 9.5 minutes one after the
// other). Then it vacuums and analyzes the tables (two at a time on a
// pool of two connections or more). Each step can be run
// again: without a BeginBulkLoad before it, EndBulkLoad rebuilds the word
// index as it already is, so it is also the way to recover from a failed
// or interrupted bulk load; an HNSW build that fails leaves the word index
// rebuilt.
func (db *DB) EndBulkLoad(ctx context.Context, opts BulkLoadOptions) error {
	if err := db.ensure(ctx); err != nil {
		return err
	}
	settings := func(tx pgx.Tx, mwm int) error {
		if _, err := tx.Exec(ctx, "SELECT set_config('jit', 'off', true)"); err != nil {
			return wrapCtx(ctx, "end bulk load: jit", err)
		}
		if mwm > 0 {
			if _, err := tx.Exec(ctx, "SELECT set_config('maintenance_work_mem', $1, true)", strconv.Itoa(mwm)); err != nil {
				return wrapCtx(ctx, "end bulk load: maintenance_work_mem", err)
			}
		}
		if opts.ParallelWorkers != 0 {
			if _, err := tx.Exec(ctx, "SELECT set_config('max_parallel_maintenance_workers', $1, true)", strconv.Itoa(max(opts.ParallelWorkers, 0))); err != nil {
				return wrapCtx(ctx, "end bulk load: max_parallel_maintenance_workers", err)
			}
		}
		return nil
	}
	// steps are the HNSW builds' durations, reported on the caller's
	// goroutine after them.
	type step struct {
		name string
		took time.Duration
	}
	var steps []step
	buildHNSW := func(ctx context.Context, tx pgx.Tx) error {
		if err := settings(tx, opts.MaintenanceWorkMemKB); err != nil {
			return err
		}
		for _, t := range wordTables {
			start := time.Now()
			index, method, _ := db.hnswIndex(t.kind)
			if _, err := tx.Exec(ctx, "CREATE INDEX IF NOT EXISTS "+pgx.Identifier{index}.Sanitize()+" ON "+db.tb.chunks[t.kind]+" "+method); err != nil {
				return wrapCtx(ctx, "end bulk load: build "+index+" (the word index is rebuilt; run EndBulkLoad again)", err)
			}
			steps = append(steps, step{index, time.Since(start)})
		}
		return nil
	}
	report := func() {
		for _, st := range steps {
			if opts.Progress != nil {
				opts.Progress(st.name, st.took)
			}
		}
		steps = nil
	}
	beside := db.opts.hnsw() && db.pool.Config().MaxConns >= 2
	var hnswErr error
	err := db.schemaTx(ctx, "end bulk load", func(tx pgx.Tx) (err error) {
		// The tables a write touches, locked before any work.
		var tables []string
		for _, t := range wordTables {
			tables = append(tables, db.tb.owners[t.kind], db.tb.chunks[t.kind])
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE "+strings.Join(tables, ", ")+" IN SHARE MODE"); err != nil {
			return wrapCtx(ctx, "end bulk load: lock tables", err)
		}
		if beside {
			// The HNSW builds in a transaction of their own, on another
			// connection, under this transaction's schema lock: it waits
			// for them before it ends, and stops them if it fails.
			// CREATE INDEX takes a SHARE lock on the chunk table, which
			// this transaction's does not block.
			hctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				conn, err := db.pool.Acquire(hctx)
				if err != nil {
					hnswErr = wrapCtx(hctx, "end bulk load: acquire connection", err)
					return
				}
				defer conn.Release()
				hnswErr = pgx.BeginFunc(hctx, conn.Conn(), func(tx pgx.Tx) error { return buildHNSW(hctx, tx) })
			}()
			defer func() {
				if err != nil {
					cancel()
				}
				<-done
				cancel()
			}()
		}
		if err := settings(tx, postingsSortKB); err != nil {
			return err
		}
		for _, t := range wordTables {
			start := time.Now()
			if err := db.rebuildWords(ctx, tx, t); err != nil {
				return err
			}
			opts.step(t.Postings, start)
		}
		// The dictionaries may hold new words: every tenant's change
		// marker moves with them, so that word lookups cached before
		// (wordCache) are not used again.
		if _, err := tx.Exec(ctx, "UPDATE "+db.tb.versions+" SET version = version + 1"); err != nil {
			return wrapCtx(ctx, "end bulk load: tenant versions", err)
		}
		return nil
	})
	report()
	if err != nil {
		return err
	}
	if hnswErr != nil {
		return hnswErr
	}
	if db.opts.hnsw() && !beside {
		err = db.schemaTx(ctx, "end bulk load", func(tx pgx.Tx) error { return buildHNSW(ctx, tx) })
		report()
		if err != nil {
			return err
		}
	}
	// VACUUM cannot run in a transaction. It sets the visibility map, so
	// that lexical searches read postings and chunk metadata rows from
	// their indexes alone, and analyzes the new rows. The tables are
	// vacuumed two at a time when the pool allows (the builds have ended:
	// both cores are free), largest first: the postings, then the chunks.
	start := time.Now()
	var tables []string
	for _, t := range wordTables {
		tables = append(tables, db.tb.postings[t.kind])
	}
	for _, t := range wordTables {
		tables = append(tables, db.tb.chunks[t.kind])
	}
	for _, t := range wordTables {
		tables = append(tables, db.tb.owners[t.kind])
	}
	tables = append(tables, db.tb.files)
	for _, t := range wordTables {
		tables = append(tables, db.tb.meta[t.kind], db.tb.words[t.kind], db.tb.tokens[t.kind])
	}
	if err := db.vacuum(ctx, tables, min(2, int(db.pool.Config().MaxConns))); err != nil {
		return err
	}
	opts.step("vacuum", start)
	return nil
}

// vacuum runs VACUUM (ANALYZE) on tables, in their order, on up to lanes
// connections at once; it returns the first error, after the statements
// running then have ended.
func (db *DB) vacuum(ctx context.Context, tables []string, lanes int) error {
	var (
		mu      sync.Mutex
		next    int
		failure error
		wg      sync.WaitGroup
	)
	// take returns the next table to vacuum, or "" when there is none or
	// a lane has failed.
	take := func() string {
		mu.Lock()
		defer mu.Unlock()
		if failure != nil || next == len(tables) {
			return ""
		}
		next++
		return tables[next-1]
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if failure == nil {
			failure = err
		}
	}
	for range max(lanes, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.pool.Acquire(ctx)
			if err != nil {
				fail(wrapCtx(ctx, "end bulk load: acquire connection", err))
				return
			}
			defer conn.Release()
			for table := take(); table != ""; table = take() {
				if _, err := conn.Exec(ctx, "VACUUM (ANALYZE) "+table); err != nil {
					fail(wrapCtx(ctx, "end bulk load: the indexes are rebuilt, but VACUUM failed (autovacuum will do it)", err))
					return
				}
			}
		}()
	}
	wg.Wait()
	return failure
}

// postingsSortKB is maintenance_work_mem, in kB, of the transaction that
// rebuilds the word index, whatever BulkLoadOptions says: the build of the
// postings' index sorts runs that fit in the CPU's caches and merges them,
// where one sort of gigabytes in memory waits on memory at every
// comparison (11.8 million postings: 24 s with 64 MB, 65 s with 4 GB;
// BENCHMARKS.md).
const postingsSortKB = 64 << 10

// rebuildWords rebuilds one kind's dictionary additions and postings from
// its owner rows, with the words of migrations 0003 and 0006 (without
// their ORDER BY: inserting unsorted and building the index after is
// faster; and splitting each text once, where they split it for the
// dictionary and again for the postings), and enables its triggers.
func (db *DB) rebuildWords(ctx context.Context, tx pgx.Tx, t wordTable) error {
	owner, words, tokens, postings := db.tb.owners[t.kind], db.tb.words[t.kind], db.tb.tokens[t.kind], db.tb.postings[t.kind]
	key := pgx.Identifier{t.Postings + "_key"}.Sanitize()
	sqls := []string{
		"TRUNCATE " + postings,
		"DROP INDEX IF EXISTS " + db.q + "." + key,
		// Fresh statistics first: right after a load the planner would
		// otherwise join millions of words through a nested loop.
		"ANALYZE " + owner,
		// Writers add their new words in statements of their own
		// (Store.addWords), which may commit while a statement below
		// runs: it would neither see such a word nor insert it, and
		// the word's postings would be lost. They wait until commit.
		"LOCK TABLE " + words + ", " + tokens + " IN SHARE ROW EXCLUSIVE MODE",
		// The pairs are joined to the dictionary through a hash of the
		// dictionary, not by sorting millions of them.
		"SELECT set_config('enable_mergejoin', 'off', true)",
	}
	for _, d := range []struct{ dict, split string }{{words, "search_words"}, {tokens, "search_tokens"}} {
		// Each text is split once: its (owner, word) pairs are kept for
		// the statement, the new words go to the dictionary and the
		// postings take their IDs from the dictionary as it was or from
		// the words just added (the statement does not see its own
		// inserts).
		sqls = append(sqls,
			`WITH p AS MATERIALIZED (
			SELECT o.tenant_id, o.id, o.created_at, w.w
			FROM `+owner+` o CROSS JOIN LATERAL `+db.q+`.`+d.split+`(o.search_text) AS w(w)
			WHERE o.active
		), added AS (
			INSERT INTO `+d.dict+` (tenant_id, word)
			SELECT DISTINCT tenant_id, w FROM p
			ORDER BY 1, 2
			ON CONFLICT DO NOTHING
			RETURNING tenant_id, word, id
		)
		INSERT INTO `+postings+` (tenant_id, word_id, owner_id, created_at)
		SELECT p.tenant_id, d.id, p.id, p.created_at
		FROM p JOIN (SELECT tenant_id, word, id FROM `+d.dict+` UNION ALL SELECT tenant_id, word, id FROM added) d
			ON d.tenant_id = p.tenant_id AND d.word = p.w`,
			"ANALYZE "+d.dict)
	}
	sqls = append(sqls,
		"CREATE UNIQUE INDEX "+key+" ON "+postings+" (tenant_id, word_id, created_at DESC, owner_id)",
		"ALTER TABLE "+owner+" ENABLE TRIGGER "+pgx.Identifier{t.triggers()[0]}.Sanitize(),
		"ALTER TABLE "+owner+" ENABLE TRIGGER "+pgx.Identifier{t.triggers()[1]}.Sanitize(),
	)
	for _, sql := range sqls {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return wrapCtx(ctx, fmt.Sprintf("end bulk load: rebuild %s word index", t.Owner), err)
		}
	}
	return nil
}

// schemaTx runs fn in one transaction holding the schema's migration lock,
// so a bulk load's DDL never interleaves with Migrate or another bulk load
// step.
func (db *DB) schemaTx(ctx context.Context, op string, fn func(pgx.Tx) error) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return wrapCtx(ctx, op+": acquire connection", err)
	}
	defer conn.Release()
	return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", int32(migrationLockKey), db.opts.Schema); err != nil {
			return wrapCtx(ctx, op+": advisory lock", err)
		}
		return fn(tx)
	})
}
