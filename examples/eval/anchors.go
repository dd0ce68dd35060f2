package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
)

// Anchors are the engines hybridrag is compared with, run over the same
// records and queries in the same process, so that their figures sit in
// the same table as ours:
//
//   - seed-sql: the seeds' lexical SQL alone (seed 000): the query's
//     tokens (stopwords out, at most 8, the whole normalized query when
//     none survives) matched as substrings of the accent-folded,
//     lower-cased fields (ILIKE '%term%' on translate(lower(field))),
//     OR across fields and terms, ranked by the number of terms matched,
//     ties by createdAt desc (the later record of a sequential load). It
//     searches the record's own fields, not attached files, as the seeds
//     did.
//   - pg-fts: PostgreSQL full-text search as a team would first write it:
//     to_tsvector('portuguese', fields and attached files, concatenated)
//     @@ plainto_tsquery('portuguese',
//     query), ranked by ts_rank (ties by ID). plainto_tsquery ANDs every
//     word, so natural questions often match nothing.
//   - pg-fts-or: the same with the query's lexemes ORed, the usual first
//     fix, still ranked by ts_rank.
//
// The pg-* anchors need -anchor-db: the records are copied into a
// temporary table of that database (nothing else is touched).
const (
	anchorSeedSQL = "seed-sql"
	anchorFTS     = "pg-fts"
	anchorFTSOr   = "pg-fts-or"
)

// anchorPrefix prefixes the anchors' mode names in reports.
const anchorPrefix = "anchor-"

var knownAnchors = []string{anchorSeedSQL, anchorFTS, anchorFTSOr}

// parseAnchors parses the -anchors list.
func parseAnchors(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "all" {
			out = append(out, knownAnchors...)
			continue
		}
		if !slices.Contains(knownAnchors, a) {
			return nil, fmt.Errorf("unknown anchor %q (want %s or all)", a, strings.Join(knownAnchors, "|"))
		}
		out = append(out, a)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// anchorDoc is one record as the anchors see it: its ID and the fields
// the seeds' SQL (and the full-text document) cover.
type anchorDoc struct {
	id     string
	fields []string
	files  []string // attached file text: full-text search covers it, the seeds' SQL did not
}

// anchorDocs returns the records of src in load order.
func anchorDocs(src ingest.Sources) []anchorDoc {
	var out []anchorDoc
	for _, it := range src.Items {
		if !it.Status.Active() {
			continue
		}
		f := []string{it.Name, it.Description, it.Category, it.Manufacturer}
		var files []string
		for _, fl := range it.Files {
			files = append(files, fl.Text)
		}
		out = append(out, anchorDoc{it.ID, append(f, it.Tags...), files})
	}
	for _, q := range src.FAQs {
		if !q.Status.Active() {
			continue
		}
		f := []string{q.Question, q.Answer, q.Category}
		out = append(out, anchorDoc{q.ID, append(f, q.Keywords...), nil})
	}
	for _, d := range src.Documents {
		out = append(out, anchorDoc{d.ID, []string{d.Title, d.Content}, nil})
	}
	return out
}

// seedSQLSearch returns the seed-sql anchor over docs.
func seedSQLSearch(docs []anchorDoc) eval.SearchFunc {
	norm := make([][]string, len(docs))
	for i, d := range docs {
		norm[i] = make([]string, len(d.fields))
		for j, f := range d.fields {
			norm[i][j] = lexical.Normalize(f)
		}
	}
	return func(ctx context.Context, q rag.Query) ([]string, error) {
		terms := lexical.Tokens(q.Text)
		if len(terms) == 0 {
			if n := lexical.Normalize(q.Text); n != "" {
				terms = []string{n}
			}
		}
		type hit struct{ doc, matched int }
		var hits []hit
		for i, fields := range norm {
			m := 0
			for _, t := range terms {
				for _, f := range fields {
					if strings.Contains(f, t) {
						m++
						break
					}
				}
			}
			if m > 0 {
				hits = append(hits, hit{i, m})
			}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			if a.matched != b.matched {
				return b.matched - a.matched
			}
			return b.doc - a.doc // createdAt desc of a sequential load
		})
		ids := make([]string, 0, min(len(hits), q.Limit))
		for _, h := range hits[:min(len(hits), q.Limit)] {
			ids = append(ids, docs[h.doc].id)
		}
		return ids, ctx.Err()
	}
}

