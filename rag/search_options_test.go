package rag_test

import (
	"reflect"
	"testing"

	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/rerank"
)

// TestSearcherOptionsGrouped keeps SearcherOptions a handful of groups,
// one per concern, rather than a catch-all struct.
func TestSearcherOptionsGrouped(t *testing.T) {
	if n := reflect.TypeFor[rag.SearcherOptions]().NumField(); n > 10 {
		t.Errorf("SearcherOptions has %d top-level fields, want at most 10 (add to a group)", n)
	}
}

// TestDefaultSearcherOptionsFilled: every default a zero SearcherOptions
// stands for is filled in, in its group.
func TestDefaultSearcherOptionsFilled(t *testing.T) {
	o := rag.DefaultSearcherOptions()
	for name, v := range map[string]int{
		"Limits.Default": o.Limits.Default, "Limits.Max": o.Limits.Max,
		"Limits.MaxQueryChars": o.Limits.MaxQueryChars, "Limits.MaxFAQQueryChars": o.Limits.MaxFAQQueryChars,
		"Lexical.CandidateMultiplier": o.Lexical.CandidateMultiplier, "Lexical.CandidateMax": o.Lexical.CandidateMax,
		"Vector.ChunksPerOwner":  o.Vector.ChunksPerOwner,
		"Vector.SnippetMaxChars": o.Vector.SnippetMaxChars,
	} {
		if v < 1 {
			t.Errorf("%s = %d, want its default", name, v)
		}
	}
	if o.Vector.EmbedTimeout <= 0 || o.Fusion != merge.MethodWeighted {
		t.Errorf("EmbedTimeout %v, Fusion %q", o.Vector.EmbedTimeout, o.Fusion)
	}
	if o.Limits.Default != 5 || o.Limits.Max != 50 {
		t.Errorf("limits %+v, want default 5, max 50", o.Limits)
	}
}

// TestQueryRerankToggle: Query.Rerank On or Off overrides the Searcher's
// RerankOptions.Enabled; zero keeps it.
func TestQueryRerankToggle(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	kw, err := rerank.NewKeyword(rerank.KeywordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		enabled, q   rag.Toggle
		wantReranked bool
	}{
		{"default off", 0, 0, false},
		{"searcher on", rag.On, 0, true},
		{"query off wins", rag.On, rag.Off, false},
		{"query on wins", rag.Off, rag.On, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := rag.NewSearcher(store, emb, rag.SearcherOptions{Rerank: rag.RerankOptions{Reranker: kw, Enabled: tc.enabled}})
			res, err := s.SearchCatalog(t.Context(), rag.Query{Text: "fungicida para uva", Rerank: tc.q})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Hits) > 0 && res.Hits[0].Rerank != nil; got != tc.wantReranked {
				t.Errorf("reranked %v, want %v", got, tc.wantReranked)
			}
		})
	}
}
