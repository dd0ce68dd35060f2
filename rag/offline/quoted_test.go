package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/quoted"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
)

// TestExtractiveQuotesTheContextPassages: given the passages the turn's
// context quotes (package quoted, as the Pipeline passes them), the
// answer states them — a document's with the section they come from, an
// item's when no leaflet row answers — and without them it picks its own.
func TestExtractiveQuotesTheContextPassages(t *testing.T) {
	doc := storage.Document{ID: "d", Title: "Manual", Content: "# Manual\n\n## Uso\n\nLigue o aparelho.\n\n## Garantia\n\nA garantia é de 12 meses."}
	item := storage.CatalogItem{ID: "p", Name: "Aparelho X", Category: "Equipamentos", Description: "Aparelho para a lavoura.",
		Files: []storage.CatalogFile{{Name: "manual.txt", Text: "Autonomia: até 6 horas.\nCarregue antes do primeiro uso."}}}
	faq := storage.FAQ{ID: "f", Question: "Como funciona a garantia?", Answer: "A garantia cobre defeitos de fabricação. Ela não cobre mau uso. A bateria tem 6 meses de garantia."}
	req := rag.AnswerRequest{Message: "e quanto tempo dura?", Intent: rag.IntentCatalog,
		Catalog:   []rag.Hit[storage.CatalogItem]{{ID: "p", Record: item}},
		FAQs:      []rag.Hit[storage.FAQ]{{ID: "f", Record: faq}},
		Documents: []rag.Hit[storage.Document]{{ID: "d", Record: doc}}}
	qt := &quoted.Turn{}
	qt.Add(storage.OwnerRef{Kind: storage.KindFAQ, ID: "f"}, quoted.Record{Passages: []string{"A bateria tem 6 meses de garantia."}})
	qt.Add(storage.OwnerRef{Kind: storage.KindItem, ID: "p"}, quoted.Record{Passages: []string{"Autonomia: até 6 horas."}})
	qt.Add(storage.OwnerRef{Kind: storage.KindDocument, ID: "d"}, quoted.Record{Passages: []string{"A garantia é de 12 meses."}, Cite: "Manual › Garantia"})
	ans, err := offline.ExtractiveAnswerer{}.Answer(quoted.With(context.Background(), qt), req)
	if err != nil {
		t.Fatal(err)
	}
	// The FAQ, not leading, says the sentence the context ranks best.
	for _, want := range []string{"Autonomia: até 6 horas.", "(Manual › Garantia): A garantia é de 12 meses.", "Como funciona a garantia?: A bateria tem 6 meses de garantia."} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("answer %q lacks %q", ans.Text, want)
		}
	}
	// Without the context's passages the answerer picks its own.
	ans, err = offline.ExtractiveAnswerer{}.Answer(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ans.Text, "Manual › Garantia") {
		t.Errorf("answer %q: without the context's passages the document's own pick was expected", ans.Text)
	}
}
