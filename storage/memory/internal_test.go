package memory

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// TestScoresIndependentOfNeighbours checks that every reported distance is
// bitwise -vector.Dot of the query and the chunk's embedding, whichever
// neighbouring rows are inactive or filtered out (which changes how rows
// are grouped into DotRows calls), so ties and thresholds do not depend on
// the slab layout.
func TestScoresIndependentOfNeighbours(t *testing.T) {
	ctx := context.Background()
	const dims, n = 37, 403
	db := New(Options{Dimensions: dims})
	st, _ := db.Tenant("t")
	r := rand.New(rand.NewPCG(1, 2))
	var b storage.Batch
	vecs := map[string][]float32{}
	for i := range n {
		id := fmt.Sprintf("i%04d", i)
		v := make([]float32, dims)
		for j := range v {
			v[j] = r.Float32()*2 - 1
		}
		vecs[id] = v
		status := storage.StatusActive
		if i%5 == 1 || i%11 == 0 {
			status = storage.StatusInactive
		}
		b.Items = append(b.Items, storage.CatalogItem{ID: id, Name: id, Category: []string{"a", "b", "c"}[i*i%3], Status: status, CreatedAt: at(i)})
		b.Chunks = append(b.Chunks, storage.OwnerChunks{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: id},
			Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: id, Embedding: v}}})
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	q := make([]float32, dims)
	for j := range q {
		q[j] = r.Float32()*2 - 1
	}
	for _, tt := range []struct {
		name    string
		filters []storage.Filter
	}{
		{name: "no filter"},
		{name: "category filter", filters: []storage.Filter{{Field: storage.FieldCategory, Value: "a"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: q, MaxDistance: storage.NoThreshold, Limit: n, Filters: tt.filters})
			if err != nil || len(got) == 0 {
				t.Fatalf("SearchChunks = %d hits, %v", len(got), err)
			}
			for _, m := range got {
				want, err := vector.Dot(q, vecs[m.Chunk.Owner.ID])
				if err != nil || m.Distance != float64(-want) {
					t.Errorf("%s: distance %v, want %v (%v)", m.Chunk.Owner.ID, m.Distance, -want, err)
				}
			}
		})
	}
}

func TestTopK(t *testing.T) {
	less := func(a, b int) bool { return a < b }
	for _, k := range []int{1, 3, 10, 100} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(k), 9))
			vals := r.Perm(50)
			h := newTopK(k, less)
			for _, v := range vals {
				h.push(v)
			}
			want := slices.Sorted(slices.Values(vals))[:min(k, 50)]
			if got := h.sorted(); !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// TestSlabReuseAndCompaction replaces and deletes many chunks and checks
// that rows are reused, the slab is compacted once mostly free, and every
// chunk still scores and reads back correctly.
func TestSlabReuseAndCompaction(t *testing.T) {
	ctx := context.Background()
	db := New(Options{Dimensions: 4})
	st, err := db.Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	items := make([]storage.CatalogItem, n)
	for i := range items {
		items[i] = storage.CatalogItem{ID: fmt.Sprintf("i%05d", i)}
	}
	if err := st.Apply(ctx, storage.Batch{Items: items}); err != nil {
		t.Fatal(err)
	}
	emb := func(i, version int) []float32 { return []float32{float32(i), float32(version), 1, 0} }
	for version := range 2 {
		var b storage.Batch
		for i, it := range items {
			b.Chunks = append(b.Chunks, storage.OwnerChunks{
				Owner:  storage.OwnerRef{Kind: storage.KindItem, ID: it.ID},
				Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: "x", Embedding: emb(i, version)}},
			})
		}
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	kd := st.t.kind(storage.KindItem)
	// The second replace freed n rows before allocating n: all reused.
	if len(kd.rows) != n || kd.live != n || len(kd.free) != 0 {
		t.Fatalf("after replace: rows %d, live %d, free %d; want %d, %d, 0", len(kd.rows), kd.live, len(kd.free), n, n)
	}
	// Delete all but every tenth item: free rows outnumber live ones and the
	// slab is compacted.
	for i, it := range items {
		if i%10 != 0 {
			if err := st.Items().Delete(ctx, it.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if kd.live != n/10 || len(kd.rows) >= n || len(kd.slab) != len(kd.rows)*4 {
		t.Fatalf("after deletes: rows %d, live %d, free %d, slab %d", len(kd.rows), kd.live, len(kd.free), len(kd.slab))
	}
	for r, m := range kd.rows {
		if m.o != nil && m.o.chunks[m.idx].row != int32(r) {
			t.Fatalf("row %d points at chunk with row %d", r, m.o.chunks[m.idx].row)
		}
	}
	for i := 0; i < n; i += 10 {
		cs, err := st.Chunks(ctx, storage.OwnerRef{Kind: storage.KindItem, ID: items[i].ID})
		if err != nil || len(cs) != 1 || !slices.Equal(cs[0].Embedding, emb(i, 1)) {
			t.Fatalf("item %d after compaction: %v, %v", i, cs, err)
		}
	}
	got, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: []float32{1, 0, 0, 0}, MaxDistance: storage.NoThreshold, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.Chunk.Owner.ID)
	}
	if want := []string{"i02990", "i02980", "i02970"}; !slices.Equal(ids, want) {
		t.Errorf("top 3 after compaction = %v, want %v", ids, want)
	}
	c, err := st.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (storage.Counts{Items: n / 10, Chunks: n / 10, Embedded: n / 10}); c != want {
		t.Errorf("Counts = %+v, want %+v", c, want)
	}
}

