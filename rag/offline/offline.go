package offline

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/hybridrag/hybridrag/internal/chunkagg"
	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
	"github.com/hybridrag/hybridrag/rag/internal/quoted"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// Keyword lists of the offline KeywordClassifier (pt-BR and English),
// compared with normalized text (lower case, no accents). The support
// phrases are the store's service topics (delivery, payment, returns,
// account) and the openings of how-to questions.
var (
	DefaultSmallTalkKeywords = []string{
		"oi", "ola", "bom dia", "boa tarde", "boa noite", "obrigado", "obrigada", "brigado", "brigada", "valeu", "vlw",
		"agradeco", "agradecido", "agradecida", "tchau", "ate logo", "tudo bem",
		"hello", "hi", "thanks", "thank you", "thx", "bye", "goodbye",
	}
	DefaultSupportKeywords = []string{
		"entrega", "frete", "prazo", "pagamento", "pagar", "pix", "boleto", "cartao", "parcela", "parcelamento",
		"troca", "trocar", "devolucao", "devolver", "reembolso", "nota fiscal", "cadastro", "login", "senha",
		"conta", "pedido", "rastreio", "rastrear", "atendimento", "horario", "garantia", "cotacao", "receituario",
		"como faco", "como funciona", "onde encontro", "nao consigo", "problema com", "loja", "retirada",
		"how do i", "how to", "delivery", "payment", "refund", "order",
	}
	DefaultAgronomyKeywords = []string{
		"praga", "doenca", "dose", "dosagem", "aplicacao", "aplicar", "pulverizar", "pulverizacao", "controle",
		"controlar", "combater", "manejo", "resistencia", "resistente", "intervalo de seguranca", "carencia",
		"reentrada", "mistura", "calibracao", "calibrar", "chuva", "adubacao", "adubar", "calagem",
		"analise de solo", "plantio", "safra", "infestacao", "sintoma", "mancha", "epi", "toxicidade",
		"matar", "acabar com", "embalagem", "triplice lavagem",
	}
	// DefaultDefinitionalPhrases open definitional questions ("o que é
	// vazio sanitário?", "what does PRNT mean?"), answered by FAQs and
	// documents rather than the catalog; each counts as two support
	// keywords, so a definition outweighs a product word in it.
	DefaultDefinitionalPhrases = []string{
		"o que e", "o que sao", "o que significa", "o que quer dizer", "qual o significado", "qual a diferenca entre",
		"como funciona", "what does", "what is a", "what is an", "meaning of", "difference between",
	}
	DefaultCatalogKeywords = []string{
		"produto", "preco", "quanto custa", "valor", "comprar", "compra", "vende", "vendem", "voces tem",
		"tem", "estoque", "disponivel", "marca", "fabricante", "opcao", "opcoes", "indica", "indicacao",
		"recomenda", "recomendacao", "melhor", "catalogo", "semente", "pulverizador", "remedio", "veneno",
		"price", "buy", "product", "sell", "sells", "how much", "cost", "do you have", "in stock", "available",
		"recommend", "brand",
	}
)

// KeywordClassifier is the offline Classifier: it counts support, agronomy
// and catalog keywords (and the cultures and treatments of a synonym
// table) in the normalized, stemmed message. It needs no model and is
// deterministic. The zero value uses the default lists and
// lexical.DefaultSynonyms; it is safe for concurrent use.
type KeywordClassifier struct {
	// SmallTalk, Support, Agronomy, Catalog and Definitional override the
	// default lists.
	SmallTalk, Support, Agronomy, Catalog, Definitional []string
	// Synonyms detects cultures and treatments; nil means the default.
	Synonyms *lexical.Synonyms
}

// stemmedWords folds s to space-padded stemmed words: " fungicida uva ".
func stemmedWords(s string) string {
	words := textutil.NormWords(s)
	for i, w := range words {
		words[i] = lexical.Stem(w)
	}
	return " " + strings.Join(words, " ") + " "
}

func countPhrases(text string, phrases []string) (n int, found []string) {
	for _, p := range phrases {
		if sp := stemmedWords(p); len(sp) > 2 && strings.Contains(text, sp) {
			n++
			found = append(found, strings.TrimSpace(p))
		}
	}
	return n, found
}

