package rag_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// Benchmarks of SearchCatalog over the real AGROFIT registry
// (../shared/data/agrofit/catalog.jsonl, 4,220 items with their files),
// replicated with suffixed IDs to reach larger sizes. The query embedding
// is computed once and served from a fixed table, so the figures exclude
// the embedder, as the hybrid-search issue asks.
//
//	go test -run '^$' -bench BenchmarkSearchCatalog -benchtime 200x ./rag
//	HYBRIDRAG_BENCH_LARGE=1 go test -run '^$' -bench 'BenchmarkSearchCatalog/memory-100k' -benchtime 100x -timeout 60m ./rag

var benchQueries = []string{
	"fungicida para videira",
	"herbicida para cana-de-açúcar",
	"lagarta-do-cartucho no milho",
	"percevejo na soja",
	"ferrugem asiática",
	"acaro rajado no algodao",
	"glifosato",
	"mato no pasto",
}

// fixedEmbedder serves precomputed query vectors; a text it has not seen
// (the Searcher may append synonyms) is embedded once during warm-up.
type fixedEmbedder struct {
	dims  int
	inner vector.Embedder
	mu    sync.Mutex
	vecs  map[string][]float32
}

func (f *fixedEmbedder) Dimensions() int { return f.dims }
func (f *fixedEmbedder) SuggestedThreshold() float64 {
	return (*vector.HashEmbedder)(nil).SuggestedThreshold()
}
func (f *fixedEmbedder) SuggestedFusionWeights() (float64, float64) {
	return (*vector.HashEmbedder)(nil).SuggestedFusionWeights()
}
func (f *fixedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := f.vecs[t]
		if !ok {
			vs, err := f.inner.Embed(ctx, []string{t})
			if err != nil {
				return nil, fmt.Errorf("embed %q: %w", t, err)
			}
			v = vs[0]
			f.vecs[t] = v
		}
		out[i] = v
	}
	return out, nil
}

func newFixedEmbedder(tb testing.TB, emb vector.Embedder, queries []string) *fixedEmbedder {
	vecs, err := emb.Embed(context.Background(), queries)
	if err != nil {
		tb.Fatal(err)
	}
	f := &fixedEmbedder{dims: emb.Dimensions(), inner: emb, vecs: map[string][]float32{}}
	for i, q := range queries {
		f.vecs[q] = vecs[i]
	}
	return f
}

// replicate returns n items: the AGROFIT items, then copies with suffixed
// IDs and names.
func replicate(items []storage.CatalogItem, n int) []storage.CatalogItem {
	out := make([]storage.CatalogItem, 0, n)
	for copyN := 0; len(out) < n; copyN++ {
		for _, it := range items {
			if len(out) == n {
				break
			}
			if copyN > 0 {
				it.ID = fmt.Sprintf("%s-c%d", it.ID, copyN)
				it.Name = fmt.Sprintf("%s %d", it.Name, copyN)
				files := make([]storage.CatalogFile, len(it.Files))
				for j, f := range it.Files {
					f.ItemID = it.ID
					files[j] = f
				}
				it.Files = files
			}
			out = append(out, it)
		}
	}
	return out
}

var benchStores sync.Map // size → *memory.Store

func benchMemoryStore(b *testing.B, n int) *memory.Store {
	if s, ok := benchStores.Load(n); ok {
		return s.(*memory.Store)
	}
	items, err := load.LoadCatalog(context.Background(), ragtest.AgrofitPath(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	db := memory.New(memory.Options{Dimensions: ragtest.BenchDims})
	store, err := db.Tenant("bench")
	if err != nil {
		b.Fatal(err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: ragtest.BenchDims})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	st, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{Concurrency: 4}).IndexItems(context.Background(), replicate(items, n))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed %d items, %d chunks in %v", st.Items, st.Chunks, time.Since(start).Round(time.Millisecond))
	benchStores.Store(n, store)
	return store
}

func BenchmarkSearchCatalog(b *testing.B) {
	sizes := []struct {
		name  string
		n     int
		large bool
	}{{"memory-1k", 1000, false}, {"memory-agrofit4220", 4220, false}, {"memory-10k", 10_000, false}, {"memory-100k", 100_000, true}}
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			if size.large && os.Getenv("HYBRIDRAG_BENCH_LARGE") == "" {
				b.Skip("set HYBRIDRAG_BENCH_LARGE=1 to run the 100k benchmark")
			}
			store := benchMemoryStore(b, size.n)
			emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: ragtest.BenchDims})
			s := rag.NewSearcher(store, newFixedEmbedder(b, emb, benchQueries), rag.SearcherOptions{})
			runSearchBench(b, s)
		})
	}
}

// runSearchBench runs SearchCatalog (hybrid, weighted fusion, limit 10) over
// the benchmark queries and reports p50 and p95 latencies, and the median
// of each stage the Result times (lexical leg, vector leg, fusion with
// lexical scoring).
func runSearchBench(b *testing.B, s *rag.Searcher) {
	ctx := context.Background()
	for _, q := range benchQueries { // warm up
		if _, err := s.SearchCatalog(ctx, rag.Query{Text: q, Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	var lexT, vecT, mergeT, fetchT []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		res, err := s.SearchCatalog(ctx, rag.Query{Text: benchQueries[i%len(benchQueries)], Limit: 10})
		lat = append(lat, time.Since(t))
		if err != nil {
			b.Fatal(err)
		}
		if !res.EmbeddingUsed {
			b.Fatalf("vector leg did not run: %v", res.VectorError)
		}
		lexT = append(lexT, res.Timings.Lexical)
		vecT = append(vecT, res.Timings.Vector)
		mergeT = append(mergeT, res.Timings.Merge)
		fetchT = append(fetchT, res.Timings.Fetch)
	}
	b.StopTimer()
	ms := func(ds []time.Duration, q int) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)*q/100].Microseconds()) / 1000
	}
	b.ReportMetric(ms(lat, 50), "p50_ms")
	b.ReportMetric(ms(lat, 95), "p95_ms")
	b.ReportMetric(ms(lexT, 50), "lex_p50_ms")
	b.ReportMetric(ms(vecT, 50), "vec_p50_ms")
	b.ReportMetric(ms(mergeT, 50), "merge_p50_ms")
	b.ReportMetric(ms(fetchT, 50), "fetch_p50_ms")
}
