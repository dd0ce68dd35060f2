package memory_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// The benchmarks run on the real AGROFIT catalog (4 220 pesticides with
// label text), replicated with variant suffixes to 10k and 100k items, one
// hash-embedded 1536-dimension chunk per item. Replica r of item i gets the
// embedding normalize(embed(i) + 0.5·embed(variant r)), so vectors cluster
// around real texts as product variants do, instead of being uniform noise.
const catalogPath = "/work/shared/data/agrofit/catalog.jsonl"

const benchDims = 1536

var benchEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

type catalogRow struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Category     string   `json:"category"`
	Manufacturer string   `json:"manufacturer"`
	Tags         []string `json:"tags"`
	Status       string   `json:"status"`
	Files        []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"files"`
}

var (
	catalogOnce sync.Once
	catalogRows []catalogRow
	catalogVecs [][]float32
	variantVecs [][]float32
	queryVecs   [][]float32
	catalogErr  error
)

// benchQueries are pt-BR questions of the kind the chat receives; their
// terms drive the lexical benchmark.
var benchQueries = []struct {
	text  string
	terms []string
}{
	{"fungicida para ferrugem da soja", []string{"fungicida", "ferrugem", "soja"}},
	{"inseticida para lagarta do cartucho no milho", []string{"inseticida", "lagarta", "cartucho", "milho"}},
	{"herbicida pós-emergente para capim", []string{"herbicida", "pos-emergente", "capim"}},
	{"controle biológico de nematoides", []string{"controle", "biologico", "nematoides"}},
	{"acaricida para ácaro rajado em citros", []string{"acaricida", "acaro", "rajado", "citros"}},
	{"percevejo marrom na soja", []string{"percevejo", "marrom", "soja"}},
	{"mancha-alvo no algodão", []string{"mancha-alvo", "algodao"}},
	{"broca da cana-de-açúcar", []string{"broca", "cana-de-acucar"}},
}

func loadCatalog() error {
	catalogOnce.Do(func() {
		f, err := os.Open(catalogPath)
		if err != nil {
			catalogErr = err
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var r catalogRow
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				catalogErr = err
				return
			}
			catalogRows = append(catalogRows, r)
		}
		if catalogErr = sc.Err(); catalogErr != nil {
			return
		}
		emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: benchDims})
		if err != nil {
			catalogErr = err
			return
		}
		texts := make([]string, len(catalogRows))
		for i, r := range catalogRows {
			texts[i] = r.Name + ". " + r.Description
		}
		if catalogVecs, err = emb.Embed(context.Background(), texts); err != nil {
			catalogErr = err
			return
		}
		var variants, queries []string
		for r := range 24 {
			variants = append(variants, fmt.Sprintf("lote %d variante %c", r, 'a'+r))
		}
		for _, q := range benchQueries {
			queries = append(queries, q.text)
		}
		variantVecs, _ = emb.Embed(context.Background(), variants)
		queryVecs, _ = emb.Embed(context.Background(), queries)
	})
	return catalogErr
}

func replicaVec(i, r int) []float32 {
	base := catalogVecs[i]
	if r == 0 {
		return base
	}
	v := make([]float32, len(base))
	var n float64
	for j := range v {
		v[j] = base[j] + 0.5*variantVecs[r%len(variantVecs)][j]
		n += float64(v[j]) * float64(v[j])
	}
	s := float32(1 / math.Sqrt(n))
	for j := range v {
		v[j] *= s
	}
	return v
}

var (
	benchMu  sync.Mutex
	benchDBs = map[int]*memory.Store{}
)

// benchStore returns a tenant holding n catalog items with one embedded
// chunk each, built once per size.
func benchStore(b *testing.B, n int) *memory.Store {
	b.Helper()
	if n >= 100_000 && testing.Short() {
		b.Skip("100k-item benchmarks need ~1 GB of RAM and a few seconds of setup; skipped with -short")
	}
	if err := loadCatalog(); err != nil {
		testenv.Skip(b, testenv.Data, "real catalog unavailable (%v); the benchmarks need %s", err, catalogPath)
	}
	benchMu.Lock()
	defer benchMu.Unlock()
	if st := benchDBs[n]; st != nil {
		return st
	}
	db := memory.New(memory.Options{Dimensions: benchDims})
	st, err := db.Tenant("bench")
	if err != nil {
		b.Fatal(err)
	}
	const batch = 2000
	for lo := 0; lo < n; lo += batch {
		var bt storage.Batch
		for k := lo; k < min(n, lo+batch); k++ {
			i, r := k%len(catalogRows), k/len(catalogRows)
			row := catalogRows[i]
			status, err := storage.ParseStatus(row.Status)
			if err != nil {
				b.Fatal(err)
			}
			it := storage.CatalogItem{
				ID: fmt.Sprintf("%s-r%d", row.ID, r), Name: row.Name, Description: row.Description,
				Category: row.Category, Manufacturer: row.Manufacturer, Tags: row.Tags, Status: status,
				CreatedAt: benchEpoch.Add(time.Duration(k%5000) * time.Minute),
			}
			if r > 0 {
				it.Name += fmt.Sprintf(" lote %d", r)
			}
			for _, f := range row.Files {
				it.Files = append(it.Files, storage.CatalogFile{Name: f.Name, Text: f.Text})
			}
			bt.Items = append(bt.Items, it)
			bt.Chunks = append(bt.Chunks, storage.OwnerChunks{
				Owner:  storage.OwnerRef{Kind: storage.KindItem, ID: it.ID},
				Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: it.Name, Embedding: replicaVec(i, r)}},
			})
		}
		if err := st.Apply(context.Background(), bt); err != nil {
			b.Fatal(err)
		}
	}
	benchDBs[n] = st
	return st
}

var benchSizes = []struct {
	name string
	n    int
}{{"10k", 10_000}, {"100k", 100_000}}

// BenchmarkSearchChunks measures exact vector top-10 over every embedded
// chunk (no threshold, so no row is skipped before scoring).
func BenchmarkSearchChunks(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			st := benchStore(b, size.n)
			ctx := context.Background()
			b.SetBytes(int64(size.n) * benchDims * 4)
			b.ReportAllocs()
			defer reportRescored(b)()
			i := 0
			for b.Loop() {
				q := storage.VectorQuery{Kind: storage.KindItem, Vector: queryVecs[i%len(queryVecs)], Limit: 10, MaxDistance: storage.NoThreshold}
				i++
				res, err := st.SearchChunks(ctx, q)
				if err != nil || len(res) != 10 {
					b.Fatalf("%d hits, %v", len(res), err)
				}
			}
		})
	}
}

// BenchmarkSearchChunksFiltered adds a category filter, applied to rows
// before they are scored.
func BenchmarkSearchChunksFiltered(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			st := benchStore(b, size.n)
			ctx := context.Background()
			q := storage.VectorQuery{Kind: storage.KindItem, Vector: queryVecs[0], Limit: 10, MaxDistance: storage.NoThreshold,
				Filters: []storage.Filter{{Field: storage.FieldCategory, Value: "Fungicida"}}}
			b.ReportAllocs()
			defer reportRescored(b)()
			for b.Loop() {
				res, err := st.SearchChunks(ctx, q)
				if err != nil || len(res) != 10 {
					b.Fatalf("%d hits, %v", len(res), err)
				}
			}
		})
	}
}

// BenchmarkSearchItems measures lexical candidates (limit 60, the seed's
// 10 × 6 candidates) for 2-4 term queries over name, description,
// category, manufacturer, tags and file text.
func BenchmarkSearchItems(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			st := benchStore(b, size.n)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q := storage.LexicalQuery{Terms: benchQueries[i%len(benchQueries)].terms, Limit: 60}
				i++
				if _, err := st.Items().Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// reportRescored counts the rows quantized searches score exactly and
// returns a function reporting their mean per search as "rescored/op"
// (nothing when the float32 scan is in use).
func reportRescored(b *testing.B) func() {
	var mu sync.Mutex
	var rows, searches int
	memory.SetQ8Rescored(func(n int) {
		mu.Lock()
		rows += n
		searches++
		mu.Unlock()
	})
	return func() {
		memory.SetQ8Rescored(nil)
		if searches > 0 {
			b.ReportMetric(float64(rows)/float64(searches), "rescored/op")
		}
	}
}
