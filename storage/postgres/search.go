package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// args collects bound parameters while a statement is built; add returns
// the placeholder of the value. Every value from a query or filter goes
// through it: nothing from the caller is pasted into SQL.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// filterSQL returns " AND ..." conditions on the owner alias o for filters
// (already validated for kind). Values are compared normalized, like
// storeutil.FilterValues.Match.
func filterSQL(o string, filters []storage.Filter, a *args) string {
	var b strings.Builder
	for _, f := range filters {
		v := lexical.Normalize(f.Value)
		switch f.Field {
		case storage.FieldCategory:
			b.WriteString(" AND " + o + ".category_norm = " + a.add(v))
		case storage.FieldManufacturer:
			b.WriteString(" AND " + o + ".manufacturer_norm = " + a.add(v))
		case storage.FieldSource:
			b.WriteString(" AND " + o + ".source_norm = " + a.add(v))
		case storage.FieldTag:
			b.WriteString(" AND " + a.add(v) + "::text = ANY(" + o + ".tags_norm)")
		case storage.FieldMetadata:
			b.WriteString(" AND " + o + ".metadata_norm ->> " + a.add(f.Key) + "::text = " + a.add(v))
		}
	}
	return b.String()
}

// restrictSQL returns " AND ..." conditions on the chunk alias c for a
// query's owner IDs and chunk filter groups (storeutil.GroupChunkFilters):
// one containment test of metadata_norm (migration 0004) per value, ORed
// within a key, ANDed across keys, all answered by the GIN index on
// (tenant_id, metadata_norm).
func restrictSQL(c string, ownerIDs []string, groups []storeutil.ChunkFilterGroup, a *args) string {
	var b strings.Builder
	if len(ownerIDs) > 0 {
		b.WriteString(" AND " + c + ".owner_id = ANY(" + a.add(ownerIDs) + "::text[])")
	}
	for _, g := range groups {
		ors := make([]string, len(g.Values))
		for i, v := range g.Values {
			doc, _ := json.Marshal(map[string]string{g.Key: v}) // strings always marshal
			ors[i] = c + ".metadata_norm @> " + a.add(string(doc)) + "::jsonb"
		}
		b.WriteString(" AND (" + strings.Join(ors, " OR ") + ")")
	}
	return b.String()
}

// metaSQL returns the conditions on the alias m of a kind's narrow table of
// chunk metadata (migration 0007, meta) selecting one row per chunk of
// the tenant (the expression tenant) that passes the chunk filter groups
// (at least one) and, when ownerIDs are given, belongs to one of them: m
// holds the chunk's row of the first group's key, and the chunk's rows of
// the other keys are probed by primary key. A value of at most
// metaShortChars characters is compared with the short column (the index on
// (tenant_id, key, short), from the index alone); a longer one, whose
// short is NULL, is looked up by its md5 and compared itself.
func metaSQL(meta, m, tenant string, ownerIDs []string, groups []storeutil.ChunkFilterGroup, a *args) string {
	group := func(m string, g storeutil.ChunkFilterGroup) string {
		var short, long []string
		for _, v := range g.Values {
			if utf8.RuneCountInString(v) <= metaShortChars {
				short = append(short, v)
			} else {
				long = append(long, v)
			}
		}
		var ors []string
		if len(short) > 0 {
			ors = append(ors, m+".short = ANY("+a.add(short)+"::text[])")
		}
		if len(long) > 0 {
			hashes := make([]string, len(long))
			for i, v := range long {
				hashes[i] = "md5(" + a.add(v) + "::text)"
			}
			ors = append(ors, "("+m+".short IS NULL AND md5("+m+".value) = ANY(ARRAY["+strings.Join(hashes, ", ")+
				"]) AND "+m+".value = ANY("+a.add(long)+"::text[]))")
		}
		cond := strings.Join(ors, " OR ")
		if len(ors) > 1 {
			cond = "(" + cond + ")"
		}
		return m + ".key = " + a.add(g.Key) + "::text AND " + cond
	}
	var b strings.Builder
	b.WriteString(m + ".tenant_id = " + tenant + " AND " + group(m, groups[0]))
	if len(ownerIDs) > 0 {
		b.WriteString(" AND " + m + ".owner_id = ANY(" + a.add(ownerIDs) + "::text[])")
	}
	for i, g := range groups[1:] {
		p := m + strconv.Itoa(i+1)
		b.WriteString(" AND EXISTS (SELECT FROM " + meta + " " + p + " WHERE " + p + ".tenant_id = " + m + ".tenant_id AND " +
			p + ".owner_id = " + m + ".owner_id AND " + p + ".source = " + m + ".source AND " + p + ".seq = " + m + ".seq AND " +
			group(p, g) + ")")
	}
	return b.String()
}

