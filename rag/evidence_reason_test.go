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