// Classify decides the intent of req.Message (the summary adds context).
func (c KeywordClassifier) Classify(ctx context.Context, req rag.ClassifyRequest) (rag.Classification, error) {
	if err := ctx.Err(); err != nil {
		return rag.Classification{}, err
	}
	pick := func(list, def []string) []string {
		if list != nil {
			return list
		}
		return def
	}
	syn := c.Synonyms
	if syn == nil {
		syn = lexical.DefaultSynonyms()
	}
	mentions := syn.Detect(req.Message)
	text := stemmedWords(req.Message)
	// The words that say something: "Thanks a lot, that was helpful.
	// Bye!" is four of them, small talk still.
	words := 0
	for _, w := range textutil.NormWords(req.Message) {
		if !lexical.DefaultStopwords().Contains(w) {
			words++
		}
	}
	// An English question's words read as their translations count as the
	// Portuguese keywords they are ("sell" as "vender", "cost" as
	// "custo"); they are no keyword of their own (below).
	for _, m := range mentions {
		if m.Translation {
			text += strings.TrimPrefix(stemmedWords(m.Term), " ")
		}
	}
	small, _ := countPhrases(text, pick(c.SmallTalk, DefaultSmallTalkKeywords))
	sup, supF := countPhrases(text, pick(c.Support, DefaultSupportKeywords))
	agro, agroF := countPhrases(text, pick(c.Agronomy, DefaultAgronomyKeywords))
	cat, catF := countPhrases(text, pick(c.Catalog, DefaultCatalogKeywords))
	if def, defF := countPhrases(text, pick(c.Definitional, DefaultDefinitionalPhrases)); def > 0 {
		sup += 2 * def
		supF = append(supF, defF...)
	}
	var cultures, treatments int
	for _, m := range mentions {
		switch {
		case m.Translation:
			// An everyday English word ("morning", "thanks") is no
			// keyword of the store's.
		case m.Category == lexical.CategorySubject:
			cultures++
		case m.Category == lexical.CategoryClass:
			treatments++
		default:
			cat++
		}
	}
	cat += treatments
	agro += cultures
	out := rag.Classification{Model: "keyword"}
	reason := func(kind string, found []string) string {
		return fmt.Sprintf("%s keywords %v, %d cultures, %d treatments", kind, found, cultures, treatments)
	}
	switch {
	case small > 0 && sup+agro+cat == 0 && words <= 6:
		out.Intent, out.Confidence, out.Reason = rag.IntentSmallTalk, 0.9, "greeting"
	case sup+agro+cat == 0:
		out.Intent, out.Confidence, out.Reason = rag.IntentOther, 0.3, "no keyword"
	case sup > agro && sup > cat:
		out.Intent, out.Confidence, out.Reason = rag.IntentSupport, ratio(sup, sup+agro+cat), reason("support", supF)
	case cat > agro && treatments+cultures > 0 || cat > agro && cat > sup:
		out.Intent, out.Confidence, out.Reason = rag.IntentCatalog, ratio(cat, sup+agro+cat), reason("catalog", catF)
	default:
		out.Intent, out.Confidence, out.Reason = rag.IntentAgronomy, ratio(agro, sup+agro+cat), reason("agronomy", agroF)
	}
	return out, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 0.5 + 0.5*float64(a)/float64(b)
}

