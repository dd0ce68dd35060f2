package postgres

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
)

// pgKind is what the code shared by the three kinds of record needs to know
// about one of them, T (storage.CatalogItem, storage.FAQ or
// storage.Document): how to read, write and check it. Everything else
// (get, list, delete, search, the statements' common parts) is written
// once, generically, in store.go, search.go and write.go.
type pgKind[T any] struct {
	kind storage.OwnerKind
	id   func(*T) string
	// cols is the select list of the kind's own columns from its owner
	// table aliased i; selectList adds what every record has. scan reads a
	// row selected with selectList (and then extra), with scanRecord.
	cols func(*tables) string
	scan func(row pgx.Row, extra ...any) (T, error)
	// queue queues the statements that insert or replace rec, with
	// queueUpsert.
	queue func(s *Store, b *pgx.Batch, rec *T, now time.Time)
	// many, when set, is GetMany's reader of the kind (its own statement,
	// $1 the tenant, $2 the IDs, and the scan of its rows); otherwise
	// GetMany selects selectList and scans it with scan.
	many func(tb *tables) manyReader[T]
}

// manyReader is a kind's own statement for GetMany: sql selects the
// records of tenant $1 whose IDs are in $2, in any order, and add reads
// one of its rows into the records read so far (by ID), which end
// complete after the last row.
type manyReader[T any] struct {
	sql string
	add func(row pgx.Row, byID map[string]T) error
}

// recordCols are the columns every owner table has, selected after the
// kind's own (see scanRecord).
const recordCols = "i.active, i.created_at, i.updated_at"

// table is the kind's owner table.
func (k pgKind[T]) table(s *Store) string { return s.db.tb.owners[k.kind] }

// selectList is the select list of a record of the kind.
func (k pgKind[T]) selectList(tb *tables) string { return k.cols(tb) + ", " + recordCols }

// selectFrom returns "SELECT <selectList> FROM <table> i WHERE i.tenant_id
// = $1 AND <where>".
func (k pgKind[T]) selectFrom(s *Store, where string) string {
	return "SELECT " + k.selectList(&s.db.tb) + " FROM " + k.table(s) + " i WHERE i.tenant_id = $1 AND " + where
}

// scanRecord scans a row selected with selectList into own (the
// destinations of the kind's columns), then the columns every record has
// into status, created and updated, then extra.
func scanRecord(row pgx.Row, own []any, status *storage.Status, created, updated *time.Time, extra []any) error {
	var active bool
	if err := row.Scan(append(append(own, &active, created, updated), extra...)...); err != nil {
		return err
	}
	*status = storage.StatusInactive
	if active {
		*status = storage.StatusActive
	}
	*created, *updated = created.UTC(), updated.UTC()
	return nil
}

// colValue is a column of an owner row and the value written to it.
type colValue struct {
	name  string
	value any
}

// queueUpsert queues the statement inserting or replacing the row id of
// kind's owner table, with every record's columns (active, created_at,
// updated_at) and the kind's own cols:
//
//	INSERT INTO <table> AS t (tenant_id, id, <cols>, active, created_at, updated_at)
//	VALUES ($1, $2, ..., $a, COALESCE($c::timestamptz, $u::timestamptz), $u)
//	ON CONFLICT (tenant_id, id) DO UPDATE SET <col> = EXCLUDED.<col>, ...,
//	    active = EXCLUDED.active, created_at = COALESCE($c::timestamptz, t.created_at),
//	    updated_at = EXCLUDED.updated_at
//
// A zero created keeps the stored created_at (now for a new row); updated_at
// is always now. Every value is a bound parameter.
func (s *Store) queueUpsert(batch *pgx.Batch, kind storage.OwnerKind, id string, active bool, created, now time.Time, cols ...colValue) {
	cols = append(cols, colValue{"active", active})
	args := make([]any, 0, len(cols)+4)
	args = append(args, s.tenant, id)
	names := make([]string, len(cols))
	params := make([]string, len(cols))
	sets := make([]string, len(cols))
	for i, c := range cols {
		args = append(args, c.value)
		names[i], params[i], sets[i] = c.name, "$"+strconv.Itoa(len(args)), c.name+" = EXCLUDED."+c.name
	}
	args = append(args, createdAt(created), now)
	c, u := "$"+strconv.Itoa(len(args)-1), "$"+strconv.Itoa(len(args))
	batch.Queue("INSERT INTO "+s.db.tb.owners[kind]+" AS t (tenant_id, id, "+strings.Join(names, ", ")+", created_at, updated_at)\n"+
		"VALUES ($1, $2, "+strings.Join(params, ", ")+", COALESCE("+c+"::timestamptz, "+u+"::timestamptz), "+u+")\n"+
		"ON CONFLICT (tenant_id, id) DO UPDATE SET "+strings.Join(sets, ", ")+
		", created_at = COALESCE("+c+"::timestamptz, t.created_at), updated_at = EXCLUDED.updated_at", args...)
}

