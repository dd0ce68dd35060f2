package rag_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/storage"
)

func TestSearchTypoCorrection(t *testing.T) {
	store, emb := ragtest.IndexedMemory(t)
	ctx := context.Background()
	clean, err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).SearchCatalog(ctx, rag.Query{Text: "fungicida para videira", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		store   storage.Store
		opts    rag.SearcherOptions
		want    []lexical.Correction
		text    string
		sameTop bool
	}{
		{
			name: "default: built from the store", store: store,
			want: []lexical.Correction{{From: "fungisida", To: "fungicida"}}, text: "fungicida para videira", sameTop: true,
		},
		{name: "TypoCorrection off", store: store, opts: rag.SearcherOptions{Lexical: rag.LexicalOptions{TypoCorrection: rag.Off}}, text: "fungisida para videira"},
		{name: "Vocabulary off", store: store, opts: rag.SearcherOptions{Lexical: rag.LexicalOptions{Vocabulary: rag.Off}}, text: "fungisida para videira"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := rag.NewSearcher(tt.store, emb, tt.opts).SearchCatalog(ctx, rag.Query{Text: "fungisida para videira", Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Query.Corrections, tt.want) {
				t.Errorf("corrections %v, want %v", res.Query.Corrections, tt.want)
			}
			if res.Query.Text != tt.text {
				t.Errorf("searched text %q, want %q", res.Query.Text, tt.text)
			}
			if tt.sameTop && (len(res.Hits) == 0 || res.Hits[0].ID != clean.Hits[0].ID) {
				t.Errorf("top hit %v, want %s as for the correct spelling", hitIDs(res.Hits), clean.Hits[0].ID)
			}
		})
	}
}

func TestSearchIDFWeights(t *testing.T) {
	store, emb := ragtest.IndexedMemory(t)
	ctx := context.Background()
	weights := func(opts rag.SearcherOptions) map[string]float64 {
		t.Helper()
		res, err := rag.NewSearcher(store, emb, opts).SearchCatalog(ctx, rag.Query{Text: "azoxistrobina para soja", Limit: 10, Legs: rag.LegsLexical})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range res.Hits {
			for _, m := range h.Lexical.Signals.Matched {
				out[m.Term] = m.IDF
			}
		}
		return out
	}
	w := weights(rag.SearcherOptions{})
	// "soja" tags many items, "azoxistrobina" few: the rare term weighs
	// more than the common one.
	if !(w["azoxistrobina"] > w["soja"]) || w["soja"] <= 0 {
		t.Errorf("IDF weights %v: want azoxistrobina > soja > 0", w)
	}
	for _, opts := range []rag.SearcherOptions{{Lexical: rag.LexicalOptions{IDF: rag.Off}}, {Lexical: rag.LexicalOptions{Vocabulary: rag.Off}}} {
		for term, idf := range weights(opts) {
			if idf != 1 {
				t.Errorf("%+v: term %q weighs %v, want 1", opts, term, idf)
			}
		}
	}
}

func TestRefresh(t *testing.T) {
	store, emb := ragtest.IndexedMemory(t)
	ctx := context.Background()
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	search := func() []lexical.Correction {
		t.Helper()
		res, err := s.SearchCatalog(ctx, rag.Query{Text: "zorevc vinabel", Limit: 3, Legs: rag.LegsLexical})
		if err != nil {
			t.Fatal(err)
		}
		return res.Query.Corrections
	}
	if c := search(); len(c) != 0 {
		t.Fatalf("corrections before the new item: %v", c)
	}
	// Two new items named "Zorvec": one transposition from the query's "zorevc".
	items := []storage.CatalogItem{
		{ID: "new-1", Name: "Zorvec Vinabel", Category: "Fungicida", Status: storage.StatusActive},
		{ID: "new-2", Name: "Zorvec Enicade", Category: "Fungicida", Status: storage.StatusActive},
	}
	if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	if c := search(); len(c) != 0 {
		t.Errorf("corrections with the stale vocabulary: %v", c)
	}
	s.Refresh()
	if c := search(); !slices.Equal(c, []lexical.Correction{{From: "zorevc", To: "zorvec"}}) {
		t.Errorf("corrections after Refresh: %v", c)
	}
}

func TestVocabulariesFromSources(t *testing.T) {
	src := ingest.Sources{
		Items: []storage.CatalogItem{
			{ID: "a", Name: "Fungicida Uva", Status: storage.StatusActive},
			{ID: "b", Name: "Fungicida Soja", Status: storage.StatusInactive}, // not searched, not counted
		},
		FAQs: []storage.FAQ{{ID: "f", Question: "Qual o prazo de entrega?", Answer: "Cinco dias."}},
	}
	v := rag.VocabulariesFrom(src.Items, src.FAQs, sourceDocs(src))
	if v.Catalog.Docs() != 1 || v.Catalog.DocFreq("soja") != 0 || v.Catalog.DocFreq("fungicida") != 1 {
		t.Errorf("catalog vocabulary: docs %d, df(soja) %d, df(fungicida) %d", v.Catalog.Docs(), v.Catalog.DocFreq("soja"), v.Catalog.DocFreq("fungicida"))
	}
	if v.FAQs.Docs() != 1 || v.FAQs.DocFreq("prazo") != 1 || v.Documents.Docs() != 0 {
		t.Errorf("FAQ/document vocabularies: %d faqs, df(prazo) %d, %d documents", v.FAQs.Docs(), v.FAQs.DocFreq("prazo"), v.Documents.Docs())
	}
}