// ExtractiveAnswerer is the offline Answerer: it answers from the hits it
// is given (the Pipeline passes the relevant ones, best first), quoting
// only what those records say, without any model. The answer leads with
// the fact asked, then gives one short line per other source:
//
//   - products: the leaflet rows (parseLeaflet) that answer the question —
//     the row of the crop asked (synonyms and the crop of the conversation
//     count: "cafezal", "videira", "e qual a dose do Fosetal?" after "fungicida
//     para uva"), with the safety-interval column first for a carência
//     question, the rows naming the target asked, every row briefly when
//     no crop is named — as "Fungiprot 250 SC — Café: 400 mL/ha; intervalo
//     de segurança: 30 dias (bula)." and the product's category,
//     manufacturer and price; else a "Label: value" sentence of its files
//     whose label the question names ("Ciclo: 125 a 132 dias"), else the
//     passages of its description and files that match. A recommendation
//     lists each product as name (category, manufacturer) — price, then the
//     row that makes it match;
//   - FAQs: the whole answer when short (≤ 320 characters), else its
//     sentences that best match the question;
//   - documents: the best-matching sentence of the best Markdown section
//     (passage.MarkdownSections; the section of the hit's best chunk, its
//     heading_path, is favoured) with the next best of that section, or
//     the whole section when short, cited as "Title › Section".
//
// In a rag.Pipeline, a document's part and an item's passages (when no
// leaflet row or labelled fact answers) are the passages the turn's
// context quotes for that record, chosen by the search's question with
// a follow-up's previous turn: the answer states what a model reading
// the context could.
//
// Words rare in a record count more than words on each of its lines; a
// sentence defining the term of a definitional question ("o que é vazio
// sanitário?") leads. Markdown is stripped. It answers in the question's
// language (DetectLanguage: pt-BR by default, an English frame for English
// questions, record data as stored), uses agronomy wording (crops, the
// label reminder) only for agronomy records, and when the turn abstained,
// or no hit is given, says plainly that the store has nothing on it
// (AbstainAnswer, AbstainAnswerEnglish) and cites nothing. Answer.Cited
// lists the records quoted. It is safe for concurrent use.
type ExtractiveAnswerer struct {
	// MaxProducts, MaxFAQs and MaxDocuments bound the products, FAQs and
	// document passages of an answer; zero means 3, 2 and 2. Relevant
	// products past MaxProducts are named in one line ("E mais 2
	// produtos: X, Y.") but not described nor cited.
	MaxProducts, MaxFAQs, MaxDocuments int
	// Synonyms detects the crops a question names; nil means
	// lexical.DefaultSynonyms.
	Synonyms *lexical.Synonyms
}

// Texts of the ExtractiveAnswerer.
const (
	// GreetingAnswer answers small talk (pt-BR).
	GreetingAnswer = "Olá! Sou o assistente da loja. Posso ajudar com produtos do catálogo, dúvidas sobre pedidos, entregas e pagamentos, e orientações técnicas de uso. O que você procura?"
	// GreetingAnswerEnglish greets English speakers.
	GreetingAnswerEnglish = "Hello! I am the store's assistant. I can help with products from our catalog, orders, delivery and payment questions, and technical guidance on use. What are you looking for?"
	// NothingFound is AbstainAnswer's first sentence, kept for callers
	// that match on it.
	NothingFound = "Não encontrei informações sobre isso no nosso catálogo, nas perguntas frequentes ou nos documentos da loja."
	// AbstainAnswer is the honest "we don't have that" (pt-BR): nothing
	// in the store is relevant to the question. It names the kinds of
	// goods the store sells (a fixed line, never products) and how to
	// reach the team (chat and WhatsApp in business hours, as faq-029
	// says).
	AbstainAnswer = NothingFound + " Trabalhamos com insumos agrícolas (defensivos, fertilizantes, sementes, adjuvantes, pulverizadores e EPIs). Se quiser, reformule a pergunta ou fale com a nossa equipe técnica pelo chat ou WhatsApp, em horário comercial."
	// AbstainAnswerEnglish is AbstainAnswer for English questions.
	AbstainAnswerEnglish  = abstainEnglishFirst + "We sell farm inputs (crop protection products, fertilizers, seeds, adjuvants, sprayers and PPE). You can rephrase the question or talk to our technical team by chat or WhatsApp during business hours."
	extractiveNote        = "Confira sempre a bula e o receituário agronômico antes de aplicar qualquer defensivo."
	extractiveNoteEnglish = "Always follow the product label and the agronomic prescription before applying any pesticide."
)