// Catalog items, with their files (table item_files, in file order).

var items = pgKind[storage.CatalogItem]{
	kind: storage.KindItem, id: func(it *storage.CatalogItem) string { return it.ID },
	cols: itemCols, scan: scanItem, queue: (*Store).queueItem, many: itemsMany,
}

// itemOwnCols are an item's columns of the items table.
const itemOwnCols = `i.id, i.name, i.description, i.category, i.manufacturer, i.tags, i.price, i.metadata`

// itemCols selects an item's files in one subquery, one index scan of
// item_files per item: an array of each file's name then body, in file
// order ({name1, body1, name2, body2, ...}; both columns are NOT NULL).
// Two subqueries, one for the names and one for the bodies, scanned the
// files twice (the lexical leg reads 60 items a search).
func itemCols(tb *tables) string {
	return itemOwnCols + `,
		ARRAY(SELECT v.x FROM ` + tb.files + ` f CROSS JOIN LATERAL (VALUES (1, f.name), (2, f.body)) v(k, x)
			WHERE f.tenant_id = i.tenant_id AND f.item_id = i.id ORDER BY f.seq, v.k)`
}

func scanItem(row pgx.Row, extra ...any) (storage.CatalogItem, error) {
	var (
		it    storage.CatalogItem
		files []string // name, body, name, body, ...
	)
	err := scanRecord(row, []any{&it.ID, &it.Name, &it.Description, &it.Category, &it.Manufacturer, &it.Tags, &it.Price,
		stringMap{&it.Metadata}, &files}, &it.Status, &it.CreatedAt, &it.UpdatedAt, extra)
	if err == nil && len(files)%2 != 0 {
		err = fmt.Errorf("item %q: odd number of file fields (%d)", it.ID, len(files))
	}
	if err == nil && len(files) > 0 {
		it.Files = make([]storage.CatalogFile, len(files)/2)
		for i := range it.Files {
			it.Files[i] = storage.CatalogFile{ItemID: it.ID, Name: files[2*i], Text: files[2*i+1]}
		}
	}
	it.Tags = nilIfEmpty(it.Tags)
	it.Metadata = nilIfEmptyMap(it.Metadata)
	return it, err
}

// itemsMany reads items by ID with their files joined, one row per file
// (an item without files: one row of NULLs), instead of the file
// subqueries of itemCols (then two), run once per item: 0.435 against 0.603 ms
// (medians) for 50 AGROFIT items in psql, the records of a hybrid
// search's vector hits, read on its critical path. An item's files are
// put back in seq order.
func itemsMany(tb *tables) manyReader[storage.CatalogItem] {
	sql := `SELECT ` + itemOwnCols + `, ` + recordCols + `, f.seq, f.name, f.body FROM ` + tb.owners[storage.KindItem] + ` i
		LEFT JOIN ` + tb.files + ` f ON f.tenant_id = i.tenant_id AND f.item_id = i.id
		WHERE i.tenant_id = $1 AND i.id = ANY($2)`
	seqs := map[string][]int32{} // the seqs of each item's files read so far
	return manyReader[storage.CatalogItem]{sql: sql, add: func(row pgx.Row, byID map[string]storage.CatalogItem) error {
		var (
			it         storage.CatalogItem
			seq        *int32
			name, body *string
		)
		err := scanRecord(row, []any{&it.ID, &it.Name, &it.Description, &it.Category, &it.Manufacturer, &it.Tags, &it.Price,
			stringMap{&it.Metadata}}, &it.Status, &it.CreatedAt, &it.UpdatedAt, []any{&seq, &name, &body})
		if err != nil {
			return err
		}
		prev, seen := byID[it.ID]
		if !seen {
			it.Tags = nilIfEmpty(it.Tags)
			it.Metadata = nilIfEmptyMap(it.Metadata)
			prev = it
		}
		if seq == nil {
			byID[it.ID] = prev
			return nil
		}
		// Rows of the same item may come in any order: f goes to its
		// place among the item's files read so far.
		ss := seqs[it.ID]
		at, _ := slices.BinarySearch(ss, *seq)
		seqs[it.ID] = slices.Insert(ss, at, *seq)
		prev.Files = slices.Insert(prev.Files, at, storage.CatalogFile{ItemID: it.ID, Name: *name, Text: *body})
		byID[it.ID] = prev
		return nil
	}}
}

