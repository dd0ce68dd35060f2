package rag_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

func TestDetectFollowUp(t *testing.T) {
	grape := []rag.Turn{
		{Role: llm.RoleUser, Content: "tem fungicida para uva?"},
		{Role: llm.RoleAssistant, Content: "Temos o Fosetal 800 WG."},
	}
	tests := []struct {
		msg     string
		history []rag.Turn
		want    bool
		reason  string
	}{
		{"e qual a dose do Fosetal?", grape, false, "self-contained"},
		{"E pra zona rural?", grape, false, "self-contained"},
		{"e como faço pra devolver um produto?", grape, false, "self-contained"},
		{"what about corn?", grape, true, "crop-only"},
		{"e na uva?", grape, true, "crop-only"},
		// "qnto" is "quanto"; a rate per hectare is the dose, an attribute.
		{"e pro algodao vai qnto por hectare?", grape, true, "crop-only"},
		{"e pro feijão, serve os mesmos?", grape, true, "reference"},
		{"e esses servem pro café também?", grape, true, "reference"},
		{"qnto custa?", grape, true, "attribute-only"},
		{"e então?", grape, true, "connective"},
		{"qual a dose dele?", grape, true, "reference"},
		{"does it work on citrus?", grape, true, "reference"},
		{"is it safe to use Roundup on wheat?", grape, false, "self-contained"},
		{"qual a dose?", grape, true, "attribute-only"},
		// A synonym table's name of an attribute is one, whatever its
		// words ("pre-harvest interval" is "intervalo de segurança").
		{"and the pre-harvest interval?", grape, true, "attribute-only"},
		{"e o período de carência?", grape, true, "attribute-only"},
		// A definition is asked for itself; "o que é isso?" refers back.
		{"o que é período de carência?", grape, false, "self-contained"},
		{"what is a pre-harvest interval?", grape, false, "self-contained"},
		{"e o que é isso?", grape, true, "reference"},
		// A verb asks its own subject, beside an attribute too (the rain FAQ's
		// "e se chover depois de aplicar?", a reviewer's probe).
		{"e se chover depois de aplicar?", grape, false, "self-contained"},
		{"quanto custa?", grape, true, "attribute-only"},
		// "cada" and "um" are function words (the general lexicon), not a subject.
		{"e a carência de cada um?", grape, true, "attribute-only"},
		// The general list's function words include nouns: with no
		// follow-up cue, a message of them stands alone.
		{"vocês têm site?", grape, false, "self-contained"},
		{"how do I place an order?", grape, false, "self-contained"},
		{"vocês vendem para o estado todo?", grape, false, "self-contained"},
		{"qual o prazo de entrega?", grape, false, "self-contained"},
		{"vocês entregam em Goiás?", grape, false, "self-contained"},
		{"asdkjh qwpoeiru zzxm", grape, false, "self-contained"},
		{"tem herbicida para soja?", grape, false, "self-contained"},
		{"e qual a dose dele?", nil, false, "no-history"},
		{"qual a dose dele?", []rag.Turn{{Role: llm.RoleAssistant, Content: "Olá!"}}, false, "no-history"},
	}
	for _, tt := range tests {
		got := rag.DetectFollowUp(tt.msg, tt.history)
		if got.FollowUp != tt.want || got.Reason != tt.reason {
			t.Errorf("DetectFollowUp(%q) = %+v, want %v %q", tt.msg, got, tt.want, tt.reason)
		}
	}
}

// capturingAnswerer records the request and answers with a fixed text.
type capturingAnswerer struct{ got *rag.AnswerRequest }

func (c *capturingAnswerer) Answer(_ context.Context, req rag.AnswerRequest) (rag.Answer, error) {
	c.got = &req
	return rag.Answer{Text: "ok", Model: "capture"}, nil
}

func TestPipelineAbstainsWhenNothingIsRelevant(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ans := &capturingAnswerer{}
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, ans, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Vocês vendem ração para cachorro?", "asdkjh qwpoeiru zzxm"} {
		resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: q})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Abstained || len(resp.Sources) != 0 || resp.Confidence != scoring.LevelNone {
			t.Errorf("%q: abstained %v sources %v confidence %v", q, resp.Abstained, resp.Sources, resp.Confidence)
		}
		if len(resp.Catalog)+len(resp.FAQs)+len(resp.Documents) != 0 {
			t.Errorf("%q: hits returned on abstention", q)
		}
		if ans.got == nil || !ans.got.Abstained || len(ans.got.Catalog)+len(ans.got.FAQs)+len(ans.got.Documents) != 0 {
			t.Errorf("%q: answerer got %+v, want an abstained request without hits", q, ans.got)
		}
		if !strings.Contains(resp.Debug.Context, rag.AbstainContextText) || strings.Contains(resp.Debug.Context, "FAQs relevantes") {
			t.Errorf("%q: context\n%s", q, resp.Debug.Context)
		}
	}
	// Small talk runs no search and does not abstain.
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "bom dia!"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained {
		t.Error("small talk abstained")
	}
}