// priceLead says which listed product is the cheapest or the dearest when
// the Pipeline listed them by price (its "price-order" section: a
// follow-up such as "qual desses é mais barato?"), with its package, whose
// price it is: "Dos produtos citados, o mais barato é Enxofrin 800 WG (R$
// 38,50; pacote de 1 kg)." "" otherwise.
func priceLead(sections []rag.ContextSection, hits []rag.Hit[storage.CatalogItem], lang rag.Language) string {
	dear := false
	found := false
	for _, s := range sections {
		if s.Name == "price-order" {
			found, dear = true, strings.Contains(s.Text, "do mais caro ao")
		}
	}
	if !found || len(hits) == 0 || hits[0].Record.Price == nil {
		return ""
	}
	first := hits[0].Record
	price := priceText(first.Price, lang)
	if pkg := strings.TrimSpace(first.Metadata["embalagem"]); pkg != "" {
		price += "; " + pkg
	}
	if len(hits) > 1 && hits[1].Record.Price == nil {
		// The Pipeline lists those without a price last: the first is
		// the only one with a price.
		if lang == rag.LanguageEnglish {
			return fmt.Sprintf("Of the products listed, only %s has a published price (%s); the others have none (on request or awaiting restock).", first.Name, price)
		}
		return fmt.Sprintf("Dos produtos citados, só %s tem preço publicado (%s); os outros estão sem preço publicado (sob cotação ou aguardando reposição).", first.Name, price)
	}
	switch {
	case lang == rag.LanguageEnglish && dear:
		return fmt.Sprintf("Of the products listed, the most expensive is %s (%s).", first.Name, price)
	case lang == rag.LanguageEnglish:
		return fmt.Sprintf("Of the products listed, the cheapest is %s (%s).", first.Name, price)
	case dear:
		return fmt.Sprintf("Dos produtos citados, o mais caro é %s (%s).", first.Name, price)
	}
	return fmt.Sprintf("Dos produtos citados, o mais barato é %s (%s).", first.Name, price)
}

// smallTalkAnswer answers small talk: thanks with "de nada", a goodbye
// with "até logo" (a customer closing the chat is not greeted again),
// anything else — and thanks for help that did not help ("obrigado, mas
// não era isso") — with the greeting, which asks what they look for. A
// closing is in the language of its own word ("hello, obrigado": "De
// nada"; "thanks!" holds no function word for DetectLanguage).
func smallTalkAnswer(message string, lang rag.Language) string {
	n := textutil.PaddedWords(message)
	has := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(n, " "+w) })
	}
	unhelped := has("mas ", "but ", "nao era", "nao ajud", "nao resolv", "didn t help", "not what")
	en := lang == rag.LanguageEnglish || has("hello ", "hi ", "thank", "thx ", "bye ", "goodbye ") && !has("obrigad", "brigad", "valeu ", "vlw ", "agradec", "tchau ", "ate logo ", "ate mais ")
	switch {
	case unhelped:
	case has("obrigad", "brigad", "valeu ", "vlw ", "agradec"):
		return "De nada! Se precisar de mais alguma coisa, é só chamar."
	case has("thank", "thx "):
		return "You're welcome! If you need anything else, just ask."
	case has("tchau ", "ate logo ", "ate mais "):
		return "Até logo! Se precisar de mais alguma coisa, é só chamar."
	case has("bye ", "goodbye "):
		return "Goodbye! If you need anything else, just ask."
	}
	if en {
		return GreetingAnswerEnglish
	}
	return GreetingAnswer
}

// abstainText is the answer of a turn that abstains: AbstainAnswer, or,
// when the Pipeline says what the store does not carry (the "not-carried"
// section: the store has it for other subjects, listed apart as
// related), a plain "Não temos semente de girassol no catálogo." first.
func abstainText(sections []rag.ContextSection, lang rag.Language) string {
	var what string
	problem := false // "Não temos produtos para "pulgão na alface"…"
	for _, s := range sections {
		if s.Name == "not-carried" {
			if lead, rest, ok := strings.Cut(s.Text, `"`); ok {
				what, _, _ = strings.Cut(rest, `"`)
				problem = strings.HasSuffix(strings.TrimSpace(lead), " para")
			}
		}
	}
	switch {
	case lang == rag.LanguageEnglish && what != "" && problem:
		return "We don't carry products for " + what + ". " + strings.TrimPrefix(AbstainAnswerEnglish, abstainEnglishFirst)
	case lang == rag.LanguageEnglish && what != "":
		return "We don't carry " + what + ". " + strings.TrimPrefix(AbstainAnswerEnglish, abstainEnglishFirst)
	case lang == rag.LanguageEnglish:
		return AbstainAnswerEnglish
	case what != "" && problem:
		return "Não temos produtos para " + what + " no catálogo. " + strings.TrimPrefix(AbstainAnswer, NothingFound+" ")
	case what != "":
		return "Não temos " + what + " no catálogo. " + strings.TrimPrefix(AbstainAnswer, NothingFound+" ")
	}
	return AbstainAnswer
}