// TestShardedScanMatchesSingle checks that the parallel scans return the
// same results as a brute-force reference, across shard boundaries.
func TestShardedScanMatchesSingle(t *testing.T) {
	ctx := context.Background()
	const dims, n = 16, 9000
	db := New(Options{Dimensions: dims})
	st, _ := db.Tenant("t")
	r := rand.New(rand.NewPCG(3, 4))
	var b storage.Batch
	vecs := make([][]float32, n)
	for i := range n {
		id := fmt.Sprintf("i%05d", i)
		v := make([]float32, dims)
		for j := range v {
			// Quantized values make many exact ties, exercising tie-breaks.
			v[j] = float32(r.IntN(5)) / 4
		}
		vecs[i] = v
		status := storage.StatusActive
		if i%7 == 0 {
			status = storage.StatusInactive
		}
		b.Items = append(b.Items, storage.CatalogItem{ID: id, Name: fmt.Sprintf("termo%d", i%13), Status: status, CreatedAt: at(i % 50)})
		b.Chunks = append(b.Chunks, storage.OwnerChunks{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: id},
			Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: id, Embedding: v}}})
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	q := make([]float32, dims)
	for j := range q {
		q[j] = float32(r.IntN(5)) / 4
	}
	type ref struct {
		id   string
		dist float64
	}
	var all []ref
	for i, v := range vecs {
		if i%7 == 0 {
			continue
		}
		all = append(all, ref{fmt.Sprintf("i%05d", i), float64(-mustDot(t, q, v))})
	}
	slices.SortFunc(all, func(a, b ref) int {
		if a.dist != b.dist {
			if a.dist < b.dist {
				return -1
			}
			return 1
		}
		if a.id < b.id {
			return -1
		}
		return 1
	})
	got, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: q, MaxDistance: storage.NoThreshold, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range got {
		if m.Chunk.Owner.ID != all[i].id || m.Distance != all[i].dist {
			t.Fatalf("hit %d = %s %v, want %s %v", i, m.Chunk.Owner.ID, m.Distance, all[i].id, all[i].dist)
		}
	}
	lex, err := st.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"termo3", "termo"}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// Every active item matches "termo"; those named termo3 match both
	// terms and come first.
	want := 0
	for i := range n {
		if i%7 != 0 && i%13 == 3 {
			want++
		}
	}
	if len(lex) != 1000 || lex[want-1].TermsMatched != 2 || lex[want].TermsMatched != 1 {
		t.Fatalf("lexical: %d hits, want 1000 with the first %d matching both terms", len(lex), want)
	}
	for i := 1; i < len(lex); i++ {
		a, b := lex[i-1].Record, lex[i].Record
		if lex[i-1].TermsMatched != lex[i].TermsMatched {
			continue
		}
		if a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID > b.ID) {
			t.Fatalf("lexical order broken at %d: %s %v then %s %v", i, a.ID, a.CreatedAt, b.ID, b.CreatedAt)
		}
	}
}

