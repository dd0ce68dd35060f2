package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/storage"
)

// Store is one tenant's view of a DB. It implements storage.Store: every
// statement it runs filters on (or writes) its tenant ID, so it can never
// read, search or change another tenant's rows.
//
// A Store is safe for concurrent use. Every multi-row write (UpsertItems,
// ReplaceChunks, Apply, ...) runs in one transaction: it is validated
// completely first and then either fully applied or not at all.
type Store struct {
	db     *DB
	tenant string
}

var _ storage.Store = (*Store)(nil)

// TenantID is the tenant this store is scoped to.
func (s *Store) TenantID() string { return s.tenant }

// Dimensions is the length every embedding must have.
func (s *Store) Dimensions() int { return s.db.opts.Dimensions }

// itemCols selects an item and its files (in file order) from alias i.
func (s *Store) itemCols() string {
	f := s.db.tb.files
	return `i.id, i.name, i.description, i.category, i.manufacturer, i.tags, i.price, i.active,
		i.metadata, i.created_at, i.updated_at,
		ARRAY(SELECT f.name FROM ` + f + ` f WHERE f.tenant_id = i.tenant_id AND f.item_id = i.id ORDER BY f.seq),
		ARRAY(SELECT f.body FROM ` + f + ` f WHERE f.tenant_id = i.tenant_id AND f.item_id = i.id ORDER BY f.seq)`
}

const faqCols = `i.id, i.question, i.answer, i.category, i.keywords, i.priority, i.active, i.created_at, i.updated_at`

const docCols = `i.id, i.source, i.title, i.content, i.content_hash, i.metadata, i.created_at, i.updated_at`

func scanItem(row pgx.Row, extra ...any) (storage.CatalogItem, error) {
	var (
		it            storage.CatalogItem
		active        bool
		names, bodies []string
	)
	dst := append([]any{&it.ID, &it.Name, &it.Description, &it.Category, &it.Manufacturer, &it.Tags, &it.Price,
		&active, &it.Metadata, &it.CreatedAt, &it.UpdatedAt, &names, &bodies}, extra...)
	if err := row.Scan(dst...); err != nil {
		return it, err
	}
	it.Status = storage.StatusActive
	if !active {
		it.Status = storage.StatusInactive
	}
	if len(names) > 0 {
		it.Files = make([]storage.CatalogFile, len(names))
		for i := range names {
			it.Files[i] = storage.CatalogFile{ItemID: it.ID, Name: names[i], Text: bodies[i]}
		}
	}
	it.Tags = nilIfEmpty(it.Tags)
	it.Metadata = nilIfEmptyMap(it.Metadata)
	it.CreatedAt, it.UpdatedAt = it.CreatedAt.UTC(), it.UpdatedAt.UTC()
	return it, nil
}

func scanFAQ(row pgx.Row, extra ...any) (storage.FAQ, error) {
	var (
		f      storage.FAQ
		active bool
	)
	dst := append([]any{&f.ID, &f.Question, &f.Answer, &f.Category, &f.Keywords, &f.Priority, &active,
		&f.CreatedAt, &f.UpdatedAt}, extra...)
	if err := row.Scan(dst...); err != nil {
		return f, err
	}
	f.Inactive = !active
	f.Keywords = nilIfEmpty(f.Keywords)
	f.CreatedAt, f.UpdatedAt = f.CreatedAt.UTC(), f.UpdatedAt.UTC()
	return f, nil
}

func scanDoc(row pgx.Row, extra ...any) (storage.Document, error) {
	var d storage.Document
	dst := append([]any{&d.ID, &d.Source, &d.Title, &d.Content, &d.ContentHash, &d.Metadata,
		&d.CreatedAt, &d.UpdatedAt}, extra...)
	if err := row.Scan(dst...); err != nil {
		return d, err
	}
	d.Metadata = nilIfEmptyMap(d.Metadata)
	d.CreatedAt, d.UpdatedAt = d.CreatedAt.UTC(), d.UpdatedAt.UTC()
	return d, nil
}

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

// getOne runs a single-row query for one owner.
func getOne[T any](ctx context.Context, s *Store, ref storage.OwnerRef, sql string, scan func(pgx.Row, ...any) (T, error)) (T, error) {
	var out T
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		v, err := scan(conn.QueryRow(ctx, sql, s.tenant, ref.ID))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(ref)
		}
		if err != nil {
			return wrapCtx(ctx, "get "+string(ref.Kind), err)
		}
		out = v
		return nil
	})
	return out, err
}

