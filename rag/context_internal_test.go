package rag

import (
	"slices"
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
	// The one item the question names brings its leaflet whole; two named
	// items, or none, do not.
	named := Hit[storage.CatalogItem]{ID: "p1", Record: it, Evidence: &Evidence{Named: true}}
	if got := catalogPayload("x", []Hit[storage.CatalogItem]{named}, defaultQuoter.prepare("como guardo o Fungiprot?")); !strings.Contains(got, " | Bula: ") {
		t.Errorf("catalog payload %q: want the named item's leaflet", got)
	}
	other := named
	other.ID = "p2"
	if got := catalogPayload("x", []Hit[storage.CatalogItem]{named, other}, defaultQuoter.prepare("como guardo o Fungiprot?")); strings.Contains(got, " | Bula: ") {
		t.Errorf("catalog payload %q: two named items, want no leaflet", got)
	}
	if got := catalogPayload("x", []Hit[storage.CatalogItem]{{ID: "p1", Record: it}}, defaultQuoter.prepare("dose no café")); strings.Contains(got, " | Bula: ") {
		t.Errorf("catalog payload %q: nothing named, want no leaflet", got)
	}
}

func TestDocumentPassagesNameTheirSection(t *testing.T) {
	h := Hit[storage.Document]{ID: "d", Record: storage.Document{ID: "d", Title: "Política", Content: "# Política\n\n## Entregas\n\nEntregamos em todo o Brasil em até 10 dias úteis.\n\n## Trocas\n\nVocê pode desistir da compra em até 7 dias. O frete de devolução é por nossa conta."}, Snippet: "Entregamos em todo o Brasil"}
	got := documentSection([]Hit[storage.Document]{h}, defaultQuoter.prepare("se eu desistir da compra quem paga o frete?"))
	if !strings.Contains(got, "[1] Política › Trocas: «") || !strings.Contains(got, "por nossa conta") {
		t.Errorf("documents section %q: want the Trocas passages with their section", got)
	}
}

// TestItemPassagesMatchRootsKindsAndGroups pins the quoter's general
// matching: a verb finds its noun (Snowball stems), a question asking for
// a duration finds the unit holding one though it shares no word with it,
// and a crop finds the row of its group only when no row names the crop.
func TestItemPassagesMatchRootsKindsAndGroups(t *testing.T) {
	it := storage.CatalogItem{
		ID: "p2", Name: "Inseticida Exemplo 100 SC",
		Description: "Inseticida de contato para lagartas.",
		Metadata:    map[string]string{"autonomia": "até 6 horas"},
		Files: []storage.CatalogFile{{Name: "ficha.txt", Text: "Na cultura da soja, controla lagarta-da-soja. Dose: 0,5 L/ha.\n" +
			"Na cultura das hortaliças, controla traça-das-crucíferas (Plutella xylostella). Dose: 100 mL/100 L de água.\n" +
			"Monitorar a lavoura e aplicar no nível de ação.\n" +
			"Armazenamento: local coberto, ventilado e trancado.\n" +
			"Período de reentrada na área tratada: 48 horas após a aplicação.\n" +
			"Embalagens vazias: fazer a tríplice lavagem e devolver no posto indicado."}},
	}
	for _, tt := range []struct {
		question, first string
	}{
		{"como armazenar o Inseticida Exemplo?", "Armazenamento: local coberto, ventilado e trancado."},
		{"como descartar a embalagem?", "Embalagens vazias: fazer a tríplice lavagem e devolver no posto indicado."},
		// A verb finds its participle through a prefix: "entrar" → "reentrada".
		{"quanto tempo até poder entrar na lavoura?", "Período de reentrada na área tratada: 48 horas após a aplicação."},
		{"quanto tempo dura?", "Autonomia: até 6 horas"},
		{"serve para lagarta no repolho?", "Na cultura das hortaliças, controla traça-das-crucíferas (Plutella xylostella). Dose: 100 mL/100 L de água."},
		{"caterpillars on cabbage?", "Na cultura das hortaliças, controla traça-das-crucíferas (Plutella xylostella). Dose: 100 mL/100 L de água."},
	} {
		t.Run(tt.question, func(t *testing.T) {
			ps := defaultQuoter.prepare(tt.question).itemPassages(&it)
			if len(ps) == 0 || ps[0] != tt.first {
				t.Fatalf("passages %q, want %q first", ps, tt.first)
			}
		})
	}
	// Without a question word of the kind, the duration does not lead.
	if ps := defaultQuoter.prepare("dose na soja?").itemPassages(&it); len(ps) == 0 || !strings.HasPrefix(ps[0], "Na cultura da soja") {
		t.Errorf("passages %q, want the soybean line first", ps)
	}
	// An adjective finds its other gender and number ("frasco vazio",
	// "Embalagens vazias"), beside the unit naming the container.
	jar := it
	jar.ID = "p5"
	jar.Metadata = map[string]string{"embalagem": "frasco de 1 L"}
	if ps := defaultQuoter.prepare("o que faço com o frasco vazio?").itemPassages(&jar); !slices.ContainsFunc(ps, func(p string) bool { return strings.HasPrefix(p, "Embalagens vazias:") }) {
		t.Errorf("passages %q, want the empty-containers line", ps)
	}
	// A record naming the crop answers with the crop's row, not its group's.
	soy := it
	soy.ID = "p3"
	soy.Files = []storage.CatalogFile{{Name: "bula.txt", Text: "CULTURA | DOSE\nHortaliças | 100 mL/100 L\nRepolho | 80 mL/100 L\nSoja | 0,5 L/ha"}}
	if ps := defaultQuoter.prepare("qual a dose no repolho?").itemPassages(&soy); len(ps) != 1 || ps[0] != "CULTURA: Repolho; DOSE: 80 mL/100 L" {
		t.Errorf("passages %q, want the repolho row alone", ps)
	}
}