// abstainEnglishFirst is AbstainAnswerEnglish's first sentence.
const abstainEnglishFirst = "I found nothing about this in our catalog, FAQs or store documents. "

// answerFrame holds an answer's connective texts in one language.
type answerFrame struct {
	products, also, faq, docs, crops, note string
}

var (
	framePT = answerFrame{products: "Produtos do catálogo:", also: "Também no catálogo:", faq: "Perguntas frequentes", docs: "Dos nossos materiais",
		crops: "culturas", note: extractiveNote}
	frameEN = answerFrame{products: "Products in our catalog:", also: "Also in our catalog:", faq: "FAQ", docs: "From our materials",
		crops: "crops", note: extractiveNoteEnglish}
)

// Answer writes the reply from req's hits.
func (a ExtractiveAnswerer) Answer(ctx context.Context, req rag.AnswerRequest) (rag.Answer, error) {
	if err := ctx.Err(); err != nil {
		return rag.Answer{}, err
	}
	text, cited := a.compose(req, quoted.From(ctx))
	ans := rag.Answer{Text: text, Model: "extractive", Cited: cited, Language: DetectLanguage(req.Message)}
	if len(cited) > 0 && req.Intent != rag.IntentSmallTalk {
		// The relevant products past MaxProducts: counted in the text,
		// listed apart, never cited.
		for _, h := range req.Catalog[min(len(req.Catalog), or(a.MaxProducts, 3)):] {
			ref := storage.OwnerRef{Kind: storage.KindItem, ID: h.ID}
			if !slices.Contains(cited, ref) {
				ans.Related = append(ans.Related, ref)
			}
		}
	}
	return ans, nil
}

// StreamAnswer emits the reply word by word, so demos stream without a
// model.
func (a ExtractiveAnswerer) StreamAnswer(ctx context.Context, req rag.AnswerRequest, onToken func(string)) (rag.Answer, error) {
	ans, err := a.Answer(ctx, req)
	if err != nil {
		return ans, err
	}
	start := 0
	for i, r := range ans.Text {
		if r == ' ' || r == '\n' {
			if err := ctx.Err(); err != nil {
				return rag.Answer{}, err
			}
			onToken(ans.Text[start : i+1])
			start = i + 1
		}
	}
	if start < len(ans.Text) {
		onToken(ans.Text[start:])
	}
	return ans, nil
}

