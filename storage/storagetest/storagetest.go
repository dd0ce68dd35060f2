package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hybridrag/hybridrag/storage"
)

// dims is the embedding length the suite uses. Vectors are hand-built from
// values exactly representable in float32 (0, ±1, ±0.5, ±0.25, ...), so
// expected distances are exact in every store.
const dims = 8

// allowedMetadataKeys are the metadata keys the suite filters on (passed
// as Config.AllowedMetadataKeys).
var allowedMetadataKeys = []string{"crop", "lang"}

// Config is what the suite asks of a backing store.
type Config struct {
	// Dims is the embedding length the store must enforce (8: vectors
	// are hand-built from values exact in float32).
	Dims int
	// AllowedMetadataKeys is the metadata filter allowlist the store must
	// use; the suite checks that other keys are rejected with
	// storage.ErrInvalidFilter.
	AllowedMetadataKeys []string
}

// TenantFunc scopes the backing store to one tenant. It must return an
// error wrapping storage.ErrInvalidTenant for an invalid tenant ID.
type TenantFunc func(tenant string) (storage.Backend, error)

// Opener opens a backing store configured by cfg and returns the function
// that scopes it to tenants. Run calls it once per subtest, with that
// subtest's t (use t.Cleanup to release resources, t.Fatal on failure).
//
// The backing store need not be empty: every subtest uses tenant IDs unique
// to the run, so an opener may hand out the same migrated database each time.
type Opener func(t *testing.T, cfg Config) TenantFunc

// Run runs the conformance suite against the store opened by open. Every
// implementation of storage.Backend must pass it. Subtests are independent;
// select them with -run as usual (e.g. -run 'TestConformance/Lexical/').
func Run(t *testing.T, open Opener) {
	t.Helper()
	s := &suite{open: open, run: newRunID()}
	for _, group := range s.groups() {
		t.Run(group.name, func(t *testing.T) {
			for _, tc := range group.tests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, s) })
			}
		})
	}
}

type suite struct {
	open Opener
	run  string
	n    atomic.Int64
}

type testCase struct {
	name string
	fn   func(t *testing.T, s *suite)
}

type group struct {
	name  string
	tests []testCase
}

func (s *suite) groups() []group {
	return []group{
		{"Items", itemTests()},
		{"FAQs", faqTests()},
		{"Documents", documentTests()},
		{"Status", statusTests()},
		{"Lexical", lexicalTests()},
		{"Chunks", chunkTests()},
		{"Vector", vectorTests()},
		{"Restrictions", restrictTests()},
		{"Batch", batchTests()},
		{"Text", textTests()},
		{"IDs", idTests()},
		{"Limits", limitTests()},
		{"Tenancy", tenancyTests()},
		{"Version", versionTests()},
		{"Concurrency", concurrencyTests()},
		{"Cancellation", cancellationTests()},
	}
}

func newRunID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}

// tenants opens the backing store once and returns n fresh, empty tenants
// of it.
func (s *suite) tenants(t *testing.T, n int) []storage.Backend {
	t.Helper()
	open := s.open(t, Config{Dims: dims, AllowedMetadataKeys: append([]string(nil), allowedMetadataKeys...)})
	out := make([]storage.Backend, n)
	for i := range out {
		id := fmt.Sprintf("st-%s-%d", s.run, s.n.Add(1))
		st, err := open(id)
		if err != nil {
			t.Fatalf("open tenant %q: %v", id, err)
		}
		out[i] = st
	}
	return out
}

// store returns one fresh, empty tenant.
func (s *suite) store(t *testing.T) storage.Backend {
	t.Helper()
	return s.tenants(t, 1)[0]
}

// opener returns the tenant function itself, for tests of tenant IDs.
func (s *suite) opener(t *testing.T) TenantFunc {
	t.Helper()
	return s.open(t, Config{Dims: dims, AllowedMetadataKeys: append([]string(nil), allowedMetadataKeys...)})
}

// Fixtures and assertions.

// base is a fixed timestamp with whole seconds, exactly representable in
// Postgres.
var base = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns base plus i hours.
func at(i int) time.Time { return base.Add(time.Duration(i) * time.Hour) }