func TestBuildVocabularies(t *testing.T) {
	store, _ := ragtest.IndexedMemory(t)
	v, err := rag.BuildVocabularies(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	want := vocabFrom(ragtest.TestdataSources(t))
	for _, c := range []struct {
		name      string
		got, want *lexical.Vocabulary
	}{{"catalog", v.Catalog, want.Catalog}, {"faqs", v.FAQs, want.FAQs}, {"documents", v.Documents, want.Documents}} {
		if c.got.Docs() != c.want.Docs() || c.got.Len() != c.want.Len() {
			t.Errorf("%s: built %d docs / %d words, from sources %d / %d", c.name, c.got.Docs(), c.got.Len(), c.want.Docs(), c.want.Len())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := rag.BuildVocabularies(ctx, store); err == nil {
		t.Error("BuildVocabularies with a cancelled context succeeded")
	}
}

func TestRefreshConcurrent(t *testing.T) {
	store, emb := ragtest.IndexedMemory(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			if _, err := s.SearchCatalog(ctx, rag.Query{Text: "insetisida soja", Limit: 3, Legs: rag.LegsLexical}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 20 {
		s.Refresh()
	}
	<-done
}

// vocabFrom builds the vocabularies of src.
func vocabFrom(src ingest.Sources) *rag.Vocabularies {
	return rag.VocabulariesFrom(src.Items, src.FAQs, sourceDocs(src))
}

// failingLister fails every record listing, as a store that is down.
func failingLister(st storage.Store) storage.Store {
	return ragtest.Store{
		Store: st,
		ItemsFunc: func(r storage.RecordStore[storage.CatalogItem]) storage.RecordStore[storage.CatalogItem] {
			return ragtest.Records[storage.CatalogItem]{RecordStore: r, ListFunc: func(context.Context, storage.Page) ([]storage.CatalogItem, error) { return nil, errListDown }}
		},
		FAQsFunc: func(r storage.RecordStore[storage.FAQ]) storage.RecordStore[storage.FAQ] {
			return ragtest.Records[storage.FAQ]{RecordStore: r, ListFunc: func(context.Context, storage.Page) ([]storage.FAQ, error) { return nil, errListDown }}
		},
		DocumentsFunc: func(r storage.RecordStore[storage.Document]) storage.RecordStore[storage.Document] {
			return ragtest.Records[storage.Document]{RecordStore: r, ListFunc: func(context.Context, storage.Page) ([]storage.Document, error) { return nil, errListDown }}
		},
	}
}

var errListDown = errors.New("list: store down")

// TestWarm: Warm builds the vocabularies up front and reports a failed
// build, where the lazy build of a search stays silent.
func TestWarm(t *testing.T) {
	store, emb := ragtest.IndexedMemory(t)
	ctx := context.Background()
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	if err := s.Warm(ctx); err != nil {
		t.Fatalf("Warm: %v", err)
	}
	res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungisida para videira", Legs: rag.LegsLexical})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Query.Corrections) == 0 {
		t.Error("no typo correction after Warm")
	}

	down := rag.NewSearcher(failingLister(store), emb, rag.SearcherOptions{})
	if err := down.Warm(ctx); !errors.Is(err, errListDown) {
		t.Errorf("Warm over a failing store: %v, want the listing error", err)
	}
	res, err = down.SearchCatalog(ctx, rag.Query{Text: "fungisida para videira", Legs: rag.LegsLexical})
	if err != nil || len(res.Query.Corrections) != 0 {
		t.Errorf("search over a failing lister: err %v, corrections %v; want results without corrections", err, res.Query.Corrections)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).Warm(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("Warm with a cancelled context: %v", err)
	}
}

// A valid inflection of an indexed word is no typo: the FAQs hold
// "entrega" and "entregam" but no "entregar", whose Snowball stem
// "entreg" the FAQ scorer matches; it once became "entrar". A real typo
// is still corrected.
func TestSearchFAQsInflectionNotCorrected(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()
	for _, text := range []string{"pra entregar", "quero entregar", "vai entregar amanha"} {
		res, err := s.SearchFAQs(ctx, rag.Query{Text: text, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Query.Corrections) != 0 || res.Query.Text != text {
			t.Errorf("%q: corrections %v, searched %q; want none", text, res.Query.Corrections, res.Query.Text)
		}
		if !slices.Contains(res.Query.Tokens, "entreg") {
			t.Errorf("%q: tokens %v, want the stem of entregar", text, res.Query.Tokens)
		}
	}
	res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungisida para videira", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if want := []lexical.Correction{{From: "fungisida", To: "fungicida"}}; !slices.Equal(res.Query.Corrections, want) {
		t.Errorf("fungisida: corrections %v, want %v", res.Query.Corrections, want)
	}
}

// sourceDocs returns the storage records of src's documents.
func sourceDocs(src ingest.Sources) []storage.Document {
	out := make([]storage.Document, len(src.Documents))
	for i := range src.Documents {
		out[i] = src.Documents[i].Document
	}
	return out
}