func TestPipelineCitesRelevantHitsOnly(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained || len(resp.Sources) == 0 {
		t.Fatalf("abstained %v, sources %v", resp.Abstained, resp.Sources)
	}
	// The answer cites what it quotes, all of it from the context.
	inContext := map[string]bool{}
	for _, h := range resp.Catalog {
		inContext[h.ID] = true
	}
	for _, h := range resp.FAQs {
		inContext[h.ID] = true
	}
	for _, h := range resp.Documents {
		inContext[h.ID] = true
	}
	for _, c := range resp.Sources {
		if !inContext[c.ID] {
			t.Errorf("source %s is not in the context", c.ID)
		}
	}
	for _, h := range resp.Catalog {
		if !h.Evidence.Relevant {
			t.Errorf("cited item %s is not relevant: %+v", h.ID, h.Evidence)
		}
	}
	for _, h := range resp.FAQs {
		if !h.Evidence.Relevant || h.ID == "faq-021" {
			t.Errorf("cited FAQ %s: %+v", h.ID, h.Evidence)
		}
	}
	if resp.Confidence < scoring.LevelLow {
		t.Errorf("confidence %v with relevant hits", resp.Confidence)
	}
	if resp.Debug.Considered[rag.ToolSearchCatalog] < len(resp.Catalog) {
		t.Errorf("considered %v", resp.Debug.Considered)
	}
	// Evidence order: relevance never increases along a search's hits.
	for i := 1; i < len(resp.Catalog); i++ {
		if resp.Catalog[i].Evidence.Relevance > resp.Catalog[i-1].Evidence.Relevance+0.005 {
			t.Errorf("catalog not in evidence order at %d", i)
		}
	}
}

// TestPipelineTreatmentsBeforeMentions: for a pest on a crop, the
// insecticides registered for it are the answer, not the Bt seed whose
// text mentions the pest nor an insecticide naming the pest for another
// crop; asked for a seed (or a phosphite), that item is.
func TestPipelineTreatmentsBeforeMentions(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	cited := func(msg string) map[string]bool {
		t.Helper()
		resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, c := range resp.Sources {
			out[c.ID] = true
		}
		return out
	}
	got := cited("tem uma lagarta comendo o cartucho do milho, o que eu passo?")
	if !got["prd-035"] || got["prd-069"] {
		t.Errorf("pest on a crop: cited %v, want the insecticide prd-035 and not the Bt seed prd-069", got)
	}
	got = cited("vocês têm semente de milho com proteção contra lagarta?")
	if !got["prd-069"] {
		t.Errorf("seed asked: cited %v, want the Bt seed prd-069", got)
	}
	// Acetafort is a bean insecticide and names a fly on tomato; the
	// leaflets registering mosca-branca on beans are the answer.
	got = cited("mosca branca no feijao, me indica um remedio")
	if got["prd-038"] || !got["prd-037"] && !got["prd-039"] && !got["prd-044"] {
		t.Errorf("pest on a crop: cited %v, want the items registered for it (prd-037, prd-039, prd-044), not prd-038", got)
	}
	// A seed "suscetível ao mofo-branco" holds every word of the question
	// but treats nothing: never a high-confidence answer.
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "Tenho feijão irrigado no inverno e sempre dá mofo-branco. O que vocês vendem pra isso?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Confidence == scoring.LevelHigh {
		t.Errorf("mofo-branco: confidence high, cited %v; an item only mentioning the disease is no high answer", resp.Sources)
	}
	// Glifovale is glyphosate (its active ingredient, in its metadata) and
	// ranks below items that mention glyphosate in their descriptions.
	got = cited("vocês vendem glifosato?")
	if !got["prd-019"] || got["prd-067"] || got["prd-030"] {
		t.Errorf("one thing asked: cited %v, want Glifovale prd-019, not the items mentioning glyphosate", got)
	}
	// Misspelt, Glifovale holds it through the correction (less relevant
	// than the items mentioning glyphosate in full), and still leads.
	got = cited("tem glifozato?")
	if !got["prd-019"] || got["prd-067"] || got["prd-030"] || got["prd-058"] {
		t.Errorf("one thing asked, misspelt: cited %v, want Glifovale prd-019, not the items mentioning glyphosate", got)
	}
	got = cited("fosfito resolve ferrugem na soja?")
	if !got["prd-061"] {
		t.Errorf("item asked: cited %v, want the phosphite prd-061", got)
	}
}

