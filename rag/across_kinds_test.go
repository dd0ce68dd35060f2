package rag_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// The relative cut applies across kinds to FAQs and documents: a FAQ far
// less relevant than the product asked about (the warranty FAQ for the
// battery's duration, the liming FAQ for the lime's magnesium) is left
// out.
func TestPipelineCutAcrossKinds(t *testing.T) {
	ctx := context.Background()
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	for msg, tc := range map[string]struct{ want, not string }{
		"quanto tempo dura a bateria do pulverizador elétrico?": {"prd-077", "faq-032"},
		"calcario dolomitico de vcs tem quanto de magnesio?":    {"prd-064", "faq-027"},
	} {
		resp, err := p.Chat(ctx, rag.ChatRequest{Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		if ids := sourceIDs(resp); !slices.Contains(ids, tc.want) || slices.Contains(ids, tc.not) {
			t.Errorf("%q cited %v, want %s and not %s", msg, ids, tc.want, tc.not)
		}
	}
}