// metaShortChars is the longest value, in characters, the short column of
// the narrow chunk metadata tables holds (migration 0007, where it is
// written out).
const metaShortChars = 64

// likeEscaper makes a term a literal LIKE pattern body ('\' is the escape
// character, see likeEscape).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likeEscape is the ESCAPE clause of every LIKE. The escape string literal
// is written E'\\', which means one backslash whatever the server's
// standard_conforming_strings setting is.
const likeEscape = ` ESCAPE E'\\'`

// hnswTieSlack is how many rows past the limit an HNSW search fetches, so
// that chunks tied at the limit's distance are still ordered by owner ID,
// source and Seq like an exact search.
const hnswTieSlack = 16

// exactScanChunks is the most chunks a restricted vector search (owner
// IDs, chunk filters) scans exactly; a restriction matching more chunks
// searches the HNSW index with an iterative scan, which finds enough of
// them among the nearest (and falls back to the exact scan when it does
// not). It is a variable for tests, which set it to 0 to take the wide
// path on small data.
var exactScanChunks = 2000

// SearchChunks returns the chunks of active owners of q.Kind nearest to
// q.Vector by negative inner product (pgvector's <#>), closest first, ties
// by owner ID, source and Seq, dropping chunks farther than q.MaxDistance.
//
// Unless Options.ExactSearch is set, the search uses the kind's HNSW index
// with hnsw.ef_search and hnsw.iterative_scan set for the query only
// (set_config in the query's batch, one round trip), so that the tenant, active and metadata filters
// still leave up to q.Limit rows; HNSW is approximate (see the package
// documentation for measured recall).
//
// A search restricted by q.OwnerIDs or q.ChunkFilters first counts the
// chunks the restriction matches (the GIN index on the normalized chunk
// metadata, migration 0004, or the primary key for owner IDs), up to
// exactScanChunks: a restriction matching no more is scanned exactly,
// every matching chunk compared with q.Vector; a wider one uses the HNSW
// index with an iterative scan, and, if that ends before q.Limit rows, the
// exact scan. A matching chunk is thus never missed because nearer chunks
// do not match.
func (s *Store) SearchChunks(ctx context.Context, q storage.VectorQuery) ([]storage.ChunkMatch, error) {
	if !q.Kind.Valid() {
		return nil, badKind(q.Kind)
	}
	if err := storage.ValidateQueryVector(q.Vector, s.db.opts.Dimensions); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := storage.ValidateFilters(q.Kind, q.Filters, s.db.opts.AllowedMetadataKeys); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := storage.ValidateRestrictions(q.OwnerIDs, q.ChunkFilters); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if math.IsNaN(q.MaxDistance) {
		// No distance is <= NaN (in Go; PostgreSQL sorts NaN last and
		// would keep everything).
		return nil, s.db.ensure(ctx)
	}
	vs := vectorSearch{s: s, q: &q, groups: storeutil.GroupChunkFilters(q.ChunkFilters), vec: pgvector.NewVector(q.Vector)}
	restricted := len(q.OwnerIDs) > 0 || len(vs.groups) > 0
	var out []storage.ChunkMatch
	// Each step is one batch, its settings first: a batch runs in one
	// implicit transaction, so set_config(..., true) lasts for the batch
	// alone, with no BEGIN or COMMIT round trips.
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		c := conn.Conn()
		exact := s.db.opts.exactSearch()
		if restricted {
			// One round trip: the count and the exact search of at most
			// exactScanChunks + 1 matching chunks, kept when they are all.
			res, n, err := vs.restrictedExact(ctx, c)
			if err != nil || n <= exactScanChunks {
				out = res
				return err
			}
			if exact {
				out, _, err = vs.run(ctx, c, true)
				return err
			}
		}
		var full bool
		var err error
		out, full, err = vs.run(ctx, c, exact)
		if err == nil && restricted && !exact && !full {
			// The iterative scan ended (hnsw.max_scan_tuples) before it
			// found enough matching chunks.
			out, _, err = vs.run(ctx, c, true)
		}
		return err
	})
	return out, err
}

