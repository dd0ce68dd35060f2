package storagetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/storage"
)

func concurrencyTests() []testCase {
	return []testCase{
		{"ParallelWritesAndReads", func(t *testing.T, s *suite) {
			st := s.store(t)
			const writers, perWriter = 4, 8
			var wg sync.WaitGroup
			var done atomic.Bool
			for w := range writers {
				wg.Go(func() {
					for i := range perWriter {
						id := fmt.Sprintf("w%d-%d", w, i)
						err := st.Apply(context.Background(), storage.Batch{
							Items:  []storage.CatalogItem{{ID: id, Name: "Concorrente " + id}},
							Chunks: []storage.OwnerChunks{{Owner: itemRef(id), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, id, unit(w))}}},
						})
						if err != nil {
							t.Errorf("writer %d: %v", w, err)
							return
						}
					}
				})
			}
			var readers sync.WaitGroup
			for r := range 4 {
				readers.Go(func() {
					for !done.Load() {
						var err error
						switch r {
						case 0:
							_, err = st.Items().Search(context.Background(), storage.LexicalQuery{Terms: []string{"concorrente"}, Limit: 50})
						case 1:
							_, err = st.SearchChunks(context.Background(), storage.VectorQuery{Kind: storage.KindItem, Vector: unit(r), MaxDistance: storage.NoThreshold, Limit: 50})
						case 2:
							_, err = st.Counts(context.Background())
						default:
							_, err = st.Items().List(context.Background(), storage.Page{Limit: 50})
						}
						if err != nil {
							t.Errorf("reader %d: %v", r, err)
							return
						}
					}
				})
			}
			wg.Wait()
			done.Store(true)
			readers.Wait()
			n := writers * perWriter
			wantCounts(t, st, storage.Counts{Items: n, Chunks: n, Embedded: n})
			got := searchHits(t, st, storage.VectorQuery{Kind: storage.KindItem, Vector: unit(2), MaxDistance: -0.5, Limit: 100})
			if len(got) != perWriter {
				t.Errorf("writer 2's chunks: %d hits, want %d", len(got), perWriter)
			}
		}},
		{"ReadersSeeWholeBatches", func(t *testing.T, s *suite) {
			st := s.store(t)
			const versions, perVersion = 12, 3
			write := func(v int) error {
				cs := make([]storage.Chunk, perVersion)
				for i := range cs {
					cs[i] = chunk(storage.SourceItem, i, fmt.Sprintf("v%d", v), vec(1, float32(v)))
				}
				return st.Apply(context.Background(), storage.Batch{
					Items:  []storage.CatalogItem{{ID: "x", Name: fmt.Sprintf("v%d", v)}},
					Chunks: []storage.OwnerChunks{{Owner: itemRef("x"), Chunks: cs}},
				})
			}
			must(t, write(0))
			var done atomic.Bool
			var readers sync.WaitGroup
			check := func(contents []string) {
				if len(contents) != perVersion {
					t.Errorf("saw %d chunks, want %d", len(contents), perVersion)
					return
				}
				for _, c := range contents[1:] {
					if c != contents[0] {
						t.Errorf("saw a half-applied replace: %v", contents)
						return
					}
				}
			}
			readers.Go(func() {
				for !done.Load() {
					cs, err := st.Chunks(context.Background(), itemRef("x"))
					if err != nil {
						t.Error(err)
						return
					}
					contents := make([]string, len(cs))
					for i, c := range cs {
						contents[i] = c.Content
					}
					check(contents)
				}
			})
			readers.Go(func() {
				for !done.Load() {
					ms, err := st.SearchChunks(context.Background(), storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: storage.NoThreshold})
					if err != nil {
						t.Error(err)
						return
					}
					contents := make([]string, len(ms))
					for i, m := range ms {
						contents[i] = m.Chunk.Content
					}
					check(contents)
				}
			})
			for v := 1; v <= versions; v++ {
				must(t, write(v))
			}
			done.Store(true)
			readers.Wait()
			wantCounts(t, st, storage.Counts{Items: 1, Chunks: perVersion, Embedded: perVersion})
		}},
		{"ParallelTenants", func(t *testing.T, s *suite) {
			ts := s.tenants(t, 3)
			var wg sync.WaitGroup
			for i, st := range ts {
				wg.Go(func() {
					for j := range 5 {
						err := st.Apply(context.Background(), storage.Batch{
							Items:  []storage.CatalogItem{{ID: fmt.Sprintf("same-%d", j), Name: fmt.Sprintf("tenant %d", i)}},
							Chunks: []storage.OwnerChunks{{Owner: itemRef(fmt.Sprintf("same-%d", j)), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "x", unit(i))}}},
						})
						if err != nil {
							t.Errorf("tenant %d: %v", i, err)
							return
						}
						if _, err := st.SearchChunks(context.Background(), storage.VectorQuery{Kind: storage.KindItem, Vector: unit(i), MaxDistance: -0.5}); err != nil {
							t.Errorf("tenant %d: %v", i, err)
							return
						}
					}
				})
			}
			wg.Wait()
			for i, st := range ts {
				wantCounts(t, st, storage.Counts{Items: 5, Chunks: 5, Embedded: 5})
				got := searchHits(t, st, storage.VectorQuery{Kind: storage.KindItem, Vector: unit(i), MaxDistance: -0.5, Limit: 100})
				if len(got) != 5 {
					t.Errorf("tenant %d sees %d of its chunks, want 5", i, len(got))
				}
				it, err := st.Items().Get(ctx(t), "same-0")
				must(t, err)
				if it.Name != fmt.Sprintf("tenant %d", i) {
					t.Errorf("tenant %d reads %q", i, it.Name)
				}
			}
		}},
	}
}