// vec returns a dims-long vector starting with vals, zero-padded.
func vec(vals ...float32) []float32 {
	v := make([]float32, dims)
	copy(v, vals)
	return v
}

// unit returns the i-th basis vector.
func unit(i int) []float32 {
	v := make([]float32, dims)
	v[i] = 1
	return v
}

func itemRef(id string) storage.OwnerRef { return storage.OwnerRef{Kind: storage.KindItem, ID: id} }
func faqRef(id string) storage.OwnerRef  { return storage.OwnerRef{Kind: storage.KindFAQ, ID: id} }
func docRef(id string) storage.OwnerRef  { return storage.OwnerRef{Kind: storage.KindDocument, ID: id} }

func ptr[T any](v T) *T { return &v }

// cmpOpts compare records: nil and empty slices/maps are equal, times by
// instant, UpdatedAt checked separately.
var cmpOpts = []cmp.Option{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(storage.CatalogItem{}, "UpdatedAt"),
	cmpopts.IgnoreFields(storage.FAQ{}, "UpdatedAt"),
	cmpopts.IgnoreFields(storage.Document{}, "UpdatedAt"),
}

func ctx(t *testing.T) context.Context { return t.Context() }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want one wrapping %v", err, target)
	}
}

func wantCounts(t *testing.T, st storage.Backend, want storage.Counts) {
	t.Helper()
	got, err := st.Counts(ctx(t))
	must(t, err)
	if got != want {
		t.Fatalf("Counts = %+v, want %+v", got, want)
	}
}

func upsertItems(t *testing.T, st storage.Backend, items ...storage.CatalogItem) {
	t.Helper()
	must(t, st.Apply(ctx(t), storage.Batch{Items: items}))
}

func upsertFAQs(t *testing.T, st storage.Backend, faqs ...storage.FAQ) {
	t.Helper()
	must(t, st.Apply(ctx(t), storage.Batch{FAQs: faqs}))
}

func upsertDocs(t *testing.T, st storage.Backend, docs ...storage.Document) {
	t.Helper()
	must(t, st.Apply(ctx(t), storage.Batch{Documents: docs}))
}

func replace(t *testing.T, st storage.Backend, owner storage.OwnerRef, chunks ...storage.Chunk) {
	t.Helper()
	must(t, st.Apply(ctx(t), storage.Batch{Chunks: []storage.OwnerChunks{{Owner: owner, Chunks: chunks}}}))
}

// chunk returns a chunk with source, seq, content and embedding.
func chunk(src storage.ChunkSource, seq int, content string, emb []float32) storage.Chunk {
	return storage.Chunk{Source: src, Seq: seq, Content: content, Embedding: emb}
}

func itemIDs(cs []storage.LexicalCandidate[storage.CatalogItem]) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Record.ID
	}
	return out
}

func faqIDs(cs []storage.LexicalCandidate[storage.FAQ]) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Record.ID
	}
	return out
}

func docIDs(cs []storage.LexicalCandidate[storage.Document]) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Record.ID
	}
	return out
}

func searchItemIDs(t *testing.T, st storage.Backend, q storage.LexicalQuery) []string {
	t.Helper()
	got, err := st.Items().Search(ctx(t), q)
	must(t, err)
	return itemIDs(got)
}

// hit is a vector match reduced to what tests compare.
type hit struct {
	Owner    string
	Source   storage.ChunkSource
	Seq      int
	Distance float64
}

func hits(ms []storage.ChunkMatch) []hit {
	out := make([]hit, len(ms))
	for i, m := range ms {
		out[i] = hit{m.Chunk.Owner.ID, m.Chunk.Source, m.Chunk.Seq, m.Distance}
	}
	return out
}

func searchHits(t *testing.T, st storage.Backend, q storage.VectorQuery) []hit {
	t.Helper()
	got, err := st.SearchChunks(ctx(t), q)
	must(t, err)
	return hits(got)
}

func diff(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got, cmpOpts...); d != "" {
		t.Fatalf("%s mismatch (-want +got):\n%s", what, d)
	}
}
