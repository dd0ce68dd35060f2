package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/storage"
)

// UpsertItems inserts or replaces items, with their files, in one
// transaction. A zero CreatedAt keeps the stored one (or is set to now for
// a new item); UpdatedAt is always set to now. An empty Status is stored as
// active.
func (s *Store) UpsertItems(ctx context.Context, items []storage.CatalogItem) error {
	return s.Apply(ctx, storage.Batch{Items: items})
}

// UpsertFAQs inserts or replaces FAQs in one transaction.
func (s *Store) UpsertFAQs(ctx context.Context, faqs []storage.FAQ) error {
	return s.Apply(ctx, storage.Batch{FAQs: faqs})
}

// UpsertDocuments inserts or replaces documents in one transaction; an
// empty ContentHash is filled from Content.
func (s *Store) UpsertDocuments(ctx context.Context, docs []storage.Document) error {
	return s.Apply(ctx, storage.Batch{Documents: docs})
}

// ReplaceChunks atomically replaces all chunks of owner. The owner must
// exist (storage.ErrNotFound otherwise); every chunk and embedding is
// validated before anything is written.
func (s *Store) ReplaceChunks(ctx context.Context, owner storage.OwnerRef, chunks []storage.Chunk) error {
	return s.Apply(ctx, storage.Batch{Chunks: []storage.OwnerChunks{{Owner: owner, Chunks: chunks}}})
}

// Apply validates the whole batch (storage.ValidateBatch, plus text
// PostgreSQL cannot store: invalid UTF-8 and NUL bytes) and then writes it in
// one transaction: records first, then chunk replacements, then deletions.
// A chunk replacement naming an owner that neither exists nor is written by
// the batch fails it with storage.ErrNotFound; deleting a missing owner is
// not an error. When an owner appears in several chunk replacements, the
// last one wins.
func (s *Store) Apply(ctx context.Context, b storage.Batch) error {
	if err := storage.ValidateBatch(&b, s.db.opts.Dimensions); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := checkBatchText(&b); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if b.Empty() {
		return s.db.ensure(ctx)
	}
	return s.withConn(ctx, func(conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			return s.apply(ctx, tx, &b)
		})
	})
}

func (s *Store) apply(ctx context.Context, tx pgx.Tx, b *storage.Batch) error {
	now := s.db.timestamp()
	if len(b.Items)+len(b.FAQs)+len(b.Documents) > 0 {
		// Rows are written in ID order (stable, so the last duplicate still
		// wins): concurrent batches touching the same records then lock
		// them in the same order and cannot deadlock each other.
		batch := &pgx.Batch{}
		for _, i := range idOrder(len(b.Items), func(i int) string { return b.Items[i].ID }) {
			s.queueItem(batch, &b.Items[i], now)
		}
		for _, i := range idOrder(len(b.FAQs), func(i int) string { return b.FAQs[i].ID }) {
			s.queueFAQ(batch, &b.FAQs[i], now)
		}
		for _, i := range idOrder(len(b.Documents), func(i int) string { return b.Documents[i].ID }) {
			s.queueDoc(batch, &b.Documents[i], now)
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return wrapCtx(ctx, "write records", err)
		}
	}
	if len(b.Chunks) > 0 {
		if err := s.replaceChunks(ctx, tx, b.Chunks); err != nil {
			return err
		}
	}
	for _, ref := range b.Deletes {
		if _, err := tx.Exec(ctx, "DELETE FROM "+s.db.tb.owners[ref.Kind]+" WHERE tenant_id = $1 AND id = $2", s.tenant, ref.ID); err != nil {
			return wrapCtx(ctx, "delete "+string(ref.Kind), err)
		}
	}
	return nil
}

// idOrder returns the indexes 0..n-1 sorted stably by id(i).
func idOrder(n int, id func(int) string) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(id(a), id(b)) })
	return idx
}

