package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
)

// Store is one tenant's view of a DB. It implements storage.Backend (a
// storage.Store and its storage.BatchWriter): Items, FAQs and Documents
// are this package's one generic storage.RecordStore, for each kind.
// Every statement it runs filters on
// (or writes) its tenant ID, so it can never read, search or change another
// tenant's rows.
//
// A Store is safe for concurrent use. Every write (Apply, Delete) runs in one
// transaction: it is validated
// completely first and then either fully applied or not at all.
type Store struct {
	db     *DB
	tenant string
}

var _ storage.Backend = (*Store)(nil)

// Items returns the tenant's catalog items.
func (s *Store) Items() storage.RecordStore[storage.CatalogItem] {
	return recordStore[storage.CatalogItem]{s, items}
}

// FAQs returns the tenant's FAQs.
func (s *Store) FAQs() storage.RecordStore[storage.FAQ] { return recordStore[storage.FAQ]{s, faqs} }

// Documents returns the tenant's documents.
func (s *Store) Documents() storage.DocumentStore {
	return docStore{recordStore[storage.Document]{s, docs}}
}

// Version returns the tenant's change marker (storage.Store.Version): the
// version the tenant_versions table keeps, which triggers on the record,
// file and chunk tables bump once per committed transaction writing the
// tenant (migration 0005), and EndBulkLoad bumps for every tenant (its
// rebuild of the word index changes what lexical searches find). One
// primary-key lookup.
func (s *Store) Version(ctx context.Context) (uint64, error) {
	var v int64
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		err := conn.QueryRow(ctx, "SELECT version FROM "+s.db.tb.versions+" WHERE tenant_id = $1", s.tenant).Scan(&v)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			v = 0
		case err != nil:
			return wrapCtx(ctx, "version", err)
		}
		return nil
	})
	return uint64(v), err
}

// Dimensions is the length every embedding must have.
func (s *Store) Dimensions() int { return s.db.opts.Dimensions }

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilIfEmptyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// withConn runs fn on a pooled connection with pgvector's types registered,
// after the one-time schema check.
func (s *Store) withConn(ctx context.Context, fn func(conn *pgxpool.Conn) error) error {
	conn, err := s.db.acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return fn(conn)
}

// getOne runs a single-row query selecting a record of kind k: sql's
// parameters are the tenant and key.
func getOne[T any](ctx context.Context, s *Store, k pgKind[T], ref storage.OwnerRef, sql, key string) (T, error) {
	var out T
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		v, err := k.scan(conn.QueryRow(ctx, sql, s.tenant, key))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(ref)
		}
		if err != nil {
			return wrapCtx(ctx, "get "+string(k.kind), err)
		}
		out = v
		return nil
	})
	return out, err
}

// noQuery is what a call answered without a statement (an ID no record
// can have, see storage.ValidID) returns first: the context's error or the
// schema check's, as if it had run one.
func (s *Store) noQuery(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return s.db.ensure(ctx)
}

// validIDs returns the IDs among ids a record can have (storage.ValidID):
// PostgreSQL's text cannot even hold the others, and no record has them.
func validIDs(ids []string) []string {
	for i, id := range ids {
		if !storage.ValidID(id) {
			out := slices.Clone(ids[:i])
			for _, id := range ids[i+1:] {
				if storage.ValidID(id) {
					out = append(out, id)
				}
			}
			return out
		}
	}
	return ids
}

// recordStore is the storage.RecordStore of the records of kind k of a
// tenant, the one implementation of the reads of every kind of record.
type recordStore[T any] struct {
	s *Store
	k pgKind[T]
}

// Get returns the record with the given ID, or an error wrapping
// storage.ErrNotFound (at once for an ID no record can have).
func (r recordStore[T]) Get(ctx context.Context, id string) (T, error) {
	ref := storage.OwnerRef{Kind: r.k.kind, ID: id}
	if !storage.ValidID(id) {
		var zero T
		if err := r.s.noQuery(ctx); err != nil {
			return zero, err
		}
		return zero, notFound(ref)
	}
	return getOne(ctx, r.s, r.k, ref, r.k.selectFrom(r.s, "i.id = $2"), id)
}

// GetMany returns the records among ids, in the order of ids; IDs no
// record can have are skipped like missing ones.
func (r recordStore[T]) GetMany(ctx context.Context, ids []string) ([]T, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if ids = validIDs(ids); len(ids) == 0 {
		return nil, r.s.noQuery(ctx)
	}
	op := "get " + string(r.k.kind) + "s"
	var out []T
	err := r.s.withConn(ctx, func(conn *pgxpool.Conn) error {
		rd := manyReader[T]{sql: r.k.selectFrom(r.s, "i.id = ANY($2)"), add: func(row pgx.Row, byID map[string]T) error {
			v, err := r.k.scan(row)
			if err == nil {
				byID[r.k.id(&v)] = v
			}
			return err
		}}
		if r.k.many != nil {
			rd = r.k.many(&r.s.db.tb)
		}
		rows, err := conn.Query(ctx, rd.sql, r.s.tenant, ids)
		if err != nil {
			return wrapCtx(ctx, op, err)
		}
		byID := make(map[string]T, len(ids))
		for rows.Next() {
			if err := rd.add(rows, byID); err != nil {
				rows.Close()
				return wrapCtx(ctx, op, err)
			}
		}
		if err := rows.Err(); err != nil {
			return wrapCtx(ctx, op, err)
		}
		for _, id := range ids {
			if v, ok := byID[id]; ok {
				out = append(out, v)
			}
		}
		return nil
	})
	return out, err
}