// ftsAnchor holds the connection and temporary table of the pg-* anchors.
type ftsAnchor struct {
	conn *pgx.Conn
}

// openFTS connects to dsn and copies docs into a temporary table with a
// GIN-indexed Portuguese tsvector.
func openFTS(ctx context.Context, dsn string, docs []anchorDoc) (*ftsAnchor, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("anchor database: %w", err)
	}
	a := &ftsAnchor{conn: conn}
	if err := a.load(ctx, docs); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

func (a *ftsAnchor) load(ctx context.Context, docs []anchorDoc) error {
	if _, err := a.conn.Exec(ctx, `CREATE TEMP TABLE anchor_docs (id text PRIMARY KEY, body text NOT NULL, doc tsvector)`); err != nil {
		return fmt.Errorf("anchor table: %w", err)
	}
	rows := make([][]any, len(docs))
	for i, d := range docs {
		rows[i] = []any{d.id, strings.Join(slices.Concat(d.fields, d.files), " ")}
	}
	if _, err := a.conn.CopyFrom(ctx, pgx.Identifier{"anchor_docs"}, []string{"id", "body"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("anchor copy: %w", err)
	}
	for _, sql := range []string{
		`UPDATE anchor_docs SET doc = to_tsvector('portuguese', body)`,
		`CREATE INDEX ON anchor_docs USING gin (doc)`,
		`ANALYZE anchor_docs`,
	} {
		if _, err := a.conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("anchor index: %w", err)
		}
	}
	return nil
}

func (a *ftsAnchor) close() { a.conn.Close(context.Background()) }

// search returns the pg-fts (or, with or, pg-fts-or) anchor.
func (a *ftsAnchor) search(or bool) eval.SearchFunc {
	query := `plainto_tsquery('portuguese', $1)`
	if or {
		query = `replace(plainto_tsquery('portuguese', $1)::text, ' & ', ' | ')::tsquery`
	}
	sql := `SELECT id FROM anchor_docs, (SELECT ` + query + ` AS q) t WHERE doc @@ q ORDER BY ts_rank(doc, q) DESC, id LIMIT $2`
	return func(ctx context.Context, q rag.Query) ([]string, error) {
		rows, err := a.conn.Query(ctx, sql, q.Text, q.Limit)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[string])
	}
}

// runAnchors evaluates the anchors over the records of src and adds their
// modes to rep.
func runAnchors(ctx context.Context, cfg *config, src ingest.Sources, queries []eval.Query, qrels eval.Qrels, rep *eval.Report, opts eval.Options) error {
	if len(cfg.anchors) == 0 {
		return nil
	}
	docs := anchorDocs(src)
	var fts *ftsAnchor
	if slices.Contains(cfg.anchors, anchorFTS) || slices.Contains(cfg.anchors, anchorFTSOr) {
		var err error
		if fts, err = openFTS(ctx, cfg.anchorDB, docs); err != nil {
			return err
		}
		defer fts.close()
	}
	for _, name := range cfg.anchors {
		var search eval.SearchFunc
		switch name {
		case anchorSeedSQL:
			search = seedSQLSearch(docs)
		case anchorFTS:
			search = fts.search(false)
		case anchorFTSOr:
			search = fts.search(true)
		}
		o := opts
		o.Configs = []eval.Config{{Name: anchorPrefix + name}}
		r, err := eval.Run(ctx, search, queries, qrels, o)
		if err != nil {
			return fmt.Errorf("anchor %s: %w", name, err)
		}
		for _, m := range r.Order {
			rep.Modes[m] = r.Modes[m]
			rep.Order = append(rep.Order, m)
		}
	}
	return nil
}
