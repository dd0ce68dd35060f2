package postgres

import "context"

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