func mustDot(t *testing.T, a, b []float32) float32 {
	t.Helper()
	d, err := vector.Dot(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var base = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func at(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }

// TestWordIndexMatchesScan checks the word index against strings.Contains
// over every live owner, through inserts, text changes and deletes that
// force rebuilds, with terms inside words, across separators, made only of
// separators and multi-byte.
func TestWordIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"soja", "sojas", "milho", "ferrugem", "2,4-d", "100%", "0,5", "l/ha", "cana-de-acucar", "ação", "fungicida", "de", "a", "%", "_", "\\", "x"}
	seps := []string{" ", "\n", "-", ", ", "/", "%"}
	text := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		return b.String()
	}
	terms := []string{"soja", "oja", "sojas", "milho de", "2,4-d", "4-d", ",", "%", "_", "\\", "100%", "l/ha", "cana-de", "de acucar", "çã", "ação", "ca", "xyz", "a", "fungicida\nsoja", "errugem"}

	kd := &kindData{owners: make(map[string]*owner), words: newWordIndex()}
	for step := range 6000 {
		id := fmt.Sprintf("o%03d", rng.IntN(400))
		switch {
		case rng.IntN(3) == 0:
			kd.remove(id)
		default:
			kd.put(&owner{id: id, slot: -1, active: true, search: text()})
		}
		if step%500 != 499 {
			continue
		}
		for _, term := range terms {
			qs := []string{term, "soja", "de"} // several terms at once
			got := map[string]int{}
			err := kd.words.lexicalMatches(qs, func() error { return nil }, func(o *owner, n int) {
				if _, dup := got[o.id]; dup {
					t.Fatalf("owner %s reported twice", o.id)
				}
				got[o.id] = n
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			for _, o := range kd.list {
				n := 0
				for _, q := range qs {
					if strings.Contains(o.search, q) {
						n++
					}
				}
				if n > 0 {
					want[o.id] = n
				}
			}
			if !maps.Equal(got, want) {
				t.Fatalf("step %d, terms %q: index found %d owners, scan %d", step, qs, len(got), len(want))
			}
		}
	}
	if kd.words.live != len(kd.list) {
		t.Errorf("index has %d live slots, store %d owners", kd.words.live, len(kd.list))
	}
}

// TestWordIndexRebuild checks that dropped slots are reclaimed.
func TestWordIndexRebuild(t *testing.T) {
	kd := &kindData{owners: make(map[string]*owner), words: newWordIndex()}
	for i := range 5000 {
		kd.put(&owner{id: "x", slot: -1, active: true, search: fmt.Sprintf("texto %d soja", i)})
	}
	if n := len(kd.words.slots); n > 2*minCompact+2 {
		t.Errorf("after 5000 rewrites of one owner the index holds %d slots", n)
	}
	var n int
	if err := kd.words.lexicalMatches([]string{"soja"}, func() error { return nil }, func(*owner, int) { n++ }); err != nil || n != 1 {
		t.Errorf("got %d matches, err %v; want 1", n, err)
	}
}

// FuzzWordIndex checks the word index against strings.Contains on
// arbitrary texts and terms.
func FuzzWordIndex(f *testing.F) {
	f.Add("fungicida para soja, 2,4-d 100%", "2,4-d", "soja")
	f.Add("cana-de-acucar\nmilho", "de-a", "%")
	f.Add("ação çã", "çã", "a")
	f.Fuzz(func(t *testing.T, text, term1, term2 string) {
		kd := &kindData{owners: make(map[string]*owner), words: newWordIndex()}
		texts := []string{text, term1 + " " + text, strings.ToUpper(text), text + term2}
		for i, tx := range texts {
			kd.put(&owner{id: fmt.Sprint(i), slot: -1, active: true, search: tx})
		}
		terms := storeutil.NormalizeTerms([]string{term1, term2})
		if len(terms) == 0 {
			return
		}
		got := map[string]int{}
		if err := kd.words.lexicalMatches(terms, func() error { return nil }, func(o *owner, n int) { got[o.id] = n }); err != nil {
			t.Fatal(err)
		}
		for _, o := range kd.list {
			n := 0
			for _, q := range terms {
				if strings.Contains(o.search, q) {
					n++
				}
			}
			if got[o.id] != n {
				t.Fatalf("text %q, terms %q: index counts %d, scan %d", o.search, terms, got[o.id], n)
			}
		}
	})
}