func (a ExtractiveAnswerer) compose(req rag.AnswerRequest, qt *quoted.Turn) (string, []storage.OwnerRef) {
	maxP, maxF, maxD := or(a.MaxProducts, 3), or(a.MaxFAQs, 2), or(a.MaxDocuments, 2)
	lang := DetectLanguage(req.Message)
	fr := framePT
	if lang == rag.LanguageEnglish {
		fr = frameEN
	}
	if req.Intent == rag.IntentSmallTalk {
		return smallTalkAnswer(req.Message, lang), []storage.OwnerRef{}
	}
	if req.Abstained || len(req.Catalog)+len(req.FAQs)+len(req.Documents) == 0 {
		return abstainText(req.Sections, lang), []storage.OwnerRef{}
	}
	if len(req.Catalog) > 0 && !req.Catalog[0].Record.Status.Active() {
		return discontinuedAnswer(req.Catalog, lang)
	}
	syn := a.Synonyms
	if syn == nil {
		syn = lexical.DefaultSynonyms()
	}
	focus := focusOf(req.Message, req.History, syn)
	words, terms := contentWords(req.Message), passage.DefinedTerms(req.Message)
	cited := []storage.OwnerRef{}
	var (
		parts []string
		keys  []float64
	)
	// Each part has its full text and a short one: the part that leads is
	// given whole, the others in one line.
	var shorts []string
	add := func(part, short string, e *rag.Evidence, defines bool) {
		k := 0.0
		if e != nil {
			k = math.Round(e.Coverage * 10)
		}
		if defines {
			k += 100
		}
		parts, shorts, keys = append(parts, part), append(shorts, short), append(keys, k)
	}

	faqPart := func() {
		for i, h := range req.FAQs {
			if i == maxF {
				break
			}
			ans, defines := faqQuote(h.Record.Question, h.Record.Answer, words, terms, 2, 320)
			short, _ := faqQuote(h.Record.Question, h.Record.Answer, words, terms, 1, 160)
			if r, ok := qt.Get(storage.OwnerRef{Kind: storage.KindFAQ, ID: h.ID}); ok && len(r.Passages) > 0 {
				// Not leading, the FAQ says the sentence the context
				// ranks best for the question.
				short = quotedText(r.Passages[:1])
			}
			q := textutil.OneLine(h.Record.Question)
			add(fmt.Sprintf("%s — %s: %s", fr.faq, q, ans), fmt.Sprintf("%s — %s: %s", fr.faq, q, short), h.Evidence, defines)
			cited = append(cited, storage.OwnerRef{Kind: storage.KindFAQ, ID: h.ID})
		}
	}
	// A question about the store (support) or a definition leads with
	// the FAQ; a product question with the products.
	faqFirst := req.Intent == rag.IntentSupport || len(req.Catalog) == 0
	if faqFirst {
		faqPart()
	}
	if len(req.Catalog) > 0 {
		text, ids := productPart(req.Message, req.Catalog[:min(len(req.Catalog), maxP)], focus, lang, fr, syn, qt)
		if lead := priceLead(req.Sections, req.Catalog, lang); lead != "" {
			text = lead + " " + text
		}
		if more := req.Catalog[min(len(req.Catalog), maxP):]; len(more) > 0 {
			// The relevant products past maxP are counted, and listed
			// apart (Answer.Related): the text names only what it
			// cites, and citing them too lowers the fresh set's source
			// precision (0.708 → 0.654).
			text += "\n" + moreProducts(len(more), lang)
		}
		lead := req.Catalog[0].Evidence
		if lead != nil && lead.Named {
			// The question names the product: it leads.
			named := *lead
			named.Coverage = 2
			lead = &named
		}
		add(text, text, lead, false)
		for _, id := range ids {
			cited = append(cited, storage.OwnerRef{Kind: storage.KindItem, ID: id})
		}
	}
	if !faqFirst {
		faqPart()
	}
	for i := range req.Documents {
		if i == maxD {
			break
		}
		h := &req.Documents[i]
		var text, citation, short, shortCitation string
		var defines bool
		if r, ok := qt.Get(storage.OwnerRef{Kind: storage.KindDocument, ID: h.ID}); ok && len(r.Passages) > 0 {
			// The passages the context quotes, from the section that
			// answers: what a model would read.
			text, citation = quotedText(r.Passages), r.Cite
			short, shortCitation = quotedText(r.Passages[:1]), r.Cite
			defines = passage.DefinesTerm(text, terms)
		} else {
			text, citation, defines = documentQuote(h, words, terms, 2, 320)
			short, shortCitation, _ = documentQuote(h, words, terms, 1, 160)
		}
		if text == "" {
			continue
		}
		add(fmt.Sprintf("%s (%s): %s", fr.docs, citation, text), fmt.Sprintf("%s (%s): %s", fr.docs, shortCitation, short), h.Evidence, defines)
		cited = append(cited, storage.OwnerRef{Kind: storage.KindDocument, ID: h.ID})
	}
	if len(parts) == 0 {
		if lang == rag.LanguageEnglish {
			return AbstainAnswerEnglish, []storage.OwnerRef{}
		}
		return AbstainAnswer, []storage.OwnerRef{}
	}
	// Lead with the source that holds most of the question (coverage,
	// in steps of 0.1); the default order breaks ties.
	idx := make([]int, len(parts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(keys[y], keys[x]) })
	ordered := make([]string, len(parts))
	for i, j := range idx {
		ordered[i] = parts[j]
		if i > 0 {
			ordered[i] = shorts[j]
		}
	}
	return withNote(ordered, req, fr, syn, maxP), cited
}

