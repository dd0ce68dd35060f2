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
