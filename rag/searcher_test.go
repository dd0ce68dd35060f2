package rag_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

func TestSearchCatalogFindsGrapeFungicides(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchCatalog(context.Background(), rag.Query{Text: "fungicida para videira", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !res.EmbeddingUsed || res.FallbackReason != rag.FallbackNone {
		t.Fatalf("embedding used = %v, fallback %q, vector err %v", res.EmbeddingUsed, res.FallbackReason, res.VectorError)
	}
	if len(res.Hits) != 5 {
		t.Fatalf("got %d hits, want 5: %v", len(res.Hits), hitIDs(res.Hits))
	}
	// videira → uva is a synonym: the canonical culture must be searched.
	if !slices.Contains(res.Query.Terms, "uva") {
		t.Errorf("terms %v lack the synonym expansion uva", res.Query.Terms)
	}
	for _, h := range res.Hits {
		it := h.Record
		if !strings.Contains(strings.ToLower(it.Category), "fungicida") || !slices.Contains(it.Tags, "Uva") {
			t.Errorf("hit %s %q (%s, %v) is not a grape fungicide", h.ID, it.Name, it.Category, it.Tags)
		}
		if it.Status == storage.StatusInactive {
			t.Errorf("inactive item %s returned", h.ID)
		}
		if res.Fusion != merge.MethodWeighted || h.Explanation.Combined == nil {
			t.Errorf("hit %s lacks a weighted explanation: %+v", h.ID, h.Explanation)
		}
		if h.Lexical == nil || h.Lexical.Signals == nil {
			t.Errorf("hit %s lacks lexical signals", h.ID)
		} else if !h.Lexical.Signals.Pair {
			t.Errorf("hit %s: culture+treatment pair not detected: %+v", h.ID, h.Lexical.Signals)
		}
		if h.Snippet == "" {
			t.Errorf("hit %s has no snippet", h.ID)
		}
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("hits not sorted by score at %d: %v > %v", i, res.Hits[i].Score, res.Hits[i-1].Score)
		}
	}
	if res.Timings.Total <= 0 {
		t.Error("no total timing")
	}
}

func TestSearchModesAndFusions(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		q      rag.Query
		method merge.Method
	}{
		{"simple", rag.Query{Fusion: merge.MethodSimple}, merge.MethodSimple},
		{"weighted", rag.Query{Fusion: merge.MethodWeighted}, merge.MethodWeighted},
		{"rrf", rag.Query{Fusion: merge.MethodRRF}, merge.MethodRRF},
		{"relative", rag.Query{Fusion: merge.MethodRelative}, merge.MethodRelative},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Text, q.Limit = "inseticida para lagarta no milho", 8
			res, err := s.SearchCatalog(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if res.Fusion != tc.method || len(res.Hits) == 0 {
				t.Fatalf("fusion %q, %d hits", res.Fusion, len(res.Hits))
			}
			for _, h := range res.Hits {
				want := rag.SourceLexical
				switch {
				case h.Vector != nil && h.Lexical != nil && h.Lexical.Rank > 0:
					want = rag.SourceBoth
				case h.Vector != nil:
					want = rag.SourceVector
				}
				if h.Source != want {
					t.Errorf("hit %s source %q, evidence says %q", h.ID, h.Source, want)
				}
			}
			if tc.method == merge.MethodSimple {
				// Simple: every vector hit precedes every lexical-only hit.
				seenLexOnly := false
				for _, h := range res.Hits {
					if h.Source == rag.SourceLexical {
						seenLexOnly = true
					} else if seenLexOnly {
						t.Errorf("vector hit %s after a lexical-only hit", h.ID)
					}
				}
			}
		})
	}
}

