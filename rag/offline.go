package rag

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Keyword lists of the offline KeywordClassifier (pt-BR and English). The
// support phrases come from seed 004's isSupportQuestion.
var (
	DefaultSmallTalkKeywords = []string{
		"oi", "ola", "bom dia", "boa tarde", "boa noite", "obrigado", "obrigada", "valeu", "tchau",
		"ate logo", "tudo bem", "hello", "hi", "thanks", "thank you", "bye",
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
	DefaultCatalogKeywords = []string{
		"produto", "preco", "quanto custa", "valor", "comprar", "compra", "vende", "vendem", "voces tem",
		"tem", "estoque", "disponivel", "marca", "fabricante", "opcao", "opcoes", "indica", "indicacao",
		"recomenda", "recomendacao", "melhor", "catalogo", "semente", "pulverizador", "remedio", "veneno",
		"price", "buy", "product",
	}
)

// KeywordClassifier is the offline Classifier: it counts support, agronomy
// and catalog keywords (and the cultures and treatments of a synonym
// table) in the normalized, stemmed message. It needs no model and is
// deterministic. The zero value uses the default lists and
// lexical.DefaultSynonyms; it is safe for concurrent use.
type KeywordClassifier struct {
	// SmallTalk, Support, Agronomy and Catalog override the default lists.
	SmallTalk, Support, Agronomy, Catalog []string
	// Synonyms detects cultures and treatments; nil means the default.
	Synonyms *lexical.Synonyms
}

// stemmedWords folds s to space-padded stemmed words: " fungicida uva ".
func stemmedWords(s string) string {
	n := lexical.Normalize(s)
	words := strings.FieldsFunc(n, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
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
func (c KeywordClassifier) Classify(ctx context.Context, req ClassifyRequest) (Classification, error) {
	if err := ctx.Err(); err != nil {
		return Classification{}, err
	}
	pick := func(list, def []string) []string {
		if list != nil {
			return list
		}
		return def
	}
	text := stemmedWords(req.Message)
	words := len(strings.Fields(text))
	small, _ := countPhrases(text, pick(c.SmallTalk, DefaultSmallTalkKeywords))
	sup, supF := countPhrases(text, pick(c.Support, DefaultSupportKeywords))
	agro, agroF := countPhrases(text, pick(c.Agronomy, DefaultAgronomyKeywords))
	cat, catF := countPhrases(text, pick(c.Catalog, DefaultCatalogKeywords))
	syn := c.Synonyms
	if syn == nil {
		syn = lexical.DefaultSynonyms()
	}
	var cultures, treatments int
	for _, m := range syn.Detect(req.Message) {
		switch m.Category {
		case lexical.CategoryCulture:
			cultures++
		case lexical.CategoryTreatment:
			treatments++
		default:
			cat++
		}
	}
	cat += treatments
	agro += cultures
	out := Classification{Model: "keyword"}
	reason := func(kind string, found []string) string {
		return fmt.Sprintf("%s keywords %v, %d cultures, %d treatments", kind, found, cultures, treatments)
	}
	switch {
	case small > 0 && sup+agro+cat == 0 && words <= 6:
		out.Intent, out.Confidence, out.Reason = IntentSmallTalk, 0.9, "greeting"
	case sup+agro+cat == 0:
		out.Intent, out.Confidence, out.Reason = IntentOther, 0.3, "no keyword"
	case sup > agro && sup > cat:
		out.Intent, out.Confidence, out.Reason = IntentSupport, ratio(sup, sup+agro+cat), reason("support", supF)
	case cat > agro && treatments+cultures > 0 || cat > agro && cat > sup:
		out.Intent, out.Confidence, out.Reason = IntentCatalog, ratio(cat, sup+agro+cat), reason("catalog", catF)
	default:
		out.Intent, out.Confidence, out.Reason = IntentAgronomy, ratio(agro, sup+agro+cat), reason("agronomy", agroF)
	}
	return out, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 0.5 + 0.5*float64(a)/float64(b)
}

// ExtractiveAnswerer is the offline Answerer: it answers in pt-BR from the
// top hits, quoting FAQ answers and listing products and document passages
// with their sources, without any model. The zero value lists at most 3
// products, 1 FAQ and 2 document passages. It is safe for concurrent use.
type ExtractiveAnswerer struct {
	// MaxProducts, MaxFAQs and MaxDocuments bound each part (3, 1, 2).
	MaxProducts, MaxFAQs, MaxDocuments int
}

// Texts of the ExtractiveAnswerer.
const (
	GreetingAnswer = "Olá! Sou o assistente da loja. Posso ajudar com produtos do catálogo, dúvidas sobre pedidos, entregas e pagamentos, e orientações técnicas de uso. O que você procura?"
	NothingFound   = "Não encontrei informações sobre isso no nosso catálogo, nas perguntas frequentes ou nos documentos. Pode dar mais detalhes (cultura, praga ou produto)?"
	extractiveNote = "Confira sempre a bula e o receituário agronômico antes de aplicar qualquer defensivo."
)

// Answer writes the reply from req's hits.
func (a ExtractiveAnswerer) Answer(ctx context.Context, req AnswerRequest) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	return Answer{Text: a.compose(req), Model: "extractive"}, nil
}

// StreamAnswer emits the reply word by word, so demos stream without a
// model.
func (a ExtractiveAnswerer) StreamAnswer(ctx context.Context, req AnswerRequest, onToken func(string)) (Answer, error) {
	ans, err := a.Answer(ctx, req)
	if err != nil {
		return ans, err
	}
	start := 0
	for i, r := range ans.Text {
		if r == ' ' || r == '\n' {
			if err := ctx.Err(); err != nil {
				return Answer{}, err
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

func (a ExtractiveAnswerer) compose(req AnswerRequest) string {
	maxP, maxF, maxD := or(a.MaxProducts, 3), or(a.MaxFAQs, 1), or(a.MaxDocuments, 2)
	if req.Intent == IntentSmallTalk {
		return GreetingAnswer
	}
	var parts []string
	faqFirst := req.Intent == IntentSupport || req.Intent == IntentAgronomy || req.Intent == IntentOther
	faqPart := func() {
		for i, h := range req.FAQs {
			if i == maxF {
				break
			}
			parts = append(parts, fmt.Sprintf("Segundo nossas perguntas frequentes (%q): %s", oneLine(h.Record.Question), oneLine(h.Record.Answer)))
		}
	}
	if faqFirst {
		faqPart()
	}
	if len(req.Catalog) > 0 {
		var b strings.Builder
		b.WriteString("Produtos do catálogo que atendem ao que você pediu:")
		for i, h := range req.Catalog {
			if i == maxP {
				break
			}
			it := &h.Record
			fmt.Fprintf(&b, "\n%d. %s", i+1, oneLine(it.Name))
			var facts []string
			if it.Category != "" {
				facts = append(facts, it.Category)
			}
			if it.Manufacturer != "" {
				facts = append(facts, it.Manufacturer)
			}
			if len(facts) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(facts, ", "))
			}
			fmt.Fprintf(&b, " — %s", FormatPrice(it.Price))
			if len(it.Tags) > 0 {
				fmt.Fprintf(&b, "; culturas: %s", strings.Join(it.Tags, ", "))
			}
			if d := oneLine(it.Description); d != "" {
				fmt.Fprintf(&b, ". %s", vector.Truncate(d, 220))
			}
		}
		parts = append(parts, b.String())
	}
	if !faqFirst {
		faqPart()
	}
	for i := range req.Documents {
		if i == maxD {
			break
		}
		h := &req.Documents[i]
		parts = append(parts, fmt.Sprintf("Dos nossos materiais (%s): %s", DocumentCitation(h), vector.Truncate(oneLine(h.Snippet), 320)))
	}
	if len(parts) == 0 {
		return NothingFound
	}
	if len(req.Catalog) > 0 && hasDefensive(req.Catalog) {
		parts = append(parts, extractiveNote)
	}
	return strings.Join(parts, "\n\n")
}

func or(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// hasDefensive reports whether a listed product is a pesticide (its
// category names a treatment class).
func hasDefensive(hits []Hit[storage.CatalogItem]) bool {
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