// withNote joins the parts, with the pesticide note when a listed
// product is an agronomy pesticide.
func withNote(parts []string, req rag.AnswerRequest, fr answerFrame, syn *lexical.Synonyms, maxP int) string {
	for i, h := range req.Catalog {
		if i == maxP {
			break
		}
		if isAgronomyItem(&h.Record, syn) && hasDefensive(req.Catalog[i:i+1]) {
			parts = append(parts, fr.note)
			break
		}
	}
	return strings.Join(parts, "\n\n")
}

// priceText is FormatPrice, in English "price unavailable" for none.
func priceText(p *float64, lang rag.Language) string {
	if p == nil && lang == rag.LanguageEnglish {
		return "price unavailable"
	}
	return textutil.FormatPrice(p)
}

// itemFacts are the passages of an item's description and attached
// files that answer the question, or its description.
func itemFacts(it *storage.CatalogItem, f questionFocus) string {
	var text strings.Builder
	text.WriteString(it.Description)
	for _, file := range it.Files {
		text.WriteString("\n\n")
		text.WriteString(file.Text)
	}
	skip := passage.StemSet(it.Name)
	min := 1.0
	if f.dose || f.interval || len(f.crops) > 0 {
		min = 2.5
	}
	ps := bestPassages(text.String(), f, skip, 2, min)
	var said strings.Builder
	for _, p := range ps {
		said.WriteString(lexical.Normalize(p.text))
	}
	var meta []string
	for _, k := range slices.Sorted(maps.Keys(it.Metadata)) {
		v := strings.TrimSpace(it.Metadata[k])
		// Only what the chosen passages do not already say.
		if asksMetadata(k, f) && v != "" && !strings.Contains(said.String(), lexical.Normalize(v)) {
			meta = append(meta, metadataLabel(k)+": "+textutil.OneLine(v)+".")
		}
	}
	if len(ps) == 0 && len(meta) == 0 {
		return chunkagg.Truncate(textutil.OneLine(textutil.StripMarkdown(it.Description)), 220)
	}
	out := meta
	for _, p := range ps {
		out = append(out, chunkagg.Truncate(textutil.OneLine(p.text), 320))
	}
	return passage.JoinPassages(out)
}

// isAgronomyItem reports an item of the agronomy domain: its category
// names a treatment class or a generic of the synonym table (fertilizer,
// semente …), or a tag is a crop.
func isAgronomyItem(it *storage.CatalogItem, syn *lexical.Synonyms) bool {
	for _, m := range syn.Detect(it.Category) {
		// An everyday English word's translation ("Tools" is
		// "ferramenta") is no kind of the domain.
		if !m.Translation {
			return true
		}
	}
	for _, t := range it.Tags {
		for _, m := range syn.Detect(t) {
			if m.Category == lexical.CategorySubject {
				return true
			}
		}
	}
	return false
}