// vectorSearch is one SearchChunks call.
type vectorSearch struct {
	s      *Store
	q      *storage.VectorQuery
	groups []storeutil.ChunkFilterGroup
	vec    pgvector.Vector
}

// restrictedSettings are batched with a restricted exact search: the
// restriction's index, not a scan of every chunk.
const restrictedSettings = "SELECT set_config('jit', 'off', true), set_config('enable_seqscan', 'off', true)"

// restrictedExact counts the embedded chunks of the tenant passing the
// query's restriction, up to exactScanChunks + 1, and searches at most
// that many of them exactly, in one statement: the result is the search's
// when the count is at most exactScanChunks. Distances are computed for
// the matching chunks alone (their rows found by the restriction's index,
// once: every row returned carries their count, which a result with no
// row counts on its own); their owners are then checked (active, filters)
// nearest first, and only the chunks returned are read whole.
func (vs *vectorSearch) restrictedExact(ctx context.Context, tx batcher) ([]storage.ChunkMatch, int, error) {
	s, q := vs.s, vs.q
	limit := storeutil.ClampLimit(q.Limit)
	chunks := s.db.tb.chunks[q.Kind]
	a := args{s.tenant, vs.vec, limit, exactScanChunks + 1}
	// The OFFSET 0 fences keep the owner check a probe per row, in
	// distance order, stopping at the limit: without them the planner
	// checks every matching chunk's owner first (a hash join reading
	// every owner, or one probe per chunk).
	sql := `WITH f AS MATERIALIZED (
		SELECT c.owner_id, c.source, c.seq, c.embedding <#> $2 AS d FROM ` + chunks + ` c
		WHERE c.tenant_id = $1 AND c.embedding IS NOT NULL` + restrictSQL("c", q.OwnerIDs, vs.groups, &a) + `
		LIMIT $4),
	r AS MATERIALIZED (
		SELECT f.owner_id AS r_owner, f.source AS r_source, f.seq AS r_seq, f.d AS r_d
		FROM (SELECT * FROM f ORDER BY f.d, f.owner_id, f.source, f.seq OFFSET 0) f
		WHERE EXISTS (SELECT FROM ` + s.db.tb.owners[q.Kind] + ` o WHERE o.tenant_id = $1 AND o.id = f.owner_id AND o.active` +
		filterSQL("o", q.Filters, &a) + ` OFFSET 0)
		LIMIT $3)
	SELECT ` + chunkCols + `, r.r_d, (SELECT count(*) FROM f) FROM r JOIN ` + chunks + ` c
		ON c.tenant_id = $1 AND c.owner_id = r.r_owner AND c.source = r.r_source AND c.seq = r.r_seq
	ORDER BY r.r_d, r.r_owner, r.r_source, r.r_seq`
	batch := &pgx.Batch{}
	batch.Queue(restrictedSettings)
	batch.Queue(sql, a...)
	br := tx.SendBatch(ctx, batch)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, 0, wrapCtx(ctx, "search chunks: settings", err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, 0, wrapCtx(ctx, "search chunks", err)
	}
	var n int64
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.ChunkMatch, error) {
		var d float64
		c, err := scanChunk(r, q.Kind, &d, &n)
		return storage.ChunkMatch{Chunk: c, Distance: d}, err
	})
	if err != nil {
		return nil, 0, wrapCtx(ctx, "search chunks", err)
	}
	if err := br.Close(); err != nil {
		return nil, 0, wrapCtx(ctx, "search chunks", err)
	}
	if len(out) == 0 {
		// No row carried the count.
		ca := args{s.tenant, exactScanChunks + 1}
		n, err = countRestricted(ctx, tx, restrictedSettings, "SELECT count(*) FROM (SELECT FROM "+chunks+
			" c WHERE c.tenant_id = $1 AND c.embedding IS NOT NULL"+restrictSQL("c", q.OwnerIDs, vs.groups, &ca)+" LIMIT $2) x", ca)
		if err != nil {
			return nil, 0, wrapCtx(ctx, "search chunks: count", err)
		}
	}
	keep := 0
	for keep < len(out) && out[keep].Distance <= q.MaxDistance {
		keep++
	}
	return out[:keep], int(n), nil
}

