package rag_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// relevantIDs returns the IDs of the hits judged relevant, in order.
func relevantIDs[T any](t *testing.T, hits []rag.Hit[T]) []string {
	t.Helper()
	var out []string
	for _, h := range hits {
		if h.Evidence == nil {
			t.Fatalf("hit %s has no evidence", h.ID)
		}
		if h.Evidence.Relevance < 0 || h.Evidence.Relevance > 1 {
			t.Fatalf("hit %s relevance %v outside [0, 1]", h.ID, h.Evidence.Relevance)
		}
		if h.Evidence.Relevant {
			out = append(out, h.ID)
		}
	}
	return out
}

// TestEvidenceOnTestdata checks the per-hit decisions of the package
// documentation's worked examples, with the offline hash embedder.
func TestEvidenceOnTestdata(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()

	// Grape fungicides are relevant; the soybean-rust FAQ, close as its
	// text is, lacks the culture of the pair.
	cat, err := s.SearchCatalog(ctx, rag.Query{Text: "tem fungicida para videira?", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := relevantIDs(t, cat.Hits)
	if !slices.Contains(got, "prd-016") { // Fosetal 800 WG
		t.Errorf("grape fungicides: relevant %v, want prd-016 among them", got)
	}
	for _, h := range cat.Hits {
		if h.Evidence.Relevant && !h.Evidence.Pair {
			t.Errorf("%s (%s) relevant without the culture+treatment pair: %+v", h.ID, h.Record.Name, h.Evidence)
		}
	}
	faqs, err := s.SearchFAQs(ctx, rag.Query{Text: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range faqs.Hits {
		if h.ID == "faq-021" && (h.Evidence.Relevant || h.Evidence.Reason != rag.ReasonMissingPair) {
			t.Errorf("faq-021 (soybean rust): %+v, want not relevant, missing pair", h.Evidence)
		}
	}

	// A named product: only it is relevant among items sharing "250".
	cat, err = s.SearchCatalog(ctx, rag.Query{Text: "Qual a dose do Fungiprot 250 SC no café?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := relevantIDs(t, cat.Hits); !slices.Equal(got, []string{"prd-001"}) {
		t.Errorf("Fungiprot dose: relevant %v, want [prd-001]", got)
	}

	// Out of the store and noise: nothing is relevant anywhere.
	for _, q := range []string{"Vocês vendem ração para cachorro?", "asdkjh qwpoeiru zzxm", "do you sell cordless drills?"} {
		c, err := s.SearchCatalog(ctx, rag.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.SearchFAQs(ctx, rag.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.SearchDocuments(ctx, rag.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Concat(relevantIDs(t, c.Hits), relevantIDs(t, f.Hits), relevantIDs(t, d.Hits)); len(got) > 0 {
			t.Errorf("%q: relevant %v, want none", q, got)
		}
	}

	// The delivery FAQ is relevant, covered and vector-close.
	faqs, err = s.SearchFAQs(ctx, rag.Query{Text: "qual o prazo de entrega?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(faqs.Hits) == 0 || faqs.Hits[0].ID != "faq-001" || !faqs.Hits[0].Evidence.Relevant ||
		faqs.Hits[0].Evidence.Reason != rag.ReasonCovered || faqs.Hits[0].Evidence.Background == nil {
		t.Errorf("delivery FAQ: %+v", faqs.Hits)
	}
}

// TestEvidenceWithoutCalibration: with Calibration off the vector evidence
// maps the raw similarity, and lexical-only searches still judge hits.
func TestEvidenceWithoutCalibration(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{Evidence: rag.EvidenceOptions{Calibration: rag.Off}})
	res, err := s.SearchCatalog(context.Background(), rag.Query{Text: "fungicida para videira", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Evidence.Background != nil {
			t.Errorf("%s: background %+v with Calibration off", h.ID, h.Evidence.Background)
		}
	}
	lex, err := s.SearchCatalog(context.Background(), rag.Query{Text: "fungicida para videira", Limit: 5, Legs: rag.LegsLexical, Fusion: merge.MethodSimple})
	if err != nil {
		t.Fatal(err)
	}
	if got := relevantIDs(t, lex.Hits); !slices.Contains(got, "prd-016") {
		t.Errorf("lexical simple mode: relevant %v, want prd-016", got)
	}
}