// TestPassagesFollowUpCropAndSpecificity: a follow-up naming a crop
// replaces the previous turn's crop, and the row naming only the crop
// asked beats a description or list naming several crops.
func TestPassagesFollowUpCropAndSpecificity(t *testing.T) {
	it := storage.CatalogItem{
		ID: "p4", Name: "Fungicida Exemplo 500 SC",
		Description: "Fungicida sistêmico para soja, feijão, trigo e café.",
		Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Na cultura da soja, controla antracnose. Dose: 1,0 L/ha; intervalo de segurança: 30 dias.\n" +
			"Na cultura do feijão, controla mancha-angular. Dose: 1,0 L/ha; intervalo de segurança: 14 dias."}},
	}
	qs := defaultQuoter.prepareTurn("e pro feijão, serve?", "qual fungicida para antracnose na soja?")
	if ps := qs.itemPassages(&it); len(ps) == 0 || !strings.HasPrefix(ps[0], "Na cultura do feijão") {
		t.Errorf("follow-up passages %q, want the feijão line first", ps)
	}
	// Without a crop of its own the follow-up keeps the previous turn's.
	if ps := defaultQuoter.prepareTurn("e a dose?", "fungicida para antracnose na soja").itemPassages(&it); len(ps) == 0 || !strings.HasPrefix(ps[0], "Na cultura da soja") {
		t.Errorf("follow-up passages %q, want the soja line first", ps)
	}
}

