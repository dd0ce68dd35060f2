package rag

import (
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

func TestContextSectionsStripMarkdown(t *testing.T) {
	hits := []Hit[storage.Document]{{ID: "d", Record: storage.Document{Title: "Política"}, Snippet: "# Política de trocas\n## Entregas\n**Prazo**: 2 a 5 dias"}}
	got := documentSection(hits, nil)
	if strings.ContainsAny(got, "#*") || !strings.Contains(got, "Política de trocas Entregas Prazo: 2 a 5 dias") {
		t.Errorf("DocumentSection = %q", got)
	}
	faqs := []Hit[storage.FAQ]{{ID: "f", Record: storage.FAQ{Question: "Prazo?", Answer: "Veja a [tabela](https://x.example) de **prazos**."}}}
	if got := formatFAQContext(faqs, nil); got != "Q: Prazo? | A: Veja a tabela de prazos." {
		t.Errorf("FormatFAQContext = %q", got)
	}
}

func TestItemPassagesAnswerTheQuestion(t *testing.T) {
	it := storage.CatalogItem{
		ID: "p1", Name: "Fungiprot 250 SC",
		Description: "Fungicida sistêmico para grãos e café.",
		Metadata:    map[string]string{"ingrediente_ativo": "azoxistrobina 250 g/L"},
		Files: []storage.CatalogFile{{Name: "bula.txt", Text: "CULTURA | ALVOS | DOSE | INTERVALO DE SEGURANÇA\n" +
			"Soja | ferrugem-asiática | 300 mL/ha | 30 dias\nCafé | ferrugem | 400 mL/ha | 30 dias\n\n" +
			"Na cultura do tomate, controla requeima. Dose: 3,0 kg/ha; intervalo de segurança: 7 dias."}},
	}
	for _, tt := range []struct {
		question, first string
	}{
		// The crop asked picks its row; "dose" is on every row.
		{"qual a dose do Fungiprot 250 SC no café?", "CULTURA: Café; ALVOS: ferrugem; DOSE: 400 mL/ha; INTERVALO DE SEGURANÇA: 30 dias"},
		// "carência" matches the interval column through the synonym
		// table; a leaflet line keeps its crop with its dose.
		{"Fungiprot no tomate, qual a carência?", "Na cultura do tomate, controla requeima. Dose: 3,0 kg/ha; intervalo de segurança: 7 dias."},
		// English words reach the Portuguese text through synonyms.
		{"What is the dose of Fungiprot on coffee?", "CULTURA: Café; ALVOS: ferrugem; DOSE: 400 mL/ha; INTERVALO DE SEGURANÇA: 30 dias"},
		// A metadata value is a passage.
		{"qual o ingrediente ativo do Fungiprot?", "Ingrediente ativo: azoxistrobina 250 g/L"},
	} {
		t.Run(tt.question, func(t *testing.T) {
			ps := defaultQuoter.prepare(tt.question).itemPassages(&it)
			if len(ps) == 0 || ps[0] != tt.first {
				t.Fatalf("passages %q, want %q first", ps, tt.first)
			}
		})
	}
	if ps := defaultQuoter.prepare("Fungiprot 250 SC").itemPassages(&it); len(ps) != 0 {
		t.Errorf("a question naming only the item quotes %q, want nothing (the snippet)", ps)
	}
	if got := catalogPayload("x", []Hit[storage.CatalogItem]{{ID: "p1", Record: it, Snippet: "snippet"}}, defaultQuoter.prepare("dose no café")); !strings.Contains(got, "Trechos: «CULTURA: Café;") || strings.Contains(got, "Snippet:") {
		t.Errorf("catalog payload %q: want the café row quoted instead of the snippet", got)
	}
}

func TestDocumentPassagesNameTheirSection(t *testing.T) {
	h := Hit[storage.Document]{ID: "d", Record: storage.Document{ID: "d", Title: "Política", Content: "# Política\n\n## Entregas\n\nEntregamos em todo o Brasil em até 10 dias úteis.\n\n## Trocas\n\nVocê pode desistir da compra em até 7 dias. O frete de devolução é por nossa conta."}, Snippet: "Entregamos em todo o Brasil"}
	got := documentSection([]Hit[storage.Document]{h}, defaultQuoter.prepare("se eu desistir da compra quem paga o frete?"))
	if !strings.Contains(got, "[1] Política › Trocas: «") || !strings.Contains(got, "por nossa conta") {
		t.Errorf("documents section %q: want the Trocas passages with their section", got)
	}
}