func (s *Store) queueItem(batch *pgx.Batch, it *storage.CatalogItem, now time.Time) {
	fv := storeutil.ItemFilterValues(it)
	s.queueUpsert(batch, storage.KindItem, it.ID, it.Status.Active(), it.CreatedAt, now,
		colValue{"name", it.Name}, colValue{"description", it.Description}, colValue{"category", it.Category},
		colValue{"manufacturer", it.Manufacturer}, colValue{"tags", orEmpty(it.Tags)}, colValue{"price", it.Price},
		colValue{"metadata", orEmptyMap(it.Metadata)}, colValue{"search_text", storage.ItemSearchText(it)},
		colValue{"category_norm", fv.Category}, colValue{"manufacturer_norm", fv.Manufacturer},
		colValue{"tags_norm", orEmpty(fv.Tags)}, colValue{"metadata_norm", orEmptyMap(fv.Metadata)})
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

// FAQs.

var faqs = pgKind[storage.FAQ]{
	kind: storage.KindFAQ, id: func(f *storage.FAQ) string { return f.ID },
	cols: func(*tables) string { return "i.id, i.question, i.answer, i.category, i.keywords, i.priority" },
	scan: scanFAQ, queue: (*Store).queueFAQ,
}

func scanFAQ(row pgx.Row, extra ...any) (storage.FAQ, error) {
	var f storage.FAQ
	err := scanRecord(row, []any{&f.ID, &f.Question, &f.Answer, &f.Category, &f.Keywords, &f.Priority},
		&f.Status, &f.CreatedAt, &f.UpdatedAt, extra)
	f.Keywords = nilIfEmpty(f.Keywords)
	return f, err
}

func (s *Store) queueFAQ(batch *pgx.Batch, f *storage.FAQ, now time.Time) {
	s.queueUpsert(batch, storage.KindFAQ, f.ID, f.Status.Active(), f.CreatedAt, now,
		colValue{"question", f.Question}, colValue{"answer", f.Answer}, colValue{"category", f.Category},
		colValue{"keywords", orEmpty(f.Keywords)}, colValue{"priority", f.Priority},
		colValue{"search_text", storage.FAQSearchText(f)}, colValue{"category_norm", storeutil.FAQFilterValues(f).Category})
}

// Documents.

var docs = pgKind[storage.Document]{
	kind: storage.KindDocument, id: func(d *storage.Document) string { return d.ID },
	cols: func(*tables) string { return "i.id, i.source, i.title, i.content, i.content_hash, i.metadata" },
	scan: scanDoc, queue: (*Store).queueDoc,
}

func scanDoc(row pgx.Row, extra ...any) (storage.Document, error) {
	var d storage.Document
	err := scanRecord(row, []any{&d.ID, &d.Source, &d.Title, &d.Content, &d.ContentHash, stringMap{&d.Metadata}},
		&d.Status, &d.CreatedAt, &d.UpdatedAt, extra)
	d.Metadata = nilIfEmptyMap(d.Metadata)
	return d, err
}

func (s *Store) queueDoc(batch *pgx.Batch, d *storage.Document, now time.Time) {
	fv := storeutil.DocumentFilterValues(d)
	hash := d.ContentHash
	if hash == "" {
		hash = storage.ContentHash(d.Content)
	}
	s.queueUpsert(batch, storage.KindDocument, d.ID, d.Status.Active(), d.CreatedAt, now,
		colValue{"source", d.Source}, colValue{"title", d.Title}, colValue{"content", d.Content},
		colValue{"content_hash", hash}, colValue{"metadata", orEmptyMap(d.Metadata)},
		colValue{"search_text", storage.DocumentSearchText(d)}, colValue{"source_norm", fv.Source},
		colValue{"metadata_norm", orEmptyMap(fv.Metadata)})
}
