package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
)

// testRecords indexes the testdata records by ID (documents by file name
// or ID).
type testRecords struct {
	items map[string]storage.CatalogItem
	faqs  map[string]storage.FAQ
	docs  map[string]storage.Document
}

func loadTestRecords(t testing.TB) testRecords {
	t.Helper()
	src := ragtest.TestdataSources(t)
	r := testRecords{items: map[string]storage.CatalogItem{}, faqs: map[string]storage.FAQ{}, docs: map[string]storage.Document{}}
	for _, it := range src.Items {
		r.items[it.ID] = it
	}
	for _, f := range src.FAQs {
		r.faqs[f.ID] = f
	}
	for _, d := range src.Documents {
		r.docs[d.ID] = d.Document
	}
	return r
}

// fileText is the text of an item's attached file.
func (r testRecords) fileText(t testing.TB, id, name string) string {
	t.Helper()
	for _, f := range r.items[id].Files {
		if f.Name == name {
			return f.Text
		}
	}
	t.Fatalf("%s has no file %s", id, name)
	return ""
}

// request builds an AnswerRequest whose hits are the records named.
func (r testRecords) request(t testing.TB, msg string, ids ...string) rag.AnswerRequest {
	t.Helper()
	req := rag.AnswerRequest{Message: msg}
	for _, id := range ids {
		if it, ok := r.items[id]; ok {
			req.Catalog = append(req.Catalog, rag.Hit[storage.CatalogItem]{ID: id, Record: it})
		} else if f, ok := r.faqs[id]; ok {
			req.FAQs = append(req.FAQs, rag.Hit[storage.FAQ]{ID: id, Record: f})
		} else if d, ok := r.docs[id]; ok {
			req.Documents = append(req.Documents, rag.Hit[storage.Document]{ID: id, Record: d})
		} else {
			t.Fatalf("no record %s", id)
		}
	}
	return req
}