// TestPipelineVerbsNameNothing: a FAQ lacking only the customer's verbs
// ("abrem", "mandei") answers; a question whose missing word names a thing
// the store lacks still abstains.
func TestPipelineVerbsNameNothing(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	for msg, want := range map[string]string{
		"vocês abrem no sábado?": "faq-028",
		"mandei devolver o produto faz uns dias, quando o dinheiro volta?": "faq-009",
		"vocês vendem passagem aérea?":                                     "",
	} {
		resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range resp.Sources {
			got = append(got, c.ID)
		}
		if want == "" && !resp.Abstained || want != "" && !slices.Contains(got, want) {
			t.Errorf("%q: cited %v (abstained %v), want %q", msg, got, resp.Abstained, want)
		}
	}
}

func TestPipelineHistoryOnlyForFollowUps(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	ctx := context.Background()
	grape := []rag.Turn{
		{Role: llm.RoleUser, Content: "tem fungicida para uva?"},
		{Role: llm.RoleAssistant, Content: "Temos o Fosetal 800 WG."},
	}
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "asdkjh qwpoeiru zzxm", History: grape})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Debug.FollowUp == nil || resp.Debug.FollowUp.FollowUp || resp.Debug.FAQQuery != "asdkjh qwpoeiru zzxm" {
		t.Errorf("noise after a grape question: follow-up %+v, FAQ query %q", resp.Debug.FollowUp, resp.Debug.FAQQuery)
	}
	if !resp.Abstained {
		t.Errorf("noise after a grape question answered with %v", resp.Sources)
	}
	resp, err = p.Chat(ctx, rag.ChatRequest{Message: "e qual a dose dele?", History: grape})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Debug.FollowUp.FollowUp || !strings.Contains(resp.Debug.FAQQuery, "uva") || !strings.Contains(resp.Debug.CatalogQuery, "uva") {
		t.Errorf("follow-up: %+v, FAQ query %q, catalog query %q", resp.Debug.FollowUp, resp.Debug.FAQQuery, resp.Debug.CatalogQuery)
	}
	if len(resp.Catalog) == 0 {
		t.Errorf("follow-up about the grape fungicide: no catalog hit (%v)", resp.Sources)
	}
	for _, h := range resp.Catalog {
		if !h.Evidence.Pair {
			t.Errorf("follow-up cites %s without the grape+fungicide pair", h.ID)
		}
	}
	// A chain of follow-ups keeps its subject.
	chain := []rag.Turn{
		{Role: llm.RoleUser, Content: "qual a dose do Tebucor?"},
		{Role: llm.RoleAssistant, Content: "Depende da cultura."},
		{Role: llm.RoleUser, Content: "e no café?"},
		{Role: llm.RoleAssistant, Content: "1,0 L/ha."},
	}
	resp, err = p.Chat(ctx, rag.ChatRequest{Message: "e o preço?", History: chain})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Debug.CatalogQuery, "Tebucor") || len(resp.Catalog) == 0 || resp.Catalog[0].ID != "prd-003" {
		t.Errorf("chained follow-up: catalog query %q, sources %v", resp.Debug.CatalogQuery, resp.Sources)
	}
	// A new subject after "e …" leaves the grapes behind.
	resp, err = p.Chat(ctx, rag.ChatRequest{Message: "e como faço pra devolver um produto?", History: grape})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Debug.FollowUp.FollowUp || len(resp.Catalog) > 0 || len(resp.FAQs) == 0 || resp.FAQs[0].ID != "faq-007" {
		t.Errorf("topic change: follow-up %+v, sources %v", resp.Debug.FollowUp, resp.Sources)
	}
}