// getMany returns the records among ids, in the order of ids.
func getMany[T any](ctx context.Context, s *Store, kind storage.OwnerKind, sql string, ids []string,
	scan func(pgx.Row, ...any) (T, error), id func(*T) string) ([]T, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []T
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, sql, s.tenant, ids)
		if err != nil {
			return wrapCtx(ctx, "get "+string(kind)+"s", err)
		}
		byID := make(map[string]T, len(ids))
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				rows.Close()
				return wrapCtx(ctx, "get "+string(kind)+"s", err)
			}
			byID[id(&v)] = v
		}
		if err := rows.Err(); err != nil {
			return wrapCtx(ctx, "get "+string(kind)+"s", err)
		}
		for _, k := range ids {
			if v, ok := byID[k]; ok {
				out = append(out, v)
			}
		}
		return nil
	})
	return out, err
}

// list returns a page of records ordered by ID.
func list[T any](ctx context.Context, s *Store, kind storage.OwnerKind, sql string, page storage.Page,
	scan func(pgx.Row, ...any) (T, error)) ([]T, error) {
	var out []T
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, sql, s.tenant, page.After, storage.ClampLimit(page.Limit))
		if err != nil {
			return wrapCtx(ctx, "list "+string(kind)+"s", err)
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
		if err != nil {
			return wrapCtx(ctx, "list "+string(kind)+"s", err)
		}
		return nil
	})
	return out, err
}

// GetItem returns the item with its files, or an error wrapping
// storage.ErrNotFound.
func (s *Store) GetItem(ctx context.Context, id string) (storage.CatalogItem, error) {
	return getOne(ctx, s, storage.OwnerRef{Kind: storage.KindItem, ID: id},
		"SELECT "+s.itemCols()+" FROM "+s.db.tb.items+" i WHERE i.tenant_id = $1 AND i.id = $2", scanItem)
}

// GetItems returns the items that exist among ids, in the order of ids.
func (s *Store) GetItems(ctx context.Context, ids []string) ([]storage.CatalogItem, error) {
	return getMany(ctx, s, storage.KindItem,
		"SELECT "+s.itemCols()+" FROM "+s.db.tb.items+" i WHERE i.tenant_id = $1 AND i.id = ANY($2)",
		ids, scanItem, func(it *storage.CatalogItem) string { return it.ID })
}

// ListItems returns a page of items ordered by ID (byte order).
func (s *Store) ListItems(ctx context.Context, page storage.Page) ([]storage.CatalogItem, error) {
	return list(ctx, s, storage.KindItem,
		"SELECT "+s.itemCols()+" FROM "+s.db.tb.items+" i WHERE i.tenant_id = $1 AND i.id > $2 ORDER BY i.id LIMIT $3",
		page, scanItem)
}

// GetFAQ returns the FAQ or an error wrapping storage.ErrNotFound.
func (s *Store) GetFAQ(ctx context.Context, id string) (storage.FAQ, error) {
	return getOne(ctx, s, storage.OwnerRef{Kind: storage.KindFAQ, ID: id},
		"SELECT "+faqCols+" FROM "+s.db.tb.faqs+" i WHERE i.tenant_id = $1 AND i.id = $2", scanFAQ)
}

// GetFAQs returns the FAQs that exist among ids, in the order of ids.
func (s *Store) GetFAQs(ctx context.Context, ids []string) ([]storage.FAQ, error) {
	return getMany(ctx, s, storage.KindFAQ,
		"SELECT "+faqCols+" FROM "+s.db.tb.faqs+" i WHERE i.tenant_id = $1 AND i.id = ANY($2)",
		ids, scanFAQ, func(f *storage.FAQ) string { return f.ID })
}

// ListFAQs returns a page of FAQs ordered by ID.
func (s *Store) ListFAQs(ctx context.Context, page storage.Page) ([]storage.FAQ, error) {
	return list(ctx, s, storage.KindFAQ,
		"SELECT "+faqCols+" FROM "+s.db.tb.faqs+" i WHERE i.tenant_id = $1 AND i.id > $2 ORDER BY i.id LIMIT $3",
		page, scanFAQ)
}

// GetDocument returns the document or an error wrapping storage.ErrNotFound.
func (s *Store) GetDocument(ctx context.Context, id string) (storage.Document, error) {
	return getOne(ctx, s, storage.OwnerRef{Kind: storage.KindDocument, ID: id},
		"SELECT "+docCols+" FROM "+s.db.tb.docs+" i WHERE i.tenant_id = $1 AND i.id = $2", scanDoc)
}