// List returns a page of records ordered by ID (byte order). A cursor
// that is not text PostgreSQL can hold (NUL bytes, invalid UTF-8) is
// compared with the IDs' UTF-8 bytes instead, with the same result.
func (r recordStore[T]) List(ctx context.Context, page storage.Page) ([]T, error) {
	op := "list " + string(r.k.kind) + "s"
	after := "i.id > $2"
	var cursor any = page.After
	if !storage.ValidText(page.After) {
		// Under COLLATE "C" text compares as its UTF-8 bytes do, so this
		// is the same order; it cannot use the primary key, but no valid
		// cursor takes this path.
		after, cursor = "convert_to(i.id, 'UTF8') > $2", []byte(page.After)
	}
	var out []T
	err := r.s.withConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, r.k.selectFrom(r.s, after+" ORDER BY i.id LIMIT $3"), r.s.tenant, cursor, storeutil.ClampLimit(page.Limit))
		if err != nil {
			return wrapCtx(ctx, op, err)
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (T, error) { return r.k.scan(row) })
		if err != nil {
			return wrapCtx(ctx, op, err)
		}
		return nil
	})
	return out, err
}

// Delete removes the record with the given ID; files and chunks go with it
// (ON DELETE CASCADE), and its postings (the owner table's trigger), in the
// same statement. An ID no record can have is
// storage.ErrNotFound.
func (r recordStore[T]) Delete(ctx context.Context, id string) error {
	if !storage.ValidID(id) {
		if err := r.s.noQuery(ctx); err != nil {
			return err
		}
		return notFound(storage.OwnerRef{Kind: r.k.kind, ID: id})
	}
	return r.s.withConn(ctx, func(conn *pgxpool.Conn) error {
		tag, err := conn.Exec(ctx, "DELETE FROM "+r.k.table(r.s)+" WHERE tenant_id = $1 AND id = $2", r.s.tenant, id)
		if err != nil {
			return wrapCtx(ctx, "delete "+string(r.k.kind), err)
		}
		if tag.RowsAffected() == 0 {
			return notFound(storage.OwnerRef{Kind: r.k.kind, ID: id})
		}
		return nil
	})
}

// Search returns lexical candidates among the active records; see
// searchLexical.
func (r recordStore[T]) Search(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	return searchLexical(ctx, r.s, r.k, q)
}

// docStore is the storage.DocumentStore of a tenant.
type docStore struct {
	recordStore[storage.Document]
}

// ByHash returns the document whose ContentHash is hash (the one with the
// smallest ID if several share it), or an error wrapping
// storage.ErrNotFound.
func (d docStore) ByHash(ctx context.Context, hash string) (storage.Document, error) {
	s := d.s
	if !storage.ValidText(hash) {
		if err := s.noQuery(ctx); err != nil {
			return storage.Document{}, err
		}
		return storage.Document{}, notFound(storage.OwnerRef{Kind: storage.KindDocument, ID: hash})
	}
	return getOne(ctx, s, docs, storage.OwnerRef{Kind: storage.KindDocument, ID: hash},
		docs.selectFrom(s, "i.content_hash = $2 ORDER BY i.id LIMIT 1"), hash)
}

