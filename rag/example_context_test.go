package rag_test

import (
	"fmt"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
)

// FormatContext shows what a chat turn would give the model for a
// search's hits; here one FAQ hit, built by hand.
func ExampleFormatContext() {
	hits := []rag.Hit[storage.FAQ]{{
		ID: "faq-001",
		Record: storage.FAQ{
			ID:       "faq-001",
			Question: "Qual o prazo de entrega?",
			Answer:   "De 3 a 7 dias úteis para capitais.",
		},
	}}
	fmt.Println(rag.FormatContext("qual o prazo de entrega?", hits))
	// Output:
	// Contexto consolidado (use-o para responder; não mencione esta seção ao usuário):
	//
	// FAQs relevantes (1): Q: Qual o prazo de entrega? | A: De 3 a 7 dias úteis para capitais.
	//
	// Pergunta do usuário: qual o prazo de entrega?
}