// GetDocuments returns the documents that exist among ids, in the order of
// ids.
func (s *Store) GetDocuments(ctx context.Context, ids []string) ([]storage.Document, error) {
	return getMany(ctx, s, storage.KindDocument,
		"SELECT "+docCols+" FROM "+s.db.tb.docs+" i WHERE i.tenant_id = $1 AND i.id = ANY($2)",
		ids, scanDoc, func(d *storage.Document) string { return d.ID })
}

// DocumentByHash returns the document whose ContentHash is hash (the one
// with the smallest ID if several share it), or an error wrapping
// storage.ErrNotFound.
func (s *Store) DocumentByHash(ctx context.Context, hash string) (storage.Document, error) {
	return getOne(ctx, s, storage.OwnerRef{Kind: storage.KindDocument, ID: hash},
		"SELECT "+docCols+" FROM "+s.db.tb.docs+" i WHERE i.tenant_id = $1 AND i.content_hash = $2 ORDER BY i.id LIMIT 1", scanDoc)
}

// ListDocuments returns a page of documents ordered by ID.
func (s *Store) ListDocuments(ctx context.Context, page storage.Page) ([]storage.Document, error) {
	return list(ctx, s, storage.KindDocument,
		"SELECT "+docCols+" FROM "+s.db.tb.docs+" i WHERE i.tenant_id = $1 AND i.id > $2 ORDER BY i.id LIMIT $3",
		page, scanDoc)
}

// DeleteItem removes the item, its files and its chunks, or returns an
// error wrapping storage.ErrNotFound.
func (s *Store) DeleteItem(ctx context.Context, id string) error {
	return s.deleteOne(ctx, storage.OwnerRef{Kind: storage.KindItem, ID: id})
}

// DeleteFAQ removes the FAQ and its chunks, or returns an error wrapping
// storage.ErrNotFound.
func (s *Store) DeleteFAQ(ctx context.Context, id string) error {
	return s.deleteOne(ctx, storage.OwnerRef{Kind: storage.KindFAQ, ID: id})
}

// DeleteDocument removes the document and its chunks, or returns an error
// wrapping storage.ErrNotFound.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	return s.deleteOne(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: id})
}

// deleteOne deletes one owner; files and chunks go with it (ON DELETE
// CASCADE), in the same statement.
func (s *Store) deleteOne(ctx context.Context, ref storage.OwnerRef) error {
	return s.withConn(ctx, func(conn *pgxpool.Conn) error {
		tag, err := conn.Exec(ctx, "DELETE FROM "+s.db.tb.owners[ref.Kind]+" WHERE tenant_id = $1 AND id = $2", s.tenant, ref.ID)
		if err != nil {
			return wrapCtx(ctx, "delete "+string(ref.Kind), err)
		}
		if tag.RowsAffected() == 0 {
			return notFound(ref)
		}
		return nil
	})
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
// kind when ownerIDs is nil), ordered by owner ID, source and Seq.
func (s *Store) ChunkRefs(ctx context.Context, kind storage.OwnerKind, ownerIDs []string) ([]storage.ChunkRef, error) {
	if !kind.Valid() {
		return nil, badKind(kind)
	}
	if ownerIDs != nil && len(ownerIDs) == 0 {
		return nil, nil
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
		rows, err := conn.Query(ctx, "SELECT source, seq, content, content_hash, embedding, metadata FROM "+
			s.db.tb.chunks[owner.Kind]+" WHERE tenant_id = $1 AND owner_id = $2 ORDER BY source, seq", s.tenant, owner.ID)
		if err != nil {
			return wrapCtx(ctx, "chunks", err)
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Chunk, error) {
			c := storage.Chunk{Owner: owner}
			var (
				src string
				emb *pgvector.Vector
			)
			if err := r.Scan(&src, &c.Seq, &c.Content, &c.ContentHash, &emb, &c.Metadata); err != nil {
				return c, err
			}
			c.Source = storage.ChunkSource(src)
			if emb != nil {
				c.Embedding = emb.Slice()
			}
			c.Metadata = nilIfEmptyMap(c.Metadata)
			return c, nil
		})
		if err != nil {
			return wrapCtx(ctx, "chunks", err)
		}
		return nil
	})
	return out, err
}

func badKind(kind storage.OwnerKind) error {
	return fmt.Errorf("postgres: %w", &storage.ValidationError{Field: "kind", Reason: fmt.Sprintf("want item|faq|document, got %q", kind), Err: storage.ErrInvalidRecord})
}

// Analyze refreshes PostgreSQL's planner statistics of kind's tables (the
// owners, their chunks and, for items, their files) with ANALYZE. The
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
	tables := []string{tb.owners[kind], tb.chunks[kind]}
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
