package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

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
// storage.FilterValues.Match.
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

// SearchChunks returns the chunks of active owners of q.Kind nearest to
// q.Vector by negative inner product (pgvector's <#>), closest first, ties
// by owner ID, source and Seq, dropping chunks farther than q.MaxDistance.
//
// Unless Options.ExactSearch is set, the search uses the kind's HNSW index
// with hnsw.ef_search and hnsw.iterative_scan set for the query only (SET
// LOCAL in a transaction), so that the tenant, active and metadata filters
// still leave up to q.Limit rows; HNSW is approximate (see the package
// documentation for measured recall).
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
	if math.IsNaN(q.MaxDistance) {
		// No distance is <= NaN (in Go; PostgreSQL sorts NaN last and
		// would keep everything).
		return nil, s.db.ensure(ctx)
	}
	opts := &s.db.opts
	exact := opts.exactSearch()
	limit := storage.ClampLimit(q.Limit)
	inner := limit
	order := "c.embedding <#> $2"
	if exact {
		// "+ 0" is not the index's ordering operator, so the planner
		// cannot use the HNSW index and scans exactly.
		order = "(c.embedding <#> $2) + 0, c.owner_id, c.source, c.seq"
	} else {
		inner = limit + hnswTieSlack
	}
	a := args{s.tenant, pgvector.NewVector(q.Vector), inner, q.MaxDistance, limit}
	owner := s.db.tb.owners[q.Kind]
	// The CTE is MATERIALIZED so that the outer ORDER BY sorts every row it
	// returns: with relaxed_order the index returns rows only roughly by
	// distance, and a subquery would let the planner assume they are sorted
	// (an incremental sort that stops after the first few).
	sql := `WITH c AS MATERIALIZED (
		SELECT c.owner_id, c.source, c.seq, c.content, c.content_hash, c.start_offset, c.heading_path, c.file_name,
			c.metadata, c.embedding <#> $2 AS d
		FROM ` + s.db.tb.chunks[q.Kind] + ` c
		JOIN ` + owner + ` o ON o.tenant_id = c.tenant_id AND o.id = c.owner_id
		WHERE c.tenant_id = $1 AND c.embedding IS NOT NULL AND o.active` + filterSQL("o", q.Filters, &a) + `
		ORDER BY ` + order + `
		LIMIT $3)
	SELECT ` + chunkCols + `, c.d FROM c
	WHERE c.d <= $4
	ORDER BY c.d, c.owner_id, c.source, c.seq
	LIMIT $5`

	setup := &pgx.Batch{}
	// JIT compilation would cost more than the search (the HNSW scan's
	// cost estimate is high at 100k rows).
	setup.Queue("SELECT set_config('jit', 'off', true)")
	if !exact {
		ef := max(opts.EfSearch, inner)
		if ef > 1000 {
			ef = 1000
		}
		setup.Queue("SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', $2, true)",
			strconv.Itoa(ef), string(opts.IterativeScan))
		if opts.MaxScanTuples > 0 {
			setup.Queue("SELECT set_config('hnsw.max_scan_tuples', $1, true)", strconv.Itoa(opts.MaxScanTuples))
		}
	}
	var out []storage.ChunkMatch
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			nSetup := setup.Len()
			setup.Queue(sql, a...)
			br := tx.SendBatch(ctx, setup)
			defer br.Close()
			for range nSetup {
				if _, err := br.Exec(); err != nil {
					return wrapCtx(ctx, "search chunks: settings", err)
				}
			}
			rows, err := br.Query()
			if err != nil {
				return wrapCtx(ctx, "search chunks", err)
			}
			out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.ChunkMatch, error) {
				var d float64
				c, err := scanChunk(r, q.Kind, &d)
				return storage.ChunkMatch{Chunk: c, Distance: d}, err
			})
			if err != nil {
				return wrapCtx(ctx, "search chunks", err)
			}
			if err := br.Close(); err != nil {
				return wrapCtx(ctx, "search chunks", err)
			}
			return nil
		})
	})
	return out, err
}
