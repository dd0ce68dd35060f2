package postgres_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

// recordingStore records the item lexical queries a Searcher sends.
type recordingStore struct {
	*postgres.Store
	items *recordingItems
}

func (r *recordingStore) Items() storage.RecordStore[storage.CatalogItem] { return r.items }

type recordingItems struct {
	storage.RecordStore[storage.CatalogItem]
	mu sync.Mutex
	qs []storage.LexicalQuery
}

func (r *recordingItems) Search(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[storage.CatalogItem], error) {
	r.mu.Lock()
	r.qs = append(r.qs, q)
	r.mu.Unlock()
	return r.RecordStore.Search(ctx, q)
}

// BenchmarkLexicalTail is a hand-run harness for the lexical leg's tail: it
// records the item lexical queries the Searcher sends for
// BenchmarkSearchCatalogScale's questions, then times each directly
// against the store (the best of three runs) and prints the slowest with
// their terms; the metrics are the p50 and p95 of those best times.
// HRX_LEXTAIL_DUMP names a file to write every query's best time (ms)
// and terms to, tab-separated.
// Skipped unless HRX_LEXTAIL=1:
//
//	HRX_LEXTAIL=1 HYBRIDRAG_BENCH_SIZES=100000 HYBRIDRAG_TEST_DATABASE_URL=... \
//	go test ./storage/postgres -run '^$' -bench BenchmarkLexicalTail -benchtime 1x
func BenchmarkLexicalTail(b *testing.B) {
	if os.Getenv("HRX_LEXTAIL") != "1" {
		b.Skip("hand-run harness: set HRX_LEXTAIL=1 (see its doc comment)")
	}
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			bd := openBench(b, n, benchDims())
			rec := &recordingStore{Store: bd.hnsw, items: &recordingItems{RecordStore: bd.hnsw.Items()}}
			emb := vector.EmbedderFunc{Dims: bd.dims, Fn: func(_ context.Context, texts []string) ([][]float32, error) {
				out := make([][]float32, len(texts))
				for i, t := range texts {
					out[i] = hashEmbed(t, bd.dims)
				}
				return out, nil
			}}
			s := rag.NewSearcher(rec, emb, rag.SearcherOptions{})
			ctx := context.Background()
			if err := s.Warm(ctx); err != nil {
				b.Fatal(err)
			}
			rec.items.qs = nil
			for _, q := range catalogQuestions(bd, 60) {
				if _, err := s.SearchCatalog(ctx, rag.Query{Text: q, Limit: 10}); err != nil {
					b.Fatal(err)
				}
			}
			type timed struct {
				q    storage.LexicalQuery
				best time.Duration
				hits int
			}
			var ts []timed
			var lat latencies
			for b.Loop() {
				ts, lat = ts[:0], lat[:0]
				for _, q := range rec.items.qs {
					t := timed{q: q, best: time.Hour}
					for range 3 {
						start := time.Now()
						res, err := bd.hnsw.Items().Search(ctx, q)
						if err != nil {
							b.Fatal(err)
						}
						t.best = min(t.best, time.Since(start))
						t.hits = len(res)
					}
					ts = append(ts, t)
					lat = append(lat, t.best)
				}
			}
			slices.SortFunc(ts, func(x, y timed) int { return int(y.best - x.best) })
			if f := os.Getenv("HRX_LEXTAIL_DUMP"); f != "" {
				var buf []byte
				for _, t := range ts {
					buf = fmt.Appendf(buf, "%.3f\t%s\n", float64(t.best)/1e6, strings.Join(t.q.Terms, " "))
				}
				if err := os.WriteFile(f, buf, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			for _, t := range ts[:min(12, len(ts))] {
				fmt.Fprintf(os.Stderr, "lexical tail n=%d: %8.2f ms  %d hits  limit %d  %q\n", n, float64(t.best)/1e6, t.hits, t.q.Limit, t.q.Terms)
			}
			lat.report(b)
		})
	}
}
