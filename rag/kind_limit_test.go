package rag_test

import (
	"context"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// TestKindOptionsLimit: a kind's Limit is the default number of hits of
// its searches (seed 002's RAG__TOP_K for documents); a query's own Limit
// wins, other kinds keep LimitOptions.Default, and LimitOptions.Max still clamps.
func TestKindOptionsLimit(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx := context.Background()
	docs := func(t *testing.T, opts rag.SearcherOptions, limit int) int {
		t.Helper()
		r, err := rag.NewSearcher(store, emb, opts).SearchDocuments(ctx, rag.Query{Text: "manejo de pragas", Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Hits)
	}
	if n := docs(t, rag.SearcherOptions{}, 0); n < 3 {
		t.Fatalf("the fixture gives %d documents for the query; the test needs at least 3", n)
	}
	tests := []struct {
		name  string
		opts  rag.SearcherOptions
		limit int
		want  int
	}{
		{"kind limit", rag.SearcherOptions{Kinds: rag.KindsOptions{Documents: rag.KindOptions{Limit: 2}}}, 0, 2},
		{"kind limit below Limits.Default", rag.SearcherOptions{Limits: rag.LimitOptions{Default: 4}, Kinds: rag.KindsOptions{Documents: rag.KindOptions{Limit: 1}}}, 0, 1},
		{"query limit wins", rag.SearcherOptions{Kinds: rag.KindsOptions{Documents: rag.KindOptions{Limit: 1}}}, 3, 3},
		{"Limits.Max clamps", rag.SearcherOptions{Limits: rag.LimitOptions{Max: 2}, Kinds: rag.KindsOptions{Documents: rag.KindOptions{Limit: 10}}}, 0, 2},
		{"negative means Limits.Default", rag.SearcherOptions{Limits: rag.LimitOptions{Default: 3}, Kinds: rag.KindsOptions{Documents: rag.KindOptions{Limit: -1}}}, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if n := docs(t, tc.opts, tc.limit); n != tc.want {
				t.Errorf("%d hits, want %d", n, tc.want)
			}
		})
	}
	t.Run("other kinds keep Limits.Default", func(t *testing.T) {
		r, err := rag.NewSearcher(store, emb, rag.SearcherOptions{Kinds: rag.KindsOptions{Documents: rag.KindOptions{Limit: 1}}}).SearchCatalog(ctx, rag.Query{Text: "fungicida"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) != 5 {
			t.Errorf("%d catalog hits, want Limits.Default 5", len(r.Hits))
		}
	})
}

// TestPipelineDocumentsOff: PipelineOptions.Documents = Off plans no
// document search, even for intents and follow-ups that would run one.
func TestPipelineDocumentsOff(t *testing.T) {
	const msg = "como fazer o manejo de buva resistente?" // agronomy: every search
	for _, tc := range []struct {
		name string
		opt  rag.Toggle
		want bool
	}{{"default", 0, true}, {"on", rag.On, true}, {"off", rag.Off, false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Documents: tc.opt})
			resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: msg})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Debug.Plan.Documents != tc.want || !resp.Debug.Plan.FAQ || !resp.Debug.Plan.Catalog {
				t.Fatalf("plan %+v, want documents=%v with FAQs and catalog", resp.Debug.Plan, tc.want)
			}
			if !tc.want && len(resp.Documents) != 0 {
				t.Errorf("%d document hits with document search off", len(resp.Documents))
			}
			if tc.want && len(resp.Documents) == 0 {
				t.Errorf("no document hits with document search on")
			}
			// A follow-up runs every search, but not a disabled one.
			resp, err = p.Chat(context.Background(), rag.ChatRequest{Message: "e por que isso ajuda?", History: []rag.Turn{
				{Role: "user", Content: msg}, {Role: "assistant", Content: resp.Answer},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Debug.FollowUp == nil || !resp.Debug.FollowUp.FollowUp {
				t.Fatalf("the second message is not taken as a follow-up: %+v", resp.Debug.FollowUp)
			}
			if resp.Debug.Plan.Documents != tc.want {
				t.Errorf("follow-up plan %+v searches documents", resp.Debug.Plan)
			}
		})
	}
}