// TestOfflineExtractiveAnswers runs the ExtractiveAnswerer on requests
// built from testdata records: the fact asked leads the answer, in the
// question's language, quoted from the records given.
func TestOfflineExtractiveAnswers(t *testing.T) {
	recs := loadTestRecords(t)
	grape := []rag.Turn{
		{Role: llm.RoleUser, Content: "tem fungicida para uva?"},
		{Role: llm.RoleAssistant, Content: "Temos o Fosetal 800 WG e outros."},
	}
	tests := []struct {
		name    string
		msg     string
		history []rag.Turn
		intent  rag.Intent
		ids     []string
		prefix  string
		want    []string
		not     []string
	}{
		{name: "dose of the crop asked leads", msg: "Qual a dose do Fungiprot 250 SC no café?", ids: []string{"prd-001"},
			prefix: "Fungiprot 250 SC — Café: 400 mL/ha; intervalo de segurança: 30 dias (bula).",
			want:   []string{"R$ 189,90", "Confira sempre a bula"}, not: []string{"300 mL/ha", "Soja"}},
		{name: "crop synonym cafezal", msg: "qual a dose do Fungiprot no cafezal?", ids: []string{"prd-001"},
			prefix: "Fungiprot 250 SC — Café: 400 mL/ha"},
		{name: "carência leads with the interval column", msg: "Qual a carência do Tebucor no trigo?", ids: []string{"prd-003"},
			prefix: "Tebucor 200 EC — Trigo: intervalo de segurança: 35 dias; dose: 750 mL/ha (bula)."},
		{name: "Na cultura sentence, English frame", msg: "What is the safety interval of Mancozan on tomato?", ids: []string{"prd-002"},
			prefix: "Mancozan 800 WP — Tomate: safety interval: 7 days; dose: 3,0 kg/ha (label).",
			want:   []string{"Always follow the product label"}, not: []string{"Citros", "culturas", "Confira"}},
		{name: "target question gets the matching rows and targets", msg: "O Fungiprot serve para ferrugem?", ids: []string{"prd-001"},
			prefix: "Fungiprot 250 SC — Soja: ferrugem-asiática (Phakopsora pachyrhizi) — 300 mL/ha; Milho: ferrugem-polissora (Puccinia polysora) — 300 mL/ha; Café: ferrugem (Hemileia vastatrix) — 400 mL/ha; Trigo: ferrugem-da-folha (Puccinia triticina) — 250 mL/ha (bula).",
			not:    []string{"Feijão", "mancha-alvo"}},
		{name: "no crop: every row briefly", msg: "Qual a dose do Fungiprot 250 SC?", ids: []string{"prd-001"},
			prefix: "Fungiprot 250 SC — Soja: 300 mL/ha; Milho: 300 mL/ha; Café: 400 mL/ha; Feijão: 300 mL/ha; Trigo: 250 mL/ha (bula)."},
		{name: "follow-up takes the crop of the history", msg: "e qual a dose do Fosetal?", history: grape, ids: []string{"prd-016"},
			prefix: "Fosetal 800 WG — Uva: 250 g/100 L de água; intervalo de segurança: 15 dias (bula).", not: []string{"Citros"}},
		{name: "videira is uva", msg: "tem fungicida para videira?", intent: rag.IntentCatalog, ids: []string{"prd-006", "prd-002"},
			prefix: "Produtos do catálogo:\nOidiex 250 EC (Fungicida, AgroVale) — R$ 158,00. Uva: oídio (Erysiphe necator), antracnose (Elsinoë ampelina) — 12 mL/100 L de água; intervalo de segurança: 21 dias (bula).\nMancozan 800 WP (Fungicida, Campo Forte) — R$ 64,50. Uva: míldio"},
		{name: "labelled fact of a data sheet", msg: "qual o ciclo da soja SMR 7450?", ids: []string{"prd-068"},
			prefix: "Semente de Soja SMR 7450 Convencional — Ciclo: 125 a 132 dias (ficha técnica).", not: []string{"Confira"}},
		{name: "FAQ fact, whole short answer", msg: "até que horas tenho que fechar o pedido pra sair no mesmo dia?", intent: rag.IntentSupport, ids: []string{"faq-001"},
			prefix: "Perguntas frequentes — Qual é o prazo de entrega dos pedidos?: Pedidos confirmados até as 14h de dias úteis são despachados no mesmo dia."},
		{name: "document section fact", msg: "se eu desistir da compra quem paga o frete da devolução?", intent: rag.IntentSupport, ids: []string{"politica-de-trocas-e-entregas.md"},
			prefix: "Dos nossos materiais (Política de trocas, devoluções e entregas › Trocas e devoluções › Direito de arrependimento): Você pode desistir da compra em até 7 dias corridos",
			want:   []string{"O frete de devolução é por nossa conta."}, not: []string{"#", "1.500"}},
		{name: "definition leads", msg: "o que é vazio sanitário?", intent: rag.IntentSupport, ids: []string{"faq-021", "manejo-ferrugem-asiatica.md"},
			prefix: "Dos nossos materiais (Manejo da ferrugem-asiática da soja › Medidas preventivas › Vazio sanitário): O vazio sanitário é o período de pelo menos 60 dias"},
		{name: "a list is quoted with the sentence that opens it", msg: "quais produtos não posso devolver depois de abertos?", intent: rag.IntentSupport, ids: []string{"politica-de-trocas-e-entregas.md"},
			prefix: "Dos nossos materiais (Política de trocas, devoluções e entregas › Trocas e devoluções › Itens que não podem ser devolvidos após abertos): Por razões de segurança e rastreabilidade, não aceitamos devolução de: Defensivos agrícolas com lacre rompido; Fertilizantes, corretivos e inoculantes abertos; Sementes tratadas ou com embalagem violada; EPIs usados, como luvas, máscaras e vestimentas."},
		{name: "the fact leads, other sources in one line", msg: "qual o prazo de entrega?", intent: rag.IntentSupport, ids: []string{"faq-001", "politica-de-trocas-e-entregas.md"},
			prefix: "Perguntas frequentes — Qual é o prazo de entrega dos pedidos?: Pedidos confirmados até as 14h de dias úteis são despachados no mesmo dia. Nas capitais",
			want:   []string{"\n\nDos nossos materiais (Política de trocas, devoluções e entregas › Entregas › Prazos): Os prazos de transporte são contados em dias úteis a partir do despacho: Região: Capitais e regiões metropolitanas do Sul e Sudeste; Prazo estimado: 2 a 5 dias úteis."},
			not:    []string{"Norte e Nordeste", "|"}},
		{name: "a bare Sim opens the next sentence", msg: "Preciso de receituário para comprar defensivo?", intent: rag.IntentSupport, ids: []string{"doc-001", "faq-011"},
			want: []string{"Perguntas frequentes — Preciso de receituário agronômico para comprar defensivos?: Sim. A venda de agrotóxicos no Brasil exige receituário agronômico"}},
		{name: "generic catalog: no agronomy wording", msg: "do you sell cordless drills?", ids: []string{"drill"},
			prefix: "Cordless Drill 18 V (Tools, Acme) — price unavailable", not: []string{"culturas", "crops", "Confira", "Always follow"}},
	}
	recs.items["drill"] = storage.CatalogItem{ID: "drill", Name: "Cordless Drill 18 V", Category: "Tools", Manufacturer: "Acme",
		Description: "A compact drill.", Tags: []string{"drill", "cordless"}}
	a := offline.ExtractiveAnswerer{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := recs.request(t, tt.msg, tt.ids...)
			req.History, req.Intent = tt.history, tt.intent
			ans, err := a.Answer(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(ans.Text, tt.prefix) {
				t.Errorf("answer does not start with\n%s\n---\n%s", tt.prefix, ans.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(ans.Text, w) {
					t.Errorf("answer lacks %q:\n%s", w, ans.Text)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(ans.Text, w) {
					t.Errorf("answer has %q:\n%s", w, ans.Text)
				}
			}
			if len(ans.Cited) == 0 {
				t.Errorf("nothing cited")
			}
		})
	}
}

func TestOfflineAbstains(t *testing.T) {
	recs := loadTestRecords(t)
	a := offline.ExtractiveAnswerer{}
	tests := []struct {
		msg  string
		req  rag.AnswerRequest
		want string
	}{
		{"Vocês vendem ração para cachorro?", rag.AnswerRequest{Abstained: true}, offline.AbstainAnswer},
		{"do you sell dog food?", rag.AnswerRequest{Abstained: true}, offline.AbstainAnswerEnglish},
		{"Vocês vendem ração para cachorro?", rag.AnswerRequest{}, offline.AbstainAnswer},
		// Abstained wins over hits, and no product is listed.
		{"do you sell dog food?", recs.request(t, "", "prd-001"), offline.AbstainAnswerEnglish},
	}
	tests[3].req.Abstained = true
	for _, tt := range tests {
		tt.req.Message, tt.req.Intent = tt.msg, rag.IntentCatalog
		ans, err := a.Answer(context.Background(), tt.req)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Text != tt.want || len(ans.Cited) != 0 {
			t.Errorf("%q: %q cited %v, want %q", tt.msg, ans.Text, ans.Cited, tt.want)
		}
	}
	for _, s := range []string{offline.AbstainAnswer, offline.AbstainAnswerEnglish} {
		if !strings.Contains(s, "WhatsApp") || strings.Contains(s, "R$") {
			t.Errorf("abstention %q should name the support channels and no product", s)
		}
	}
}
