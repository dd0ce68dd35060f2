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

// A document holding the crop and only the class of the pest asked is not
// about the pest: the corn leafhopper note (milho, inseticidas) does not
// answer the fall armyworm.
func TestPipelinePestByClassIsNoPair(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "a lagarta ta detonando o cartucho do milho aqui, oq vcs tem pra matar ela?"})
	if err != nil {
		t.Fatal(err)
	}
	ids := sourceIDs(resp)
	if slices.Contains(ids, "doc-002") || !slices.ContainsFunc(ids, func(id string) bool { return slices.Contains([]string{"prd-035", "prd-041", "prd-043", "prd-047"}, id) }) {
		t.Errorf("cited %v, want the insecticides for the fall armyworm and not the leafhopper note doc-002", ids)
	}
}
