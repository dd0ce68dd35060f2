package rag_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// A discontinued product asked by name (prd-014, inactive, never
// searched) is said to be discontinued, with the substitute its record
// names (Cobrefix 500 WP), both cited; not "Não encontrei".
func TestPipelineDiscontinuedNamed(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "ainda tem o Vinhedo Cobre 350 WP?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained || !strings.Contains(resp.Answer, "descontinuado") || !strings.Contains(resp.Answer, "Substituto no catálogo: Cobrefix 500 WP") {
		t.Fatalf("abstained=%v answer:\n%s", resp.Abstained, resp.Answer)
	}
	var ids []string
	for _, c := range resp.Sources {
		ids = append(ids, c.ID)
	}
	if len(ids) != 2 || ids[0] != "prd-014" {
		t.Errorf("sources %v, want prd-014 and its substitute", ids)
	}
	// A name that is not in the catalog still abstains.
	resp, err = p.Chat(context.Background(), rag.ChatRequest{Message: "ainda tem o Vinhedo Prata 900 WP?"})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Abstained {
		t.Errorf("unknown product answered: %s", resp.Answer)
	}
}

// A catalog question with more relevant products than the answer
// describes names the others ("E mais 2 produtos: …") instead of
// dropping them.
func TestPipelineListsMoreProducts(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Catalog) <= 3 {
		t.Fatalf("%d catalog hits, the test needs more than 3", len(resp.Catalog))
	}
	more := resp.Catalog[3:]
	want := fmt.Sprintf("E mais %d produtos: ", len(more))
	if len(more) == 1 {
		want = "E mais 1 produto: "
	}
	if !strings.Contains(resp.Answer, want) {
		t.Fatalf("answer does not name the other products:\n%s", resp.Answer)
	}
	for _, h := range more {
		if !strings.Contains(resp.Answer, h.Record.Name) {
			t.Errorf("answer misses %s (%s):\n%s", h.ID, h.Record.Name, resp.Answer)
		}
	}
}

// An English question gets English units and labels in the leaflet
// facts ("safety interval: 7 days (label)", not "7 dias") and an English
// confidence_text.
func TestPipelineEnglishAnswerStrings(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "do you have any herbicide for weeds in soybean?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained || !strings.Contains(resp.Answer, "safety interval: ") {
		t.Fatalf("answer:\n%s", resp.Answer)
	}
	for _, pt := range []string{" dias", "não determinado", " de água", "(bula)", "na dessecação"} {
		if strings.Contains(resp.Answer, pt) {
			t.Errorf("English answer keeps %q:\n%s", pt, resp.Answer)
		}
	}
	if want := rag.ConfidenceMessage(resp.Confidence, rag.LanguageEnglish); resp.ConfidenceText != want || !strings.Contains(want, "CONFIDENCE") {
		t.Errorf("confidence_text %q, want %q", resp.ConfidenceText, want)
	}
	// Portuguese keeps seed 002's messages.
	resp, err = p.Chat(context.Background(), rag.ChatRequest{Message: "tem herbicida para buva na soja?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ConfidenceText != resp.Confidence.Message() {
		t.Errorf("pt confidence_text %q", resp.ConfidenceText)
	}
}
