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

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
)

// Apply validates the whole batch (storage.ValidateBatch, which also
// rejects the text PostgreSQL cannot store: invalid UTF-8 and NUL bytes)
// and then writes it in one transaction: records first, then chunk
// replacements, then deletions.
// A chunk replacement naming an owner that neither exists nor is written by
// the batch fails it with storage.ErrNotFound; deleting a missing owner is
// not an error. When an owner appears in several chunk replacements, the
// last one wins.
func (s *Store) Apply(ctx context.Context, b storage.Batch) error {
	if err := storage.ValidateBatch(&b, s.db.opts.Dimensions); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if b.Empty() {
		return s.db.ensure(ctx)
	}
	return s.withConn(ctx, func(conn *pgxpool.Conn) error {
		if err := s.addWords(ctx, conn, &b); err != nil {
			return err
		}
		return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			return s.apply(ctx, tx, &b)
		})
	})
}

// addWords inserts the words and tokens of the batch's active records
// missing from the tenant's dictionaries (see migrations 0003 and 0006),
// sorted, one statement per kind and dictionary, each committed on its own
// before the batch's transaction starts.
//
// The owner tables' triggers would insert them anyway, but word by word
// inside the batch's transaction: two batches introducing the same new
// words in different orders could then wait for each other (a deadlock).
// Here each statement takes its words in one order and commits at once.
// A word added for a batch that then fails stays in the dictionary with no
// postings, where it matches nothing.
func (s *Store) addWords(ctx context.Context, conn *pgxpool.Conn, b *storage.Batch) error {
	for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
		var texts []string
		switch kind {
		case storage.KindItem:
			for i := range b.Items {
				if b.Items[i].Status.Active() {
					texts = append(texts, storage.ItemSearchText(&b.Items[i]))
				}
			}
		case storage.KindFAQ:
			for i := range b.FAQs {
				if b.FAQs[i].Status.Active() {
					texts = append(texts, storage.FAQSearchText(&b.FAQs[i]))
				}
			}
		case storage.KindDocument:
			for i := range b.Documents {
				if b.Documents[i].Status.Active() {
					texts = append(texts, storage.DocumentSearchText(&b.Documents[i]))
				}
			}
		}
		if len(texts) == 0 {
			continue
		}
		for _, d := range []struct {
			table string
			each  func(string, func(string))
		}{{s.db.tb.words[kind], eachWord}, {s.db.tb.tokens[kind], eachToken}} {
			set := map[string]struct{}{}
			for _, text := range texts {
				d.each(text, func(w string) { set[w] = struct{}{} })
			}
			if len(set) == 0 {
				continue
			}
			words := make([]string, 0, len(set))
			for w := range set {
				words = append(words, w)
			}
			slices.Sort(words)
			// Words already in the dictionary are filtered out first, so
			// that the common case (no new word) takes no row lock.
			if _, err := conn.Exec(ctx, "INSERT INTO "+d.table+` (tenant_id, word)
			SELECT $1, w FROM unnest($2::text[]) AS w
			WHERE NOT EXISTS (SELECT 1 FROM `+d.table+` d WHERE d.tenant_id = $1 AND d.word = w)
			ORDER BY w ON CONFLICT DO NOTHING`, s.tenant, words); err != nil {
				return wrapCtx(ctx, "write records: add words", err)
			}
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, tx pgx.Tx, b *storage.Batch) error {
	now := s.db.timestamp()
	if len(b.Items)+len(b.FAQs)+len(b.Documents) > 0 {
		// Rows are written in ID order (stable, so the last duplicate still
		// wins): concurrent batches touching the same records then lock
		// them in the same order and cannot deadlock each other.
		batch := &pgx.Batch{}
		queueRecords(s, batch, items, b.Items, now)
		queueRecords(s, batch, faqs, b.FAQs, now)
		queueRecords(s, batch, docs, b.Documents, now)
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

// queueRecords queues the writes of records of kind k, in ID order
// (stable, so the last of two records with one ID wins).
func queueRecords[T any](s *Store, batch *pgx.Batch, k pgKind[T], recs []T, now time.Time) {
	idx := make([]int, len(recs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return strings.Compare(k.id(&recs[i]), k.id(&recs[j])) })
	for _, i := range idx {
		k.queue(s, batch, &recs[i], now)
	}
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
			for _, c := range storeutil.PrepareChunks(oc.Owner, oc.Chunks) {
				var emb any
				if c.Embedding != nil {
					emb = pgvector.NewVector(c.Embedding)
				}
				var norm any // NULL for no metadata (migration 0004)
				if m := storeutil.NormalizeChunkMetadata(c.Metadata); m != nil {
					norm = m
				}
				rows = append(rows, []any{s.tenant, c.Owner.ID, string(c.Source), int32(c.Seq), c.Content, c.ContentHash, emb,
					int64(c.Start), orEmpty(c.HeadingPath), c.File, orEmptyMap(c.Metadata), norm})
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
			[]string{"tenant_id", "owner_id", "source", "seq", "content", "content_hash", "embedding",
				"start_offset", "heading_path", "file_name", "metadata", "metadata_norm"},
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