// createdAt returns t as stored, or nil (SQL NULL) when t is zero so that
// the statement keeps the stored value or uses now.
func createdAt(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return storedTime(t)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmptyMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func (s *Store) queueItem(batch *pgx.Batch, it *storage.CatalogItem, now time.Time) {
	fv := storage.ItemFilterValues(it)
	batch.Queue(`INSERT INTO `+s.db.tb.items+` AS t (tenant_id, id, name, description, category, manufacturer,
			tags, price, active, metadata, search_text, category_norm, manufacturer_norm, tags_norm, metadata_norm,
			created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, COALESCE($16::timestamptz, $17::timestamptz), $17)
		ON CONFLICT (tenant_id, id) DO UPDATE SET
			name = EXCLUDED.name, description = EXCLUDED.description, category = EXCLUDED.category,
			manufacturer = EXCLUDED.manufacturer, tags = EXCLUDED.tags, price = EXCLUDED.price,
			active = EXCLUDED.active, metadata = EXCLUDED.metadata, search_text = EXCLUDED.search_text,
			category_norm = EXCLUDED.category_norm, manufacturer_norm = EXCLUDED.manufacturer_norm,
			tags_norm = EXCLUDED.tags_norm, metadata_norm = EXCLUDED.metadata_norm,
			created_at = COALESCE($16::timestamptz, t.created_at), updated_at = EXCLUDED.updated_at`,
		s.tenant, it.ID, it.Name, it.Description, it.Category, it.Manufacturer,
		orEmpty(it.Tags), it.Price, it.Active(), orEmptyMap(it.Metadata), storage.ItemSearchText(it),
		fv.Category, fv.Manufacturer, orEmpty(fv.Tags), orEmptyMap(fv.Metadata),
		createdAt(it.CreatedAt), now)
	batch.Queue("DELETE FROM "+s.db.tb.files+" WHERE tenant_id = $1 AND item_id = $2", s.tenant, it.ID)
	if len(it.Files) > 0 {
		names := make([]string, len(it.Files))
		bodies := make([]string, len(it.Files))
		for i, f := range it.Files {
			names[i], bodies[i] = f.Name, f.Text
		}
		batch.Queue(`INSERT INTO `+s.db.tb.files+` (tenant_id, item_id, seq, name, body)
			SELECT $1, $2, f.ord - 1, f.name, f.body FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS f(name, body, ord)`,
			s.tenant, it.ID, names, bodies)
	}
}

func (s *Store) queueFAQ(batch *pgx.Batch, f *storage.FAQ, now time.Time) {
	fv := storage.FAQFilterValues(f)
	batch.Queue(`INSERT INTO `+s.db.tb.faqs+` AS t (tenant_id, id, question, answer, category, keywords, priority,
			active, search_text, category_norm, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, COALESCE($11::timestamptz, $12::timestamptz), $12)
		ON CONFLICT (tenant_id, id) DO UPDATE SET
			question = EXCLUDED.question, answer = EXCLUDED.answer, category = EXCLUDED.category,
			keywords = EXCLUDED.keywords, priority = EXCLUDED.priority, active = EXCLUDED.active,
			search_text = EXCLUDED.search_text, category_norm = EXCLUDED.category_norm,
			created_at = COALESCE($11::timestamptz, t.created_at), updated_at = EXCLUDED.updated_at`,
		s.tenant, f.ID, f.Question, f.Answer, f.Category, orEmpty(f.Keywords), f.Priority,
		f.Active(), storage.FAQSearchText(f), fv.Category,
		createdAt(f.CreatedAt), now)
}

func (s *Store) queueDoc(batch *pgx.Batch, d *storage.Document, now time.Time) {
	fv := storage.DocumentFilterValues(d)
	hash := d.ContentHash
	if hash == "" {
		hash = storage.ContentHash(d.Content)
	}
	batch.Queue(`INSERT INTO `+s.db.tb.docs+` AS t (tenant_id, id, source, title, content, content_hash, metadata,
			search_text, source_norm, metadata_norm, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, COALESCE($11::timestamptz, $12::timestamptz), $12)
		ON CONFLICT (tenant_id, id) DO UPDATE SET
			source = EXCLUDED.source, title = EXCLUDED.title, content = EXCLUDED.content,
			content_hash = EXCLUDED.content_hash, metadata = EXCLUDED.metadata,
			search_text = EXCLUDED.search_text, source_norm = EXCLUDED.source_norm,
			metadata_norm = EXCLUDED.metadata_norm,
			created_at = COALESCE($11::timestamptz, t.created_at), updated_at = EXCLUDED.updated_at`,
		s.tenant, d.ID, d.Source, d.Title, d.Content, hash, orEmptyMap(d.Metadata),
		storage.DocumentSearchText(d), fv.Source, orEmptyMap(fv.Metadata),
		createdAt(d.CreatedAt), now)
}

// replaceChunks checks that every owner exists, deletes the owners' chunks
// and copies the new ones in, one kind at a time.
func (s *Store) replaceChunks(ctx context.Context, tx pgx.Tx, reps []storage.OwnerChunks) error {
	// The last replacement of an owner wins.
	last := make(map[storage.OwnerRef]int, len(reps))
	for i, oc := range reps {
		last[oc.Owner] = i
	}
	for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
		var (
			ids  []string
			rows [][]any
		)
		for i, oc := range reps {
			if oc.Owner.Kind != kind || last[oc.Owner] != i {
				continue
			}
			ids = append(ids, oc.Owner.ID)
			for _, c := range storage.PrepareChunks(oc.Owner, oc.Chunks) {
				var emb any
				if c.Embedding != nil {
					emb = pgvector.NewVector(c.Embedding)
				}
				rows = append(rows, []any{s.tenant, c.Owner.ID, string(c.Source), int32(c.Seq), c.Content, c.ContentHash, emb, orEmptyMap(c.Metadata)})
			}
		}
		if len(ids) == 0 {
			continue
		}
		if err := s.checkOwners(ctx, tx, kind, ids); err != nil {
			return err
		}
		table := s.db.tb.chunks[kind]
		if _, err := tx.Exec(ctx, "DELETE FROM "+table+" WHERE tenant_id = $1 AND owner_id = ANY($2)", s.tenant, ids); err != nil {
			return wrapCtx(ctx, "replace chunks: delete", err)
		}
		if len(rows) == 0 {
			continue
		}
		ident := pgx.Identifier{s.db.opts.Schema, chunkTableName(kind)}
		_, err := tx.CopyFrom(ctx, ident,
			[]string{"tenant_id", "owner_id", "source", "seq", "content", "content_hash", "embedding", "metadata"},
			pgx.CopyFromRows(rows))
		if err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == codeForeignKeyViolation {
				// An owner was deleted concurrently after checkOwners.
				return fmt.Errorf("postgres: replace chunks: %w: %w", storage.ErrNotFound, err)
			}
			return wrapCtx(ctx, "replace chunks: copy", err)
		}
	}
	return nil
}

// checkOwners returns ErrNotFound naming the first of ids that is not a
// record of kind in the tenant. The rows are locked (FOR KEY SHARE) so the
// owners cannot be deleted before the transaction ends.
func (s *Store) checkOwners(ctx context.Context, tx pgx.Tx, kind storage.OwnerKind, ids []string) error {
	rows, err := tx.Query(ctx, "SELECT id FROM "+s.db.tb.owners[kind]+" WHERE tenant_id = $1 AND id = ANY($2) FOR KEY SHARE", s.tenant, ids)
	if err != nil {
		return wrapCtx(ctx, "replace chunks: check owners", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return wrapCtx(ctx, "replace chunks: check owners", err)
	}
	if len(found) == len(ids) {
		return nil
	}
	have := make(map[string]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	for _, id := range ids {
		if !have[id] {
			return notFound(storage.OwnerRef{Kind: kind, ID: id})
		}
	}
	return nil
}

func chunkTableName(kind storage.OwnerKind) string {
	switch kind {
	case storage.KindFAQ:
		return "faq_chunks"
	case storage.KindDocument:
		return "document_chunks"
	}
	return "item_chunks"
}
