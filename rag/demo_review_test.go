package rag_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
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
	ids := sourceIDs(resp)
	if len(ids) != 2 || ids[0] != "prd-014" {
		t.Errorf("sources %v, want prd-014 and its substitute", ids)
	}
	// Named without its concentration and formulation, as customers do.
	resp, err = p.Chat(context.Background(), rag.ChatRequest{Message: "vcs ainda vendem vinhedo cobre? meu pai sempre usou"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained || len(resp.Sources) == 0 || resp.Sources[0].ID != "prd-014" {
		t.Errorf("named by its brand words: abstained=%v answer:\n%s", resp.Abstained, resp.Answer)
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
// describes counts the others in the text and lists them apart
// (Related), never as citations: the text names only what it cites.
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
	want := fmt.Sprintf("E mais %d produtos relacionados, listados à parte.", len(more))
	if len(more) == 1 {
		want = "E mais 1 produto relacionado, listado à parte."
	}
	if !strings.Contains(resp.Answer, want) {
		t.Fatalf("answer does not count the other products:\n%s", resp.Answer)
	}
	if len(resp.Related) != len(more) {
		t.Fatalf("related = %+v, want the %d products past the third", resp.Related, len(more))
	}
	for i, h := range more {
		if strings.Contains(resp.Answer, h.Record.Name) {
			t.Errorf("answer names %s, which it does not cite:\n%s", h.Record.Name, resp.Answer)
		}
		if resp.Related[i].ID != h.ID || resp.Related[i].Quote == nil {
			t.Errorf("related[%d] = %+v, want %s with its quote", i, resp.Related[i], h.ID)
		}
		for _, c := range resp.Sources {
			if c.ID == h.ID {
				t.Errorf("%s is both related and cited", h.ID)
			}
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
	if !strings.Contains(resp.ConfidenceText, "CONFIDENCE") && !strings.Contains(resp.ConfidenceText, "NO RAG") {
		t.Errorf("confidence_text %q, want the English text", resp.ConfidenceText)
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

// countingStore counts the item listings of the discontinued index.
type countingStore struct {
	storage.Store
	inner storage.Store
	lists atomic.Int64
}

func (c *countingStore) Items() storage.RecordStore[storage.CatalogItem] {
	return ragtest.Records[storage.CatalogItem]{RecordStore: c.inner.Items(), ListFunc: func(ctx context.Context, page storage.Page) ([]storage.CatalogItem, error) {
		c.lists.Add(1)
		return c.inner.Items().List(ctx, page)
	}}
}

// The inactive names are read from the store once, not on every turn
// that would abstain (an off-topic question must not scan the catalog),
// and Searcher.Refresh picks up an item made inactive since.
func TestPipelineDiscontinuedIndexCached(t *testing.T) {
	ctx := context.Background()
	st, emb := ragtest.IndexedMemory(t) // its own store: the test writes to it
	cs := &countingStore{Store: st, inner: st}
	s := rag.NewSearcher(cs, emb, rag.SearcherOptions{})
	p, err := rag.NewPipeline(s, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chat := func(msg string) *rag.ChatResponse {
		t.Helper()
		resp, err := p.Chat(ctx, rag.ChatRequest{Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := chat("ainda tem o Vinhedo Cobre 350 WP?"); !strings.Contains(resp.Answer, "descontinuado") {
		t.Fatalf("answer: %s", resp.Answer)
	}
	built := cs.lists.Load()
	if built == 0 {
		t.Fatal("the discontinued index did not list the items")
	}
	for _, msg := range []string{"vocês vendem ração para cachorro?", "ainda tem o Vinhedo Cobre 350 WP?", "tem trator usado?"} {
		chat(msg)
	}
	if n := cs.lists.Load(); n != built {
		t.Fatalf("ListItems called %d times after the index was built (%d), want none", n-built, built)
	}

	it, err := st.Items().Get(ctx, "prd-003")
	if err != nil {
		t.Fatal(err)
	}
	it.Status = storage.StatusInactive
	if err := st.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{it}}); err != nil {
		t.Fatal(err)
	}
	s.Refresh()
	resp := chat("ainda tem o " + it.Name + "?")
	if !strings.Contains(resp.Answer, "descontinuado") || cs.lists.Load() == built {
		t.Fatalf("after Refresh, %s (made inactive) is not said discontinued (lists %d → %d): %s", it.Name, built, cs.lists.Load(), resp.Answer)
	}
}

// The extractive answer states the passages the model's context quotes:
// a follow-up about the previous turn's subject ("e por que isso ajuda?"
// after "o que é vazio sanitário?") is answered from the document's
// section the context chose with the previous turn, not from the
// document's opening.
func TestPipelineExtractiveStatesTheContextPassages(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "e por que isso ajuda contra a ferrugem?", History: []rag.Turn{
		{Role: "user", Content: "o que é vazio sanitário?"},
		{Role: "assistant", Content: "É o período de pelo menos 60 dias sem plantas vivas de soja no campo, definido por portaria de cada estado."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	const section = "Manejo da ferrugem-asiática da soja › Medidas preventivas › Vazio sanitário"
	if !strings.Contains(resp.Debug.Context, section+": «") {
		t.Fatalf("the context does not quote the %q section:\n%s", section, resp.Debug.Context)
	}
	if !strings.Contains(resp.Answer, "("+section+"): ") || !strings.Contains(resp.Answer, "esporos") {
		t.Errorf("answer does not state the context's passages of %q:\n%s", section, resp.Answer)
	}
}

// Issue 21, item 7: the dose of an active ingredient per hectare is the
// product's that holds it (Glifovale 480 SL, glyphosate; its leaflet
// writes "L/ha"), not the sprayer-calibration FAQ, which holds "dose" and
// "hectare" but no glyphosate: a unit of area names no subject.
func TestPipelineIngredientDosePerHectare(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "Qual a dose do glifosato por hectare?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained || len(resp.Sources) == 0 || resp.Sources[0].ID != "prd-019" || !strings.Contains(resp.Answer, "2,0 a 3,0 L/ha") {
		ids := sourceIDs(resp)
		t.Errorf("sources %v, want Glifovale (prd-019) first with its dose; answer:\n%s", ids, resp.Answer)
	}
}

// A customer describing their situation in words no record holds is
// answered by the FAQ holding two of the message's words no other FAQ
// holds (faq-008, damaged delivery: "amassada", "vazando"); a question
// sharing only words several FAQs hold still abstains.
func TestPipelineFAQOwnWords(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "recebi hoje a caixa, veio amassada e vazando pelo lado, a transportadora nem esperou eu abrir. e agora?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained || len(resp.Sources) == 0 || resp.Sources[0].ID != "faq-008" {
		ids := sourceIDs(resp)
		t.Errorf("abstained=%v sources %v, want faq-008 first; answer:\n%s", resp.Abstained, ids, resp.Answer)
	}
	resp, err = p.Chat(context.Background(), rag.ChatRequest{Message: "quanto custa um carro usado?"})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Abstained {
		t.Errorf("an off-topic question sharing common FAQ words answered: %s", resp.Answer)
	}
}

// A name no record holds and no dictionary knows ("IRPF", "ULA") is what
// the store lacks: a record whose vector is close but lacks it does not
// answer.
func TestPipelineUnknownNameAbstains(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	for _, q := range []string{"prazo entrega IRPF 2024", "O que a unidade de controle informa à ULA?"} {
		resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: q})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Abstained {
			t.Errorf("%q answered: %s", q, resp.Answer)
		}
	}
}

// A question the classifier routes to the store's FAQs and documents
// ("troca": support) whose FAQs and documents hold nothing relevant
// searches the catalog: the respirator's filter is the product's.
func TestPipelineSupportFallsBackToCatalog(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "quanto tempo aguenta o filtro do respirador semifacial antes de eu trocar?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentSupport {
		t.Fatalf("intent %v, the test needs a support question", resp.Intent)
	}
	if resp.Abstained || len(resp.Sources) == 0 || resp.Sources[0].ID != "prd-081" || !resp.Debug.Plan.Catalog {
		ids := sourceIDs(resp)
		t.Errorf("abstained=%v sources %v plan %+v, want prd-081 from the catalog; answer:\n%s", resp.Abstained, ids, resp.Debug.Plan, resp.Answer)
	}
}

// sourceIDs are the IDs a response cites, in order.
func sourceIDs(resp *rag.ChatResponse) []string {
	var ids []string
	for _, c := range resp.Sources {
		ids = append(ids, c.ID)
	}
	return ids
}
