package postgres

import (
	"context"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/storage"
)

// MigrateTo applies the migrations up to version last, for tests of
// upgrades from older schemas.
func MigrateTo(ctx context.Context, db *DB, last int) error { return db.migrateTo(ctx, last) }

// SetExactScanChunks sets the most chunks a restricted search treats as
// few (exact scan, direct term counts) until the test ends.
func SetExactScanChunks(t interface{ Cleanup(func()) }, n int) {
	old := exactScanChunks
	exactScanChunks = n
	t.Cleanup(func() { exactScanChunks = old })
}

// SetLexLimits sets how many levels a lexical search walks before its
// bounded ranking, and the postings counted per term before a sample of
// the 2 × cap newest owners orders them, until the test ends.
func SetLexLimits(t interface{ Cleanup(func()) }, levels, cap int) {
	oldLevels, oldCap, oldSample := maxLevels, postingsCap, sampleOwners
	maxLevels, postingsCap, sampleOwners = levels, cap, 2*cap
	t.Cleanup(func() { maxLevels, postingsCap, sampleOwners = oldLevels, oldCap, oldSample })
}

// ExplainVectorOrder returns the plan of the nearest-chunks query shape
// that searches kind's chunk table on its HNSW index, sequential scans
// off: it names the index when the query's ORDER BY matches it.
func ExplainVectorOrder(ctx context.Context, db *DB, kind storage.OwnerKind, v []float32) (string, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback(ctx) }() // read-only
	if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
		return "", err
	}
	rows, err := tx.Query(ctx, "EXPLAIN SELECT c.owner_id FROM "+db.tb.chunks[kind]+" c ORDER BY "+db.vectorOrder("c", "$1")+" LIMIT 10",
		pgvector.NewVector(v))
	if err != nil {
		return "", err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strings.Join(lines, "\n"), err
}

// SetTextProbeWords sets textProbeWords (the most dictionary words of a
// term probed by postings) until the test ends.
func SetTextProbeWords(t interface{ Cleanup(func()) }, n int) {
	old := textProbeWords
	textProbeWords = n
	t.Cleanup(func() { textProbeWords = old })
}

// Tokens returns the distinct tokens of text (eachToken), sorted.
func Tokens(text string) []string {
	var out []string
	eachToken(text, func(w string) { out = append(out, w) })
	slices.Sort(out)
	return slices.Compact(out)
}

// SetCommonDensity sets commonDensity (the share of owners from which a
// term is common: probed, not walked, by the score-bounded ranking) until
// the test ends.
func SetCommonDensity(t interface{ Cleanup(func()) }, d float64) {
	old := commonDensity
	commonDensity = d
	t.Cleanup(func() { commonDensity = old })
}

// MaxScoreKept returns how many score-bounded rankings (lexPlan.maxScore)
// searches have kept so far.
func MaxScoreKept() int64 { return maxScoreKept.Load() }

// LevelsBatched returns how many lexical levels were sent in one
// statement with the level before them (lexPlan.levelPair).
func LevelsBatched() int64 { return levelsBatched.Load() }
