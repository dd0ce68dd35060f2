package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// BenchmarkSearchCatalogScale runs rag.Searcher.SearchCatalog (hybrid,
// weighted fusion, limit 10, after Warm) over the synthetic catalog of
// BenchmarkVectorTop10 in both stores: the seeded PostgreSQL schema
// (HNSW) and a memory store holding the same items, chunks and vectors.
// Queries are user-like texts (a catalog name and four of its words, and
// generic questions); the embedder hash-embeds them as the items were
// (microseconds, so p50 is the search). It reports p50/p95 of the whole
// search and of each stage (the Result's Timings: lexical leg, vector leg,
// fusion), and for the memory store its load time and Go heap. The
// -filtered variants ask the same questions with a chunk filter that 1% of
// the chunks pass (grupo=<question index mod 100>, see benchGroup).
//
//	HYBRIDRAG_BENCH_SIZES=1000000 HYBRIDRAG_TEST_DATABASE_URL=... \
//	go test ./storage/postgres -run '^$' -bench SearchCatalogScale -benchtime 200x -timeout 3h
func BenchmarkSearchCatalogScale(b *testing.B) {
	for _, n := range benchSizes(b) {
		for _, kind := range []string{"postgres", "postgres-filtered", "memory", "memory-filtered"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
				bd := openBench(b, n, benchDims())
				var store storage.Store = bd.hnsw
				if strings.HasPrefix(kind, "memory") {
					store = benchMemory(b, bd)
				}
				emb := vector.EmbedderFunc{Dims: bd.dims, Fn: func(_ context.Context, texts []string) ([][]float32, error) {
					out := make([][]float32, len(texts))
					for i, t := range texts {
						out[i] = hashEmbed(t, bd.dims)
					}
					return out, nil
				}}
				s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
				ctx := context.Background()
				start := time.Now()
				if err := s.Warm(ctx); err != nil {
					b.Fatal(err)
				}
				b.Logf("Warm: %v", time.Since(start).Round(time.Millisecond))
				// HYBRIDRAG_BENCH_PREWARM=1 reads the indexes into the
				// page cache after the Searcher's Warm (DB.Prewarm).
				if os.Getenv("HYBRIDRAG_BENCH_PREWARM") == "1" && !strings.HasPrefix(kind, "memory") {
					start := time.Now()
					blocks, err := bd.db.Prewarm(ctx)
					if err != nil {
						b.Fatal(err)
					}
					b.Logf("Prewarm: %d blocks in %v", blocks, time.Since(start).Round(time.Millisecond))
				}
				qs := catalogQuestions(bd, 60)
				query := func(i int) rag.Query {
					q := rag.Query{Text: qs[i%len(qs)], Limit: 10}
					if strings.HasSuffix(kind, "-filtered") {
						q.ChunkFilters = []storage.ChunkFilter{{Key: "grupo", Value: benchGroup(i)}}
					}
					return q
				}
				for i := range 20 {
					if _, err := s.SearchCatalog(ctx, query(i)); err != nil {
						b.Fatal(err)
					}
				}
				var total, lex, vec, merge latencies
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					t := time.Now()
					res, err := s.SearchCatalog(ctx, query(i))
					total = append(total, time.Since(t))
					if err != nil {
						b.Fatal(err)
					}
					if !res.EmbeddingUsed {
						b.Fatalf("the vector leg did not run: %v", res.VectorError)
					}
					lex = append(lex, res.Timings.Lexical)
					vec = append(vec, res.Timings.Vector)
					merge = append(merge, res.Timings.Merge)
				}
				b.StopTimer()
				total.report(b)
				for _, st := range []struct {
					name string
					l    latencies
				}{{"lex", lex}, {"vec", vec}, {"merge", merge}} {
					b.ReportMetric(st.l.quantile(0.50), st.name+"_p50_ms")
					b.ReportMetric(st.l.quantile(0.95), st.name+"_p95_ms")
				}
			})
		}
	}
}

// catalogQuestions returns n user-like questions: a catalog item's name
// and four words of its text, and generic questions about crops and
// classes, in a fixed order.
func catalogQuestions(bd *benchDB, n int) []string {
	generic := []string{
		"fungicida para ferrugem da soja", "herbicida pos emergente milho", "inseticida para lagarta do cartucho",
		"produto para controle de pulgao no algodao", "acaricida citros", "nematicida cana de acucar",
		"glifosato", "mancozebe", "classe toxicologica", "produto biologico para soja",
	}
	rng := rand.New(rand.NewPCG(31, 32))
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		if i%5 == 4 {
			out = append(out, generic[(i/5)%len(generic)])
			continue
		}
		it := bd.cat[rng.IntN(len(bd.cat))]
		ws := words(storage.ItemSearchText(&it))
		q := []string{it.Name}
		for range 4 {
			q = append(q, ws[rng.IntN(len(ws))])
		}
		out = append(out, strings.Join(q, " "))
	}
	return out
}

var benchMemories sync.Map // n → *memory.Store

// benchMemory returns a memory store holding the items, chunks and
// vectors of the seeded schema bd (generated again, not read back), loaded
// once per size through Apply in batches of 2,000, and logs its load time
// and the Go heap it holds.
func benchMemory(b *testing.B, bd *benchDB) *memory.Store {
	if s, ok := benchMemories.Load(bd.n); ok {
		return s.(*memory.Store)
	}
	ctx := context.Background()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	store, err := memory.New(memory.Options{Dimensions: bd.dims}).Tenant(benchTenant)
	if err != nil {
		b.Fatal(err)
	}
	const per = 2000
	for lo := 0; lo < bd.n; lo += per {
		hi := min(lo+per, bd.n)
		items, vecs := bd.generate(lo, hi)
		batch := storage.Batch{Items: items, Chunks: make([]storage.OwnerChunks, len(items))}
		for k := range items {
			it := &items[k]
			ref := storage.OwnerRef{Kind: storage.KindItem, ID: it.ID}
			batch.Chunks[k] = storage.OwnerChunks{Owner: ref, Chunks: []storage.Chunk{{
				Owner: ref, Source: storage.SourceItem, Content: it.Name + "\n" + it.Description, Embedding: vecs[k],
				Metadata: map[string]string{"grupo": benchGroup(lo + k)},
			}}}
		}
		if err := store.Apply(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	took := time.Since(start)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.Logf("memory store: %d items loaded in %v; Go heap %.2f GB (%.2f GB before)", bd.n, took.Round(time.Second),
		float64(after.HeapAlloc)/1e9, float64(before.HeapAlloc)/1e9)
	benchMemories.Store(bd.n, store)
	return store
}

// benchGroup is the chunk metadata "grupo" of the synthetic catalog's
// item i: one of 100 values, so that a filter on one value keeps 1% of
// the chunks.
func benchGroup(i int) string { return strconv.Itoa(i % 100) }