func TestPipelineContextBudget(t *testing.T) {
	ctx := context.Background()
	big := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	small := ragtest.OfflinePipeline(t, rag.PipelineOptions{ContextTokens: 150})
	req := rag.ChatRequest{Message: "tem fungicida para videira?"}
	rb, err := big.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := small.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Sources) < 2 || len(rs.Sources) >= len(rb.Sources) || len(rs.Sources) == 0 {
		t.Fatalf("sources with the default budget %d, with 150 tokens %d", len(rb.Sources), len(rs.Sources))
	}
	// What is kept is the most relevant and fits, unless one hit alone
	// exceeds the budget.
	if len(rs.Sources) > 1 {
		sections := 0
		for _, s := range strings.Split(rs.Debug.Context, "\n\n") {
			if strings.HasPrefix(s, "FAQs relevantes") || strings.HasPrefix(s, "Busca híbrida") || strings.HasPrefix(s, "Documentos relevantes") {
				sections += len([]rune(s))
			}
		}
		if sections > 150*4 {
			t.Errorf("retrieved sections of %d chars over a 600-char budget", sections)
		}
	}
}

func TestPipelineFAQPriorityBreaksTies(t *testing.T) {
	ctx := context.Background()
	st, err := memory.New(memory.Options{Dimensions: 256}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	emb := hashEmbedderDims(t, 256)
	q, a := "Qual é o prazo de entrega dos pedidos?", "O prazo de entrega é de 2 a 5 dias úteis."
	faqs := []storage.FAQ{
		{ID: "faq-a", Question: q, Answer: a, Priority: 1},
		{ID: "faq-b", Question: q, Answer: a, Priority: 9},
		{ID: "faq-c", Question: q, Answer: a, Priority: 5},
	}
	if _, err := ingest.NewIndexer(st, emb, ingest.IndexerOptions{}).IndexFAQs(ctx, faqs); err != nil {
		t.Fatal(err)
	}
	p, err := rag.NewPipeline(rag.NewSearcher(st, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "qual o prazo de entrega?"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range resp.FAQs {
		got = append(got, h.ID)
	}
	if strings.Join(got, ",") != "faq-b,faq-c,faq-a" {
		t.Errorf("FAQs %v, want by priority faq-b, faq-c, faq-a", got)
	}
}

func hashEmbedderDims(t *testing.T, dims int) *vector.HashEmbedder {
	t.Helper()
	e, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: dims})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// citingAnswerer quotes only the first catalog hit.
type citingAnswerer struct{}

func (citingAnswerer) Answer(_ context.Context, req rag.AnswerRequest) (rag.Answer, error) {
	if len(req.Catalog) == 0 {
		return rag.Answer{Text: "nada", Cited: []storage.OwnerRef{}}, nil
	}
	cited := []storage.OwnerRef{{Kind: storage.KindItem, ID: req.Catalog[0].ID}}
	if len(req.Catalog) > 1 {
		// An FAQ may share an item's ID: the kind tells them apart.
		cited = append(cited, storage.OwnerRef{Kind: storage.KindFAQ, ID: req.Catalog[1].ID})
	}
	return rag.Answer{Text: req.Catalog[0].Record.Name, Cited: cited}, nil
}

func TestPipelineCitesWhatTheAnswerQuotes(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, citingAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Catalog) < 2 || len(resp.Sources) != 1 || resp.Sources[0].ID != resp.Catalog[0].ID {
		t.Errorf("context holds %d items; sources %v, want only %s", len(resp.Catalog), resp.Sources, resp.Catalog[0].ID)
	}
}

// TestPipelineDocumentsAnswerACatalogQuestion: a question phrased as a
// purchase (a catalog intent) that a document answers better than any
// item cites the document; one the catalog answers keeps none.
func TestPipelineDocumentsAnswerACatalogQuestion(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	ctx := context.Background()
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "pra comprar adubo foliar precisa de receita do agronomo tambem?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentCatalog || !resp.Debug.Plan.Documents {
		t.Fatalf("intent %+v plan %+v", resp.Intent, resp.Debug.Plan)
	}
	if !slices.Contains(sourceIDs(resp), "doc-001") {
		t.Errorf("sources %v, want the prescription guide doc-001 among them", resp.Sources)
	}
	resp, err = p.Chat(ctx, rag.ChatRequest{Message: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Documents) > 0 {
		t.Errorf("catalog answer kept documents: %v", resp.Sources)
	}
}

// TestPipelineValueAsked: "o vazio sanitário da soja é de quantos dias?"
// cites the section stating the duration, not the FAQ that only tells to
// respect it.
func TestPipelineValueAsked(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "o vazio sanitario da soja é de quantos dias?"})
	if err != nil {
		t.Fatal(err)
	}
	ids := sourceIDs(resp)
	if !slices.Contains(ids, "manejo-ferrugem-asiatica.md") || slices.Contains(ids, "faq-021") {
		t.Errorf("sources %v, want the rust guide and not faq-021", ids)
	}
}