func TestSearchLegs(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()
	lex, err := s.SearchCatalog(ctx, rag.Query{Text: "herbicida para cana", Legs: rag.LegsLexical})
	if err != nil {
		t.Fatal(err)
	}
	if lex.EmbeddingUsed || lex.VectorCount != 0 || lex.LexicalCount == 0 {
		t.Errorf("lexical leg: embedding used %v, counts vec %d lex %d", lex.EmbeddingUsed, lex.VectorCount, lex.LexicalCount)
	}
	vec, err := s.SearchCatalog(ctx, rag.Query{Text: "herbicida para cana", Legs: rag.LegsVector})
	if err != nil {
		t.Fatal(err)
	}
	if !vec.EmbeddingUsed || vec.LexicalCount != 0 || vec.VectorCount == 0 {
		t.Errorf("vector leg: embedding used %v, counts vec %d lex %d", vec.EmbeddingUsed, vec.VectorCount, vec.LexicalCount)
	}
	for _, h := range vec.Hits {
		if h.Source != rag.SourceVector {
			t.Errorf("vector-only search returned %s from %q", h.ID, h.Source)
		}
	}
}

func TestSearchBadInput(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()
	for _, text := range []string{"", "   ", "\t\n"} {
		if _, err := s.SearchCatalog(ctx, rag.Query{Text: text}); !errors.Is(err, rag.ErrEmptyQuery) {
			t.Errorf("SearchCatalog(%q) error %v, want ErrEmptyQuery", text, err)
		}
		if _, err := s.SearchFAQs(ctx, rag.Query{Text: text, Context: "frete"}); !errors.Is(err, rag.ErrEmptyQuery) {
			t.Errorf("SearchFAQs(%q) error %v, want ErrEmptyQuery", text, err)
		}
	}
	for name, q := range map[string]rag.Query{
		"legs":      {Text: "x", Legs: "both"},
		"fusion":    {Text: "x", Fusion: "borda"},
		"threshold": {Text: "x", VectorThreshold: ragtest.Ptr(math.NaN())},
		"filter":    {Text: "x", Filters: []storage.Filter{{Field: "price", Value: "1"}}},
	} {
		if _, err := s.SearchCatalog(ctx, q); !errors.Is(err, rag.ErrInvalidQuery) {
			t.Errorf("%s: error %v, want ErrInvalidQuery", name, err)
		}
	}
	// Limits are clamped, never rejected.
	for _, tc := range []struct{ in, want int }{{-5, rag.DefaultLimit}, {0, rag.DefaultLimit}, {1, 1}, {10_000, rag.DefaultMaxLimit}} {
		res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida", Limit: tc.in})
		if err != nil {
			t.Fatal(err)
		}
		if res.Limit != tc.want || len(res.Hits) > tc.want {
			t.Errorf("limit %d: clamped to %d with %d hits, want %d", tc.in, res.Limit, len(res.Hits), tc.want)
		}
	}
	// Wildcards and invalid UTF-8 are text, not syntax.
	for _, text := range []string{"100%", "fixa_max", `a\b`, "'; DROP TABLE items; --", "caf\xc3", strings.Repeat("fungicida ", 2000)} {
		if _, err := s.SearchCatalog(ctx, rag.Query{Text: text}); err != nil {
			t.Errorf("SearchCatalog(%.40q): %v", text, err)
		}
	}
	// A query with no token falls back to its whole normalized text, which
	// the store must match literally: "%" and "_" are not wildcards.
	for _, text := range []string{"%", "_", "%%"} {
		res, err := s.SearchCatalog(ctx, rag.Query{Text: text, Legs: rag.LegsLexical, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Query.Fallback {
			t.Errorf("%q: expected the fallback term, got tokens %v", text, res.Query.Tokens)
		}
		for _, h := range res.Hits {
			if !strings.Contains(storage.ItemSearchText(&h.Record), text) {
				t.Errorf("%q matched %s %q, which does not contain it", text, h.ID, h.Record.Name)
			}
		}
		if text != "%%" && len(res.Hits) == 0 {
			t.Errorf("%q matched nothing; testdata has names with it", text)
		}
	}
}

func TestSearchCancelled(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).SearchCatalog(ctx, rag.Query{Text: "fungicida"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestSearchFAQsUsesContext(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchFAQs(context.Background(), rag.Query{Text: "e quanto tempo demora?", Context: "entrega frete prazo", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Query.Text, "frete") {
		t.Errorf("effective query %q lacks the context", res.Query.Text)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no FAQ hits")
	}
	top := strings.ToLower(res.Hits[0].Record.Question + " " + res.Hits[0].Record.Answer)
	if !strings.Contains(top, "entrega") && !strings.Contains(top, "frete") {
		t.Errorf("top FAQ %q is not about delivery", res.Hits[0].Record.Question)
	}
	long := strings.Repeat("palavra ", 400)
	res, err = s.SearchFAQs(context.Background(), rag.Query{Text: "frete", Context: long})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Query.Text)); n > rag.DefaultMaxFAQQueryChars {
		t.Errorf("FAQ query of %d chars, want <= %d", n, rag.DefaultMaxFAQQueryChars)
	}
}

func TestSearchDocuments(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchDocuments(context.Background(), rag.Query{Text: "como controlar buva resistente", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no document hits")
	}
	if !strings.Contains(strings.ToLower(res.Hits[0].Record.Title), "daninha") {
		t.Errorf("top document %q, want the weed-management one", res.Hits[0].Record.Title)
	}
}

func TestSearchRerank(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	kw, err := rerank.NewKeyword(rerank.KeywordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{Rerank: rag.RerankOptions{Reranker: kw}})
	res, err := s.SearchCatalog(context.Background(), rag.Query{Text: "fungicida para uva", Limit: 10, Rerank: rag.On})
	if err != nil {
		t.Fatal(err)
	}
	if res.RerankError != nil {
		t.Fatal(res.RerankError)
	}
	if len(res.Hits) == 0 || len(res.Hits) > rerank.DefaultFinal {
		t.Fatalf("%d reranked hits, want 1..%d", len(res.Hits), rerank.DefaultFinal)
	}
	for _, h := range res.Hits {
		if h.Rerank == nil || h.Score < rerank.DefaultMinScore {
			t.Errorf("hit %s: rerank %+v score %v", h.ID, h.Rerank, h.Score)
		}
	}
	// A failing reranker keeps the fused order.
	bad := rerank.Func(func(context.Context, string, []rerank.Candidate) ([]rerank.Result, error) {
		return nil, errors.New("reranker down")
	})
	s = rag.NewSearcher(store, emb, rag.SearcherOptions{Rerank: rag.RerankOptions{Reranker: bad, Enabled: rag.On}})
	res, err = s.SearchCatalog(context.Background(), rag.Query{Text: "fungicida para uva", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.RerankError == nil || len(res.Hits) != 10 {
		t.Errorf("rerank error %v with %d hits", res.RerankError, len(res.Hits))
	}
}

func TestSearchFilters(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchCatalog(context.Background(), rag.Query{
		Text: "fungicida", Limit: 20,
		Filters: []storage.Filter{{Field: storage.FieldTag, Value: "uva"}, {Field: storage.FieldManufacturer, Value: "agrovale"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range res.Hits {
		if !slices.Contains(h.Record.Tags, "Uva") || !strings.EqualFold(h.Record.Manufacturer, "AgroVale") {
			t.Errorf("hit %s (%s, %v) escapes the filters", h.ID, h.Record.Manufacturer, h.Record.Tags)
		}
	}
}

// Repeated searches give the same ranking (deterministic ties), also under
// concurrent use.
func TestSearchDeterministic(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()
	first, err := s.SearchCatalog(ctx, rag.Query{Text: "adubo foliar", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := hitIDs(first.Hits)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := s.SearchCatalog(ctx, rag.Query{Text: "adubo foliar", Limit: 10})
			if err != nil {
				t.Error(err)
				return
			}
			if got := hitIDs(res.Hits); !slices.Equal(got, want) {
				t.Errorf("ranking changed: %v vs %v", got, want)
			}
		})
	}
	wg.Wait()
}

func TestCombineQueryWithContext(t *testing.T) {
	for _, tc := range []struct {
		q, c string
		max  int
		want string
	}{
		{"frete", "", 20, "frete"},
		{"frete", "entrega rápida", 100, "frete entrega rápida"},
		{"frete", "entrega rápida", 12, "frete entreg"},
		{"  frete  ", "  ", 100, "frete"},
		{"ação ação", "x", 4, "ação"},
	} {
		if got := rag.CombineQueryWithContext(tc.q, tc.c, tc.max); got != tc.want {
			t.Errorf("CombineQueryWithContext(%q, %q, %d) = %q, want %q", tc.q, tc.c, tc.max, got, tc.want)
		}
	}
}

// Fault injection: every vector failure still answers lexically, with the
// seeds' fallback reasons.
func TestSearchFallbacks(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx := context.Background()
	q := rag.Query{Text: "fungicida para videira", Limit: 5}
	lexOnly, err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).SearchCatalog(ctx, rag.Query{Text: q.Text, Limit: 5, Legs: rag.LegsLexical})
	if err != nil {
		t.Fatal(err)
	}
	hang := vector.EmbedderFunc{Dims: ragtest.Dims, Fn: func(ctx context.Context, _ []string) ([][]float32, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	deaf := vector.EmbedderFunc{Dims: ragtest.Dims, Fn: func(context.Context, []string) ([][]float32, error) {
		time.Sleep(2 * time.Second) // ignores its context
		return nil, errors.New("late")
	}}
	failing := vector.EmbedderFunc{Dims: ragtest.Dims, Fn: func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("embedding service down")
	}}
	for _, tc := range []struct {
		name   string
		store  storage.Store
		emb    vector.Embedder
		reason rag.FallbackReason
	}{
		{"no embedder", store, nil, rag.FallbackEmbeddingDisabled},
		{"embedder error", store, failing, rag.FallbackEmbeddingFailed},
		{"embedder hangs past the timeout", store, hang, rag.FallbackEmbeddingFailed},
		{"embedder ignores its context", store, deaf, rag.FallbackEmbeddingFailed},
		{"vector store error", failingVectorStore{store}, emb, rag.FallbackVectorQueryError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The embed timeout is what the embedder cases test; the
			// store case's embedder works, and under -race on a loaded
			// machine it can take more than 100ms, which would make
			// that case an embedding failure instead.
			timeout := 100 * time.Millisecond
			if tc.reason == rag.FallbackVectorQueryError {
				timeout = 10 * time.Second
			}
			s := rag.NewSearcher(tc.store, tc.emb, rag.SearcherOptions{Vector: rag.VectorOptions{EmbedTimeout: timeout}})
			start := time.Now()
			res, err := s.SearchCatalog(ctx, q)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if res.FallbackReason != tc.reason || res.EmbeddingUsed {
				t.Errorf("fallback %q (used %v), want %q", res.FallbackReason, res.EmbeddingUsed, tc.reason)
			}
			if tc.reason != rag.FallbackEmbeddingDisabled && res.VectorError == nil {
				t.Error("VectorError not set")
			}
			if took > time.Second {
				t.Errorf("search took %v with a 100ms embed timeout", took)
			}
			if got, want := hitIDs(res.Hits), hitIDs(lexOnly.Hits); !slices.Equal(got, want) {
				t.Errorf("fallback hits %v, lexical-only hits %v", got, want)
			}
		})
	}
}

// TestVectorOnlyStoreError: in a vector-only search, the store's failure
// is the search's error (there are no lexical results to fall back on, and
// an empty result would report an outage as "no results"), in every kind;
// an embedder failure still yields an empty result with its fallback
// reason, and a hybrid search still falls back to the lexical results.
func TestVectorOnlyStoreError(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx := context.Background()
	failing := vector.EmbedderFunc{Dims: ragtest.Dims, Fn: func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("embedding service down")
	}}
	down := rag.NewSearcher(failingVectorStore{store}, emb, rag.SearcherOptions{})
	q := rag.Query{Text: "fungicida para videira", Legs: rag.LegsVector}
	for name, search := range map[string]func(rag.Query) error{
		"catalog":   func(q rag.Query) error { _, err := down.SearchCatalog(ctx, q); return err },
		"faq":       func(q rag.Query) error { _, err := down.SearchFAQs(ctx, q); return err },
		"documents": func(q rag.Query) error { _, err := down.SearchDocuments(ctx, q); return err },
	} {
		t.Run(name, func(t *testing.T) {
			if err := search(q); !errors.Is(err, errVectorDown) {
				t.Errorf("vector-only search over a failing store: err = %v, want one wrapping %v", err, errVectorDown)
			}
		})
	}
	t.Run("hybrid still falls back", func(t *testing.T) {
		res, err := down.SearchCatalog(ctx, rag.Query{Text: q.Text})
		if err != nil || res.FallbackReason != rag.FallbackVectorQueryError || len(res.Hits) == 0 {
			t.Fatalf("hybrid: err %v, result %+v", err, res)
		}
	})
	t.Run("embedder failure is no error", func(t *testing.T) {
		res, err := rag.NewSearcher(store, failing, rag.SearcherOptions{}).SearchCatalog(ctx, q)
		if err != nil || res.FallbackReason != rag.FallbackEmbeddingFailed || len(res.Hits) != 0 {
			t.Fatalf("vector-only with a failing embedder: err %v, result %+v", err, res)
		}
	})
}

// TestSearcherCopiesOptions: changing the caller's threshold after
// NewSearcher does not change the Searcher.
func TestSearcherCopiesOptions(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	thr := -0.2
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{Kinds: rag.KindsOptions{Catalog: rag.KindOptions{Threshold: &thr}}})
	thr = 5 // would keep every chunk
	if got := *s.Options().Kinds.Catalog.Threshold; got != -0.2 {
		t.Errorf("threshold %v after the caller's change, want -0.2", got)
	}
}

// TestSearcherNormalizesQueryVectors: an embedder returning non-unit
// vectors gives the same hits as the same embedder normalized, and a NaN
// vector falls back to the lexical results.
func TestSearcherNormalizesQueryVectors(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx := context.Background()
	scaled := vector.EmbedderFunc{Dims: emb.Dimensions(), Fn: func(ctx context.Context, texts []string) ([][]float32, error) {
		vs, err := emb.Embed(ctx, texts)
		for _, v := range vs {
			for i := range v {
				v[i] *= 7
			}
		}
		return vs, err
	}}
	q := rag.Query{Text: "fungicida para videira", Limit: 5, Legs: rag.LegsVector, VectorThreshold: ragtest.Ptr(-0.2)}
	want, err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).SearchCatalog(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rag.NewSearcher(store, scaled, rag.SearcherOptions{}).SearchCatalog(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	// The same hits; near-ties may swap, as the normalized copy differs
	// from the embedder's own unit vector in the last bits.
	g, w := hitIDs(got.Hits), hitIDs(want.Hits)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) || len(w) == 0 {
		t.Errorf("scaled embedder hits %v, unit embedder hits %v", g, w)
	}
	nan := vector.EmbedderFunc{Dims: emb.Dimensions(), Fn: func(_ context.Context, texts []string) ([][]float32, error) {
		v := make([]float32, emb.Dimensions())
		v[0] = float32(math.NaN())
		return [][]float32{v}, nil
	}}
	res, err := rag.NewSearcher(store, nan, rag.SearcherOptions{}).SearchCatalog(ctx, rag.Query{Text: "fungicida para videira", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.FallbackReason != rag.FallbackEmbeddingFailed || !errors.Is(res.VectorError, vector.ErrNotFinite) {
		t.Errorf("NaN query vector: fallback %q, vector error %v", res.FallbackReason, res.VectorError)
	}
}

// lateVectorStore answers a vector search only once a lexical item search
// has returned (and 20 ms more, for the lexical leg to hand over its
// candidates), and records the IDs of every item GetMany.
type lateVectorStore struct {
	ragtest.Store
	lexDone chan struct{}
	once    *sync.Once
	mu      *sync.Mutex
	lexIDs  map[string]bool
	asked   *[]string
}

func newLateVectorStore(inner storage.Store) lateVectorStore {
	s := lateVectorStore{lexDone: make(chan struct{}), once: &sync.Once{}, mu: &sync.Mutex{}, lexIDs: map[string]bool{}, asked: new([]string)}
	s.Store = ragtest.Store{Store: inner, ItemsFunc: func(r storage.RecordStore[storage.CatalogItem]) storage.RecordStore[storage.CatalogItem] {
		return ragtest.Records[storage.CatalogItem]{RecordStore: r,
			SearchFunc: func(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[storage.CatalogItem], error) {
				cands, err := r.Search(ctx, q)
				s.mu.Lock()
				for _, c := range cands {
					s.lexIDs[c.Record.ID] = true
				}
				s.mu.Unlock()
				s.once.Do(func() { close(s.lexDone) })
				return cands, err
			},
			GetManyFunc: func(ctx context.Context, ids []string) ([]storage.CatalogItem, error) {
				s.mu.Lock()
				*s.asked = append(*s.asked, ids...)
				s.mu.Unlock()
				return r.GetMany(ctx, ids)
			}}
	}}
	return s
}

func (s lateVectorStore) SearchChunks(ctx context.Context, q storage.VectorQuery) ([]storage.ChunkMatch, error) {
	select {
	case <-s.lexDone:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	time.Sleep(20 * time.Millisecond)
	return s.Store.SearchChunks(ctx, q)
}

// When the lexical leg has ended before the vector leg's hits are known,
// the records it returned are not read again (only the vector-only hits'
// are), and the search's hits are the same as when every vector hit's
// record is read.
func TestSearchVectorRecordsNotReadTwice(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx := context.Background()
	read := 0
	for _, text := range []string{"fungicida para videira", "herbicida para buva na soja", "inseticida lagarta milho"} {
		want, err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).SearchCatalog(ctx, rag.Query{Text: text, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		late := newLateVectorStore(store)
		got, err := rag.NewSearcher(late, emb, rag.SearcherOptions{}).SearchCatalog(ctx, rag.Query{Text: text, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(hitIDs(got.Hits), hitIDs(want.Hits)) {
			t.Errorf("%q: hits %v, want %v", text, hitIDs(got.Hits), hitIDs(want.Hits))
		}
		for i := range got.Hits {
			if i < len(want.Hits) && (got.Hits[i].Score != want.Hits[i].Score || !reflect.DeepEqual(got.Hits[i].Record, want.Hits[i].Record)) {
				t.Errorf("%q: hit %d %s differs: score %v, want %v", text, i, got.Hits[i].ID, got.Hits[i].Score, want.Hits[i].Score)
			}
		}
		shared := 0
		for _, id := range *late.asked {
			if late.lexIDs[id] {
				t.Errorf("%q: GetMany read %s, a lexical candidate", text, id)
			}
		}
		for _, h := range got.Hits {
			if h.Lexical != nil && h.Vector != nil {
				shared++
			}
		}
		if shared == 0 {
			t.Errorf("%q: no hit in both legs: the test does not test", text)
		}
		read += len(*late.asked)
	}
	if read == 0 {
		t.Error("no vector-only hit's record read: the test does not test")
	}
}