// TestPassagesWhichLineAnswers: which of a leaflet's lines leads for
// questions that name no crop, name a crop beside the rest of what they
// ask, or name a pest of the class the record is named by.
func TestPassagesWhichLineAnswers(t *testing.T) {
	leaflet := func(name, description, text string) *storage.CatalogItem {
		return &storage.CatalogItem{ID: "p", Name: name, Description: description, Files: []storage.CatalogFile{{Name: "bula.txt", Text: text}}}
	}
	insecticide := leaflet("Inseticida Exemplo 215 SL", "Inseticida de contato.",
		"CULTURA | ALVOS | DOSE | INTERVALO DE SEGURANÇA\n"+
			"Milho | lagarta-do-cartucho | 0,6 L/ha | 14 dias\nSoja | lagarta-da-soja | 0,6 L/ha | 14 dias\n\n"+
			"Período de reentrada na área tratada: 48 horas após a aplicação.")
	pyrethroid := leaflet("Piretroide Exemplo 50 EC", "Inseticida piretroide.",
		"Culturas, alvos e doses: Soja: percevejo-marrom. Dose: 150 mL/ha.\n"+
			"Feijão: vaquinha. Dose: 100 mL/ha.\n"+
			"Muito tóxico para abelhas: não aplicar na floração.")
	fungicide := leaflet("Fungicida Exemplo 250 EC", "Fungicida sistêmico registrado para as culturas de soja, milho, algodão e café.",
		"Culturas: consulte a tabela.\nSoja: oídio — 0,3 L/ha.\nSoja: ferrugem-asiática — 0,5 L/ha.")
	for _, tt := range []struct {
		name, question string
		item           *storage.CatalogItem
		first          bool   // want in the first passage, else in any
		want           string // a substring of the passage wanted
	}{
		// A value asked without a crop: the line for every crop, not a
		// crop's row.
		{"crop-less value", "passei o inseticida exemplo hj cedo, qdo o pessoal pode voltar pra roça?", insecticide, true, "Período de reentrada"},
		{"a crop asked finds its row", "qual a carência no milho?", insecticide, true, "Milho"},
		// The crop counts once (its word and its canonical term), so the
		// row naming it does not outweigh the line holding the rest.
		{"crop counted once", "meu vizinho tem caixa de abelha, posso aplicar o piretroide na floração da soja?", pyrethroid, true, "Muito tóxico para abelhas"},
		// A record named by the pest's class still scores by the pest.
		{"class-named record", "qual a dose pra ferrugem na soja?", fungicide, true, "ferrugem"},
		// Which crops, no kind of value asked: the line listing them.
		{"crops listed", "em quais culturas posso usar?", fungicide, false, "soja, milho"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ps := defaultQuoter.prepare(tt.question).itemPassages(tt.item)
			if len(ps) == 0 || tt.first && !strings.Contains(ps[0], tt.want) || !tt.first && !slices.ContainsFunc(ps, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("%q: passages %q, want %q (first: %v)", tt.question, ps, tt.want, tt.first)
			}
		})
	}
}

// TestPassagesDefinitionLeads: a definitional question quotes the unit
// defining its term, even when the record's name holds every word asked;
// a document's passages come from one section, which the citation names.
func TestPassagesDefinitionLeads(t *testing.T) {
	it := storage.CatalogItem{
		ID: "p5", Name: "Semente de Capim VC 80%",
		Description: "Semente de capim com valor cultural de 80%.",
		Files:       []storage.CatalogFile{{Name: "ficha.txt", Text: "Espécie: capim. Valor cultural (VC): 80% (pureza × germinação).\nSemeadura: 5 kg/ha de semente com VC 80%."}},
	}
	if ps := defaultQuoter.prepare("o que quer dizer esse VC 80% na semente?").itemPassages(&it); len(ps) == 0 || !strings.Contains(ps[0], "germinação") {
		t.Errorf("passages %q, want the VC definition first", ps)
	}
	h := Hit[storage.Document]{ID: "d", Record: storage.Document{ID: "d", Title: "Manejo", Content: "# Manejo\n\n## Introdução\n\nA resistência a herbicidas custa caro. Há resistência em muitas regiões.\n\n" +
		"## O que é resistência\n\nResistência é a capacidade herdável de uma população de sobreviver a uma dose de herbicida.\n\n## Rotação\n\nAlterne herbicidas para evitar a resistência."}}
	got := documentSection([]Hit[storage.Document]{h}, defaultQuoter.prepare("o que é resistência a herbicida?"))
	if !strings.Contains(got, "[1] Manejo › O que é resistência: «Resistência é a capacidade herdável") || strings.Contains(got, "custa caro") || strings.Contains(got, "Alterne") {
		t.Errorf("documents section %q: want the defining section's passages alone", got)
	}
}