// run runs the search, exact or on the HNSW index, and reports whether the
// nearest-rows step returned as many rows as it asked for.
func (vs *vectorSearch) run(ctx context.Context, tx batcher, exact bool) ([]storage.ChunkMatch, bool, error) {
	s, q := vs.s, vs.q
	opts := &s.db.opts
	limit := storeutil.ClampLimit(q.Limit)
	inner := limit
	// On the HNSW index; with a half-precision index, the candidates it
	// finds are ranked below by their full-precision distances d.
	order := s.db.vectorOrder("c", "$2")
	if exact {
		// "+ 0" is not the index's ordering operator, so the planner
		// cannot use the HNSW index and scans exactly.
		order = "(c.embedding <#> $2) + 0, c.owner_id, c.source, c.seq"
	} else {
		inner = limit + hnswTieSlack
	}
	a := args{s.tenant, vs.vec}
	owner := s.db.tb.owners[q.Kind]
	// The chunks of active owners. An HNSW search without filters on the
	// owner's fields keeps a chunk unless its owner is in the owner
	// table's partial index of inactive rows (migration 0008): one probe
	// of an index that is a single empty page when every owner is active,
	// where a join read the owner's primary key and wide heap row for
	// every chunk the scan returned (0.2-0.4 ms of a 1.3-1.8 ms search for
	// 76 chunks at AGROFIT's size). The chunk's owner exists (a foreign
	// key), so both keep the same chunks. OFFSET 0 keeps the probe a
	// filter of the index scan, run for the chunks the scan returns:
	// pulled up into an anti-join, its generic plan read every inactive
	// owner of the tenant once for every chunk. An exact scan, which reads
	// every chunk of the tenant, keeps the join (one hash of the owners).
	from := s.db.tb.chunks[q.Kind] + ` c
		WHERE c.tenant_id = $1 AND c.embedding IS NOT NULL AND NOT EXISTS (SELECT FROM ` + owner + ` o
			WHERE o.tenant_id = c.tenant_id AND o.id = c.owner_id AND NOT o.active OFFSET 0)`
	if exact || len(q.Filters) > 0 {
		from = s.db.tb.chunks[q.Kind] + ` c
		JOIN ` + owner + ` o ON o.tenant_id = c.tenant_id AND o.id = c.owner_id
		WHERE c.tenant_id = $1 AND c.embedding IS NOT NULL AND o.active` + filterSQL("o", q.Filters, &a)
	}
	// An unfiltered HNSW search is planned once per connection and limit
	// (its plan does not depend on the vector), with the limit written in
	// the statement: a generic plan would otherwise assume it reads a
	// tenth of the chunks. Planning took 0.3 ms of a 2–3 ms search at
	// AGROFIT's size. Filtered and restricted searches, whose plans depend
	// on the values, keep custom plans.
	generic := !exact && len(q.Filters) == 0 && len(q.OwnerIDs)+len(vs.groups) == 0
	// The CTE is MATERIALIZED so that the outer ORDER BY sorts every row it
	// returns: with relaxed_order the index returns rows only roughly by
	// distance, and a subquery would let the planner assume they are sorted
	// (an incremental sort that stops after the first few). The distance
	// threshold and the limit are applied here, in Go, after the rows are
	// read: how many rows the CTE found tells whether an iterative scan
	// ended early.
	sql := `WITH c AS MATERIALIZED (
		SELECT c.owner_id, c.source, c.seq, c.content, c.content_hash, c.start_offset, c.heading_path, c.file_name,
			c.metadata, c.embedding <#> $2 AS d
		FROM ` + from + restrictSQL("c", q.OwnerIDs, vs.groups, &a) + `
		ORDER BY ` + order + `
		LIMIT ` + strconv.Itoa(inner) + `)
	SELECT ` + chunkCols + `, c.d FROM c
	ORDER BY c.d, c.owner_id, c.source, c.seq`

	// The settings, in one statement (a statement of the batch costs a
	// few tens of microseconds of a 2-3 ms search at AGROFIT's size).
	var sets []string
	var setArgs []any
	set := func(name, value string) {
		setArgs = append(setArgs, value)
		sets = append(sets, "set_config('"+name+"', $"+strconv.Itoa(len(setArgs))+", true)")
	}
	// JIT compilation would cost more than the search (the HNSW scan's
	// cost estimate is high at 100k rows).
	set("jit", "off")
	if generic {
		set("plan_cache_mode", "force_generic_plan")
	}
	if exact && len(vs.q.OwnerIDs)+len(vs.groups) > 0 {
		// The restriction's index, not a scan of every chunk.
		set("enable_seqscan", "off")
	}
	if !exact {
		ef := max(opts.EfSearch, inner)
		if ef > 1000 {
			ef = 1000
		}
		set("hnsw.ef_search", strconv.Itoa(ef))
		set("hnsw.iterative_scan", string(opts.IterativeScan))
		if opts.MaxScanTuples > 0 {
			set("hnsw.max_scan_tuples", strconv.Itoa(opts.MaxScanTuples))
		}
	}
	setup := &pgx.Batch{}
	setup.Queue("SELECT "+strings.Join(sets, ", "), setArgs...)
	nSetup := setup.Len()
	setup.Queue(sql, a...)
	br := tx.SendBatch(ctx, setup)
	defer br.Close()
	for range nSetup {
		if _, err := br.Exec(); err != nil {
			return nil, false, wrapCtx(ctx, "search chunks: settings", err)
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, false, wrapCtx(ctx, "search chunks", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.ChunkMatch, error) {
		var d float64
		c, err := scanChunk(r, q.Kind, &d)
		return storage.ChunkMatch{Chunk: c, Distance: d}, err
	})
	if err != nil {
		return nil, false, wrapCtx(ctx, "search chunks", err)
	}
	if err := br.Close(); err != nil {
		return nil, false, wrapCtx(ctx, "search chunks", err)
	}
	full := len(out) >= inner
	keep := 0
	for keep < len(out) && keep < limit && out[keep].Distance <= q.MaxDistance {
		keep++
	}
	return out[:keep], full, nil
}

// countRestricted runs settings, then the count statement query with a,
// in one batch on conn, and returns the count: a restricted search whose
// rows were too few to carry it.
func countRestricted(ctx context.Context, conn interface {
	SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
}, settings, query string, a args) (int64, error) {
	b := &pgx.Batch{}
	b.Queue(settings)
	b.Queue(query, a...)
	br := conn.SendBatch(ctx, b)
	var n int64
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&n)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return n, err
}
