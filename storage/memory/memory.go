package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Options configure a DB. The zero value works: 1536 dimensions, no metadata
// filter keys allowed.
type Options struct {
	// Dimensions is the length every embedding must have; zero means
	// vector.DefaultDimensions (1536). Load treats zero as "whatever the snapshot holds".
	Dimensions int
	// AllowedMetadataKeys lists the metadata keys that filters may name;
	// filters on other keys fail with storage.ErrInvalidFilter.
	AllowedMetadataKeys []string
}

// DB is an in-memory database holding any number of tenants. It does no
// I/O; see Save and Load to persist it.
//
// A DB is safe for concurrent use.
type DB struct {
	dims    int
	allowed []string
	now     func() time.Time

	mu      sync.RWMutex
	tenants map[string]*tenant
}

// New returns an empty DB. It does no I/O. A negative Dimensions is treated
// as zero (the default).
func New(opts Options) *DB {
	dims := opts.Dimensions
	if dims <= 0 {
		dims = vector.DefaultDimensions
	}
	return &DB{
		dims:    dims,
		allowed: slices.Clone(opts.AllowedMetadataKeys),
		now:     time.Now,
		tenants: make(map[string]*tenant),
	}
}

// Dimensions is the length every embedding stored in db must have.
func (db *DB) Dimensions() int { return db.dims }

// Tenant returns the store of one tenant, creating the tenant on first use.
// Tenants are fully isolated: nothing written through one Store is visible
// through another tenant's. The ID must pass storage.ValidateTenant.
// Calling Tenant twice with the same ID returns stores sharing the same data.
func (db *DB) Tenant(id string) (*Store, error) {
	if err := storage.ValidateTenant(id); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	db.mu.RLock()
	t := db.tenants[id]
	db.mu.RUnlock()
	if t == nil {
		db.mu.Lock()
		if t = db.tenants[id]; t == nil {
			t = newTenant(db.dims)
			db.tenants[id] = t
		}
		db.mu.Unlock()
	}
	return &Store{db: db, id: id, t: t}, nil
}

// Tenants returns the IDs of the tenants that hold at least one record,
// sorted.
func (db *DB) Tenants() []string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	ids := make([]string, 0, len(db.tenants))
	for id, t := range db.tenants {
		t.mu.RLock()
		empty := t.empty()
		t.mu.RUnlock()
		if !empty {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Store is one tenant's view of a DB. It implements storage.Backend (a
// storage.Store and its storage.BatchWriter): Items, FAQs and Documents
// are this package's one generic storage.RecordStore, for each kind.
//
// A Store is safe for concurrent use. Each write (including a whole
// storage.Batch) is validated completely before anything changes and is
// then applied under the tenant's write lock, so readers see either none or
// all of it.
type Store struct {
	db *DB
	id string
	t  *tenant
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

// Version returns the tenant's change marker: the number of writes
// (applied batches and deletes) the tenant has seen in this process. A
// DB loaded from a snapshot starts its tenants at 1.
func (s *Store) Version(ctx context.Context) (uint64, error) {
	if err := ctxErr(ctx); err != nil {
		return 0, err
	}
	return s.t.version.Load(), nil
}

// Dimensions is the length every embedding must have.
func (s *Store) Dimensions() int { return s.db.dims }

// timestamp returns the clock's time as stored: UTC, microseconds.
func (db *DB) timestamp() time.Time { return storedTime(db.now()) }

func storedTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// ctxErr returns ctx's error, wrapped, or nil.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}

func notFound(ref storage.OwnerRef) error {
	return fmt.Errorf("memory: %s %s: %w", ref.Kind, storage.QuoteID(ref.ID), storage.ErrNotFound)
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("memory: %w", err)
}
