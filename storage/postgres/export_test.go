package postgres

import "context"

// MigrateTo applies the migrations up to version last, for tests of
// upgrades from older schemas.
func MigrateTo(ctx context.Context, db *DB, last int) error { return db.migrateTo(ctx, last) }