// Counts returns the number of records and chunks of the tenant.
func (s *Store) Counts(ctx context.Context) (storage.Counts, error) {
	var c storage.Counts
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		tb := s.db.tb
		chunk := func(kind storage.OwnerKind) string {
			return "(SELECT count(*), count(embedding) FROM " + tb.chunks[kind] + " WHERE tenant_id = $1)"
		}
		var n [9]int64
		err := conn.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM `+tb.items+` WHERE tenant_id = $1),
			(SELECT count(*) FROM `+tb.faqs+` WHERE tenant_id = $1),
			(SELECT count(*) FROM `+tb.docs+` WHERE tenant_id = $1),
			a.n, a.e, b.n, b.e, c.n, c.e
			FROM `+chunk(storage.KindItem)+` a(n, e), `+chunk(storage.KindFAQ)+` b(n, e), `+chunk(storage.KindDocument)+` c(n, e)`,
			s.tenant).Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8])
		if err != nil {
			return wrapCtx(ctx, "counts", err)
		}
		c = storage.Counts{
			Items: int(n[0]), FAQs: int(n[1]), Documents: int(n[2]),
			Chunks: int(n[3] + n[5] + n[7]), Embedded: int(n[4] + n[6] + n[8]),
		}
		return nil
	})
	return c, err
}

// ChunkRefs lists the stored chunks of the given owners (every owner of
// kind when ownerIDs is nil), ordered by owner ID, source and Seq; IDs no
// record can have are skipped like missing ones.
func (s *Store) ChunkRefs(ctx context.Context, kind storage.OwnerKind, ownerIDs []string) ([]storage.ChunkRef, error) {
	if !kind.Valid() {
		return nil, badKind(kind)
	}
	if ownerIDs != nil && len(ownerIDs) == 0 {
		return nil, nil
	}
	if ownerIDs != nil {
		if ownerIDs = validIDs(ownerIDs); len(ownerIDs) == 0 {
			return nil, s.noQuery(ctx)
		}
	}
	sql := "SELECT owner_id, source, seq, content_hash, embedding IS NOT NULL FROM " + s.db.tb.chunks[kind] + " WHERE tenant_id = $1"
	args := []any{s.tenant}
	if ownerIDs != nil {
		sql += " AND owner_id = ANY($2)"
		args = append(args, ownerIDs)
	}
	sql += " ORDER BY owner_id, source, seq"
	var out []storage.ChunkRef
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return wrapCtx(ctx, "chunk refs", err)
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.ChunkRef, error) {
			ref := storage.ChunkRef{Owner: storage.OwnerRef{Kind: kind}}
			var src string
			err := r.Scan(&ref.Owner.ID, &src, &ref.Seq, &ref.ContentHash, &ref.HasEmbedding)
			ref.Source = storage.ChunkSource(src)
			return ref, err
		})
		if err != nil {
			return wrapCtx(ctx, "chunk refs", err)
		}
		return nil
	})
	return out, err
}

// Chunks returns the chunks of one owner with their embeddings, ordered by
// source and Seq (none when the owner has no chunks or does not exist).
func (s *Store) Chunks(ctx context.Context, owner storage.OwnerRef) ([]storage.Chunk, error) {
	if err := storage.ValidateOwnerRef(owner); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	var out []storage.Chunk
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, "SELECT "+chunkCols+", embedding FROM "+
			s.db.tb.chunks[owner.Kind]+" WHERE tenant_id = $1 AND owner_id = $2 ORDER BY source, seq", s.tenant, owner.ID)
		if err != nil {
			return wrapCtx(ctx, "chunks", err)
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Chunk, error) {
			var emb *pgvector.Vector
			c, err := scanChunk(r, owner.Kind, &emb)
			if emb != nil {
				c.Embedding = emb.Slice()
			}
			return c, err
		})
		if err != nil {
			return wrapCtx(ctx, "chunks", err)
		}
		return nil
	})
	return out, err
}

// chunkCols is the select list of a chunk without its embedding, read by
// scanChunk.
const chunkCols = "owner_id, source, seq, content, content_hash, start_offset, heading_path, file_name, metadata"

// scanChunk reads a chunk of kind selected with chunkCols (and then
// extra).
func scanChunk(row pgx.Row, kind storage.OwnerKind, extra ...any) (storage.Chunk, error) {
	c := storage.Chunk{Owner: storage.OwnerRef{Kind: kind}}
	var (
		src   string
		start int64
	)
	dst := append([]any{&c.Owner.ID, &src, &c.Seq, &c.Content, &c.ContentHash, &start, &c.HeadingPath, &c.File, stringMap{&c.Metadata}}, extra...)
	if err := row.Scan(dst...); err != nil {
		return c, err
	}
	c.Source = storage.ChunkSource(src)
	c.Start = int(start)
	c.HeadingPath = nilIfEmpty(c.HeadingPath)
	c.Metadata = nilIfEmptyMap(c.Metadata)
	return c, nil
}

func badKind(kind storage.OwnerKind) error {
	return fmt.Errorf("postgres: %w", &storage.ValidationError{Field: "kind", Reason: fmt.Sprintf("want item|faq|document, got %q", kind), Err: storage.ErrInvalidRecord})
}

// Analyze refreshes PostgreSQL's planner statistics of kind's tables (the
// owners, their chunks and the chunks' metadata rows, their word index
// and, for items, their files) with
// ANALYZE. The
// statistics are per table, shared by every tenant of the schema.
//
// Right after a bulk load the planner has no statistics for rows that
// autovacuum has not yet analyzed (it runs about once a minute), and picks
// plans fit for empty tables: hybrid catalog searches over 4,220 freshly
// loaded AGROFIT items took 134 ms p50 before ANALYZE and 36 ms after
// (BENCHMARKS.md). rag.Indexer calls Analyze after large writes.
func (s *Store) Analyze(ctx context.Context, kind storage.OwnerKind) error {
	if !kind.Valid() {
		return badKind(kind)
	}
	tb := s.db.tb
	tables := []string{tb.owners[kind], tb.chunks[kind], tb.meta[kind], tb.words[kind], tb.tokens[kind], tb.postings[kind]}
	if kind == storage.KindItem {
		tables = append(tables, tb.files)
	}
	return s.withConn(ctx, func(conn *pgxpool.Conn) error {
		if _, err := conn.Exec(ctx, "ANALYZE "+strings.Join(tables, ", ")); err != nil {
			return wrapCtx(ctx, "analyze", err)
		}
		return nil
	})
}