func or(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// hasDefensive reports whether a listed product is a pesticide (its
// category names a treatment class).
func hasDefensive(hits []rag.Hit[storage.CatalogItem]) bool {
	for _, h := range hits {
		c := lexical.Normalize(h.Record.Category)
		for _, k := range []string{"fungicida", "herbicida", "inseticida", "acaricida", "nematicida", "bactericida", "formicida"} {
			if strings.Contains(c, k) {
				return true
			}
		}
	}
	return false
}

// asksMetadata reports whether the question asks the metadata key: a
// word of the key ("ingrediente_ativo", "formulacao") is among the
// question's words, or the question asks the active ingredient in other
// words ("princípio ativo", "composição").
func asksMetadata(key string, f questionFocus) bool {
	for _, kw := range strings.FieldsFunc(lexical.Normalize(key), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(kw) < 4 {
			continue
		}
		st := lexical.Stem(kw)
		for _, w := range f.words {
			if w == st || strings.HasPrefix(w, st) || strings.HasPrefix(st, w) && len(w) >= 4 {
				return true
			}
		}
	}
	return false
}

// metadataLabel writes a metadata key as a label: "ingrediente_ativo" →
// "Ingrediente ativo".
func metadataLabel(key string) string {
	return titleCase(strings.ToUpper(strings.ReplaceAll(key, "_", " ")))
}

// discontinuedAnswer says that hits[0], an inactive item (the Pipeline
// cites one only when the question names it), is discontinued, quotes its
// description and lists the active items after it as its substitute.
func discontinuedAnswer(hits []rag.Hit[storage.CatalogItem], lang rag.Language) (string, []storage.OwnerRef) {
	gone, sub := "foi descontinuado e não está mais à venda.", "Substituto no catálogo:"
	if lang == rag.LanguageEnglish {
		gone, sub = "has been discontinued and is no longer sold.", "Replacement in our catalog:"
	}
	line := func(it *storage.CatalogItem) string {
		var facts []string
		if it.Category != "" {
			facts = append(facts, textutil.OneLine(it.Category))
		}
		if it.Manufacturer != "" {
			facts = append(facts, textutil.OneLine(it.Manufacturer))
		}
		s := textutil.OneLine(it.Name)
		if len(facts) > 0 {
			s += " (" + strings.Join(facts, ", ") + ")"
		}
		return s
	}
	it := &hits[0].Record
	parts := []string{line(it) + " " + gone}
	if d := textutil.OneLine(it.Description); d != "" {
		parts[0] += " " + d
	}
	cited := []storage.OwnerRef{{Kind: storage.KindItem, ID: hits[0].ID}}
	for _, h := range hits[1:] {
		if !h.Record.Status.Active() {
			continue
		}
		parts = append(parts, sub+" "+line(&h.Record)+" — "+priceText(h.Record.Price, lang)+".")
		cited = append(cited, storage.OwnerRef{Kind: storage.KindItem, ID: h.ID})
	}
	return strings.Join(parts, "\n\n"), cited
}

// moreProducts says how many more relevant products there are, listed
// apart from the answer (Answer.Related): "E mais 2 produtos
// relacionados, listados à parte."
func moreProducts(n int, lang rag.Language) string {
	switch {
	case lang == rag.LanguageEnglish && n == 1:
		return "And 1 more related product, listed separately."
	case lang == rag.LanguageEnglish:
		return fmt.Sprintf("And %d more related products, listed separately.", n)
	case n == 1:
		return "E mais 1 produto relacionado, listado à parte."
	}
	return fmt.Sprintf("E mais %d produtos relacionados, listados à parte.", n)
}

// quotedText writes the passages the context quotes as answer prose: a
// list item's bullet dropped, an upper-case table header in title case
// ("CULTURA: Café; DOSE: 400 mL/ha" → "Cultura: Café; Dose: 400 mL/ha"),
// each passage ended by a period.
func quotedText(ps []string) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		p = strings.TrimSpace(passage.BulletRE.ReplaceAllString(strings.TrimSpace(p), ""))
		if strings.HasSuffix(p, ")") {
			p += "." // "Garantia: 12 meses (bateria 6 meses)." ends a sentence
		}
		out[i] = upperLabelRE.ReplaceAllStringFunc(p, func(l string) string {
			sep := ""
			if strings.HasPrefix(l, "; ") {
				sep, l = "; ", l[2:]
			}
			return sep + titleCase(strings.TrimSuffix(l, ":")) + ":"
		})
	}
	return passage.JoinPassages(out)
}

// upperLabelRE matches an upper-case label before a colon ("INTERVALO DE
// SEGURANÇA:") at the start of a passage or after "; ".
var upperLabelRE = regexp.MustCompile(`(?:^|(?:; ))\p{Lu}[\p{Lu} ]*\p{Lu}:`)
