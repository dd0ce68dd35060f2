package memory

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/internal/q8"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// TestQuantizedSearchMatchesExact checks that the quantized two-pass
// search returns exactly what the float32 scan returns — same rows, same
// order, bitwise the same scores — over random, duplicated (tied),
// clustered and hash-embedded vectors, with thresholds, filters and
// inactive owners, at dimensions on and off the 64-code block.
func TestQuantizedSearchMatchesExact(t *testing.T) {
	defer func(old bool) { forceQ8 = old }(forceQ8)
	forceQ8 = true // also on processors without the int8 kernel
	ctx := context.Background()
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 128})
	if err != nil {
		t.Fatal(err)
	}
	for _, dims := range []int{5, 64, 100, 128} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(dims), 1))
			db := New(Options{Dimensions: dims})
			st, _ := db.Tenant("t")
			centre := randVec(rng, dims)
			var b storage.Batch
			var pool [][]float32
			for i := range 900 {
				var v []float32
				switch i % 4 {
				case 0:
					v = randVec(rng, dims)
				case 1: // near one centre: many close scores
					v = slices.Clone(centre)
					for j := range v {
						v[j] += float32(rng.NormFloat64()) * 0.01
					}
				case 2: // an exact duplicate: tied scores
					if len(pool) > 0 {
						v = slices.Clone(pool[rng.IntN(len(pool))])
					} else {
						v = randVec(rng, dims)
					}
				case 3:
					if dims == 128 {
						vs, err := emb.Embed(ctx, []string{fmt.Sprintf("fungicida %d para soja lote %d", i%17, i%5)})
						if err != nil {
							t.Fatal(err)
						}
						v = vs[0]
					} else {
						v = randVec(rng, dims)
					}
				}
				pool = append(pool, v)
				id := fmt.Sprintf("i%04d", i)
				status := storage.StatusActive
				if i%7 == 3 {
					status = storage.StatusInactive
				}
				b.Items = append(b.Items, storage.CatalogItem{ID: id, Name: id, Category: []string{"a", "b"}[i%2], Status: status, CreatedAt: at(i)})
				b.Chunks = append(b.Chunks, storage.OwnerChunks{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: id},
					Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: id, Embedding: v}, {Source: storage.SourceItem, Seq: 1, Content: id, Embedding: v}}})
			}
			if err := st.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			kd := st.t.kind(storage.KindItem)
			if !kd.useQ8 {
				t.Fatal("quantized rows not kept")
			}
			for qi := range 60 {
				var q []float32
				switch qi % 3 {
				case 0:
					q = randVec(rng, dims)
				case 1:
					q = slices.Clone(pool[rng.IntN(len(pool))])
				default:
					q = slices.Clone(centre)
				}
				limit := []int{1, 3, 10, 50, 2000}[qi%5]
				maxDist := []float64{storage.NoThreshold, 0, -0.5, math.Inf(1)}[qi%4]
				var filters []storage.Filter
				if qi%6 == 5 {
					filters = []storage.Filter{{Field: storage.FieldCategory, Value: "a"}}
				}
				rows := kd.rows
				eligible := func(r int) bool {
					m := &rows[r]
					return m.active && (filters == nil || m.o.fv.Match(normalizeFilters(filters)))
				}
				want, err := exactSearch(ctx, kd, q, limit, maxDist, eligible)
				if err != nil {
					t.Fatal(err)
				}
				codes := make([]int8, dims)
				qst, err := q8.Quantize(codes, q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := quantizedSearch(ctx, kd, q, codes, qst, limit, maxDist, eligible)
				if err != nil {
					t.Fatal(err)
				}
				w, g := want.sorted(), got.sorted()
				if !slices.Equal(w, g) {
					t.Fatalf("query %d (limit %d, maxDist %v): quantized search returned %d hits %v…, exact %d %v…", qi, limit, maxDist, len(g), head(g), len(w), head(w))
				}
			}
		})
	}
}

func head(h []vecHit) []vecHit { return h[:min(3, len(h))] }

func randVec(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for j := range v {
		v[j] = rng.Float32()*2 - 1
	}
	return v
}

// TestQuantizedSearchRescoresFew reports how many rows the quantized
// search scores exactly on hash-embedded catalog text at 1536 dimensions,
// and fails if that is most of them (the bound would then be useless).
func TestQuantizedSearchRescoresFew(t *testing.T) {
	defer func(old bool) { forceQ8 = old }(forceQ8)
	forceQ8 = true
	ctx := context.Background()
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 1536})
	if err != nil {
		t.Fatal(err)
	}
	crops := []string{"soja", "milho", "algodão", "café", "cana-de-açúcar", "trigo", "feijão", "arroz", "citros", "batata"}
	pests := []string{"ferrugem asiática", "lagarta-do-cartucho", "percevejo-marrom", "mosca-branca", "ácaro-rajado", "buva", "capim-amargoso", "mancha-alvo", "oídio", "nematoide"}
	classes := []string{"Fungicida", "Inseticida", "Herbicida", "Acaricida", "Nematicida"}
	var texts []string
	for i := range 2000 {
		texts = append(texts, fmt.Sprintf("%s %d. Classe: %s. Indicado para %s no controle de %s e %s. Aplicar %d mL/ha.",
			[]string{"Produto", "Marca", "Formulação"}[i%3], i, classes[i%5], crops[i%10], pests[(i/10)%10], pests[(i/3)%10], 100+i%400))
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	db := New(Options{Dimensions: 1536})
	st, _ := db.Tenant("t")
	var b storage.Batch
	for i, v := range vecs {
		id := fmt.Sprintf("i%04d", i)
		b.Items = append(b.Items, storage.CatalogItem{ID: id, Name: texts[i]})
		b.Chunks = append(b.Chunks, storage.OwnerChunks{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: id},
			Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: texts[i], Embedding: v}}})
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	var total, queries int
	defer func() { q8Rescored = nil }()
	q8Rescored = func(n int) { total += n; queries++ }
	qs, err := emb.Embed(ctx, []string{"fungicida para soja", "lagarta no milho", "herbicida para buva", "ácaro rajado no algodão", "produto para café"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if _, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: q, Limit: 60, MaxDistance: storage.NoThreshold}); err != nil {
			t.Fatal(err)
		}
	}
	avg := float64(total) / float64(queries)
	t.Logf("rescored %.0f of %d rows per query (limit 60)", avg, len(vecs))
	if avg > float64(len(vecs))/4 {
		t.Errorf("rescored %.0f of %d rows per query: the bound prunes too little", avg, len(vecs))
	}
}