func cancellationTests() []testCase {
	return []testCase{
		{"Canceled", func(t *testing.T, s *suite) {
			st := s.store(t)
			tenantFixture(t, st, "a", "alfa", unit(0))
			cctx, cancel := context.WithCancel(context.Background())
			cancel()
			testCancelled(t, st, cctx, context.Canceled)
		}},
		{"DeadlineExceeded", func(t *testing.T, s *suite) {
			st := s.store(t)
			tenantFixture(t, st, "a", "alfa", unit(0))
			dctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			testCancelled(t, st, dctx, context.DeadlineExceeded)
		}},
	}
}

// testCancelled calls every method of st with a done context, expects each
// to fail with want, and checks that nothing was written.
func testCancelled(t *testing.T, st storage.Backend, c context.Context, want error) {
	t.Helper()
	item := storage.CatalogItem{ID: "new", Name: "novo"}
	chunks := []storage.Chunk{chunk(storage.SourceItem, 0, "new", unit(3))}
	calls := []struct {
		name string
		call func() error
	}{
		{"Apply records", func() error { return st.Apply(c, storage.Batch{Items: []storage.CatalogItem{item}}) }},
		{"UpsertFAQs", func() error { return st.Apply(c, storage.Batch{FAQs: []storage.FAQ{{ID: "new"}}}) }},
		{"UpsertDocuments", func() error { return st.Apply(c, storage.Batch{Documents: []storage.Document{{ID: "new"}}}) }},
		{"Apply chunks", func() error {
			return st.Apply(c, storage.Batch{Chunks: []storage.OwnerChunks{{Owner: itemRef("a-only"), Chunks: chunks}}})
		}},
		{"Apply", func() error {
			return st.Apply(c, storage.Batch{Items: []storage.CatalogItem{item}, Deletes: []storage.OwnerRef{faqRef("shared")}})
		}},
		{"DeleteItem", func() error { return st.Items().Delete(c, "a-only") }},
		{"DeleteFAQ", func() error { return st.FAQs().Delete(c, "a-only") }},
		{"DeleteDocument", func() error { return st.Documents().Delete(c, "a-only") }},
		{"GetItem", func() error { _, err := st.Items().Get(c, "a-only"); return err }},
		{"Items GetMany", func() error { _, err := st.Items().GetMany(c, []string{"a-only"}); return err }},
		{"Items List", func() error { _, err := st.Items().List(c, storage.Page{}); return err }},
		{"SearchItems", func() error {
			_, err := st.Items().Search(c, storage.LexicalQuery{Terms: []string{"alfa"}})
			return err
		}},
		{"GetFAQ", func() error { _, err := st.FAQs().Get(c, "a-only"); return err }},
		{"GetFAQs", func() error { _, err := st.FAQs().GetMany(c, []string{"a-only"}); return err }},
		{"ListFAQs", func() error { _, err := st.FAQs().List(c, storage.Page{}); return err }},
		{"SearchFAQs", func() error { _, err := st.FAQs().Search(c, storage.LexicalQuery{Terms: []string{"alfa"}}); return err }},
		{"GetDocument", func() error { _, err := st.Documents().Get(c, "a-only"); return err }},
		{"GetDocuments", func() error { _, err := st.Documents().GetMany(c, []string{"a-only"}); return err }},
		{"Documents ByHash", func() error { _, err := st.Documents().ByHash(c, storage.ContentHash("conteúdo alfa")); return err }},
		{"ListDocuments", func() error { _, err := st.Documents().List(c, storage.Page{}); return err }},
		{"SearchDocuments", func() error {
			_, err := st.Documents().Search(c, storage.LexicalQuery{Terms: []string{"alfa"}})
			return err
		}},
		{"ChunkRefs", func() error { _, err := st.ChunkRefs(c, storage.KindItem, nil); return err }},
		{"Chunks", func() error { _, err := st.Chunks(c, itemRef("a-only")); return err }},
		{"SearchChunks", func() error {
			_, err := st.SearchChunks(c, storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: storage.NoThreshold})
			return err
		}},
		{"Counts", func() error { _, err := st.Counts(c); return err }},
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, want) {
				t.Fatalf("err = %v, want one wrapping %v", err, want)
			}
		})
	}
	wantCounts(t, st, fixtureCounts)
	cs := getChunks(t, st, itemRef("a-only"))
	if len(cs) != 1 || cs[0].Content != "alfa" {
		t.Fatalf("chunks changed by cancelled calls: %+v", cs)
	}
}
