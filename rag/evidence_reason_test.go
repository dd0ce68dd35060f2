package rag_test

import (
	"context"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// TestEvidenceReasonFilesOnly: an item that holds the one thing asked
// only in its leaflet's prose ("trator" in a nozzle's "pulverizadores
// tratorizados") covers the question, so its reason is not "partial"
// (nothing is missing) but files-only.
func TestEvidenceReasonFilesOnly(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchCatalog(context.Background(), rag.Query{Text: "vocês vendem trator?"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range res.Hits {
		e := h.Evidence
		if e == nil || !e.FilesOnly() || e.Coverage < 1 {
			continue
		}
		found = true
		if e.Relevant || e.Reason != rag.ReasonFilesOnly || len(e.Missing) > 0 {
			t.Errorf("%s: relevant %v, reason %q, missing %v; want not relevant, %q", h.ID, e.Relevant, e.Reason, e.Missing, rag.ReasonFilesOnly)
		}
	}
	if !found {
		t.Fatal("no item holds 'trator' in its files only: the test needs one")
	}
}

// TestChatIdentityFromAnyTerm: a concept counts toward what a record is
// when any of its terms is in the name, category or tags, not only the
// term its credit came from. Fosetal 800 WG says "videira" in its
// description and "Uva" in its tags, so for "tem fungicida para
// videira?" it is an item for grapes and is cited first, before items
// holding only "Uva" (the rule of f9704a1, which only examples/chatserver
// pinned before).
func TestChatIdentityFromAnyTerm(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	res, err := p.Chat(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Catalog) == 0 || res.Catalog[0].ID != "prd-016" {
		var ids []string
		for _, h := range res.Catalog {
			ids = append(ids, h.ID)
		}
		t.Errorf("catalog %v, want Fosetal 800 WG (prd-016) first", ids)
	}
}