// TestPassagesKindsInChatSpelling: the kinds of value are asked in
// customers' spelling too ("qto tempo"), and a temperature is one.
func TestPassagesKindsInChatSpelling(t *testing.T) {
	it := storage.CatalogItem{
		ID: "p6", Name: "Inoculante Exemplo",
		Description: "Inoculante líquido para soja.",
		Files: []storage.CatalogFile{{Name: "ficha.txt", Text: "Modo de uso: 100 mL para cada 50 kg de sementes.\n" +
			"Reinocular todos os anos aumenta a produtividade.\n" +
			"Armazenar o produto entre 4 e 25 °C.\nValidade de 6 meses a partir da fabricação.\nTratar as sementes até o estádio V2."}},
	}
	for q, want := range map[string]string{
		"o inoculante dura qto tempo?":          "Validade de 6 meses a partir da fabricação.",
		"tem temperatura certa pra guardar?":    "Armazenar o produto entre 4 e 25 °C.",
		"What temperature should I keep it at?": "Armazenar o produto entre 4 e 25 °C.",
		"até que fase é indicado?":              "Tratar as sementes até o estádio V2.",
	} {
		if ps := defaultQuoter.prepare(q).itemPassages(&it); len(ps) == 0 || ps[0] != want {
			t.Errorf("%q: passages %q, want %q first", q, ps, want)
		}
	}
}

// TestPassagesSkipRedundant: a passage repeating one kept before it (a
// metadata value that is a phrase of the leaflet's line) gives its place
// to the next.
func TestPassagesSkipRedundant(t *testing.T) {
	it := storage.CatalogItem{
		ID: "p7", Name: "Bio Exemplo WP",
		Description: "Inseticida biológico.",
		Metadata:    map[string]string{"ingrediente_ativo": "Bacillus thuringiensis var. kurstaki (33,6 g/kg)"},
		Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Contém Bacillus thuringiensis var. kurstaki (33,6 g/kg); ação por ingestão.\n" +
			"Na cultura das hortaliças, controla traça-das-crucíferas (Plutella xylostella)."}},
	}
	ps := defaultQuoter.prepare("Bacillus thuringiensis for caterpillars on cabbage?").itemPassages(&it)
	if len(ps) != 2 || !slices.ContainsFunc(ps, func(p string) bool { return strings.HasPrefix(p, "Contém Bacillus") }) ||
		!slices.ContainsFunc(ps, func(p string) bool { return strings.Contains(p, "Plutella") }) {
		t.Errorf("passages %q, want the leaflet line and the hortaliças row, not the metadata value repeating the line", ps)
	}
}

// TestFAQPicksDurationNotClock: a question asking for a duration quotes the
// sentence holding one ("de 2 a 5 dias úteis"), not a time of day ("até
// as 14h"), which the duration pattern also matches.
func TestFAQPicksDurationNotClock(t *testing.T) {
	f := &storage.FAQ{ID: "f1", Question: "Qual é o prazo de entrega?", Answer: "Pedidos confirmados até as 14h são despachados no mesmo dia. Nas capitais, a entrega leva de 2 a 5 dias úteis."}
	p := defaultQuoter.prepare("quanto tempo demora pra chegar em SP?").faqPicks(f)
	if len(p.units) == 0 || !strings.Contains(p.units[0].Text, "2 a 5 dias") {
		t.Errorf("picks %q, want the 2-to-5-days sentence first", p.texts())
	}
}

// TestFAQPicksVerdictForYesNo: a yes-or-no question quotes the FAQ
// answer's verdict ("Sim. …") first, even when a later sentence shares
// more of its words; a question asking how quotes that sentence.
func TestFAQPicksVerdictForYesNo(t *testing.T) {
	f := &storage.FAQ{ID: "f2", Question: "Preciso de receituário agronômico para comprar defensivos?",
		Answer: "Sim. A venda de agrotóxicos exige receituário agronômico emitido por engenheiro agrônomo. Você pode enviar uma receita própria no checkout ou pedir a emissão à nossa equipe."}
	if p := defaultQuoter.prepare("preciso de receita pra comprar glifosato?").faqPicks(f); len(p.units) == 0 || !strings.Contains(p.units[0].Text, "exige receituário") {
		t.Errorf("yes/no question: picks %q, want the verdict's sentence first", p.texts())
	}
	if p := defaultQuoter.prepare("como envio a receita no checkout?").faqPicks(f); len(p.units) == 0 || !strings.Contains(p.units[0].Text, "receita própria") {
		t.Errorf("how question: picks %q, want the checkout sentence first", p.texts())
	}
	for q, want := range map[string]bool{"vocês entregam na fazenda?": true, "can I return it?": true, "qual o prazo?": false, "oq faço com o frasco?": false, "entrega na fazenda": false} {
		if got := asksYesNo(q); got != want {
			t.Errorf("asksYesNo(%q) = %v, want %v", q, got, want)
		}
	}
}
