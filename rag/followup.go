package rag

import (
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
)

// FollowUpDecision says whether a message continues the conversation, so
// that recent turns join its searches, and why.
type FollowUpDecision struct {
	// FollowUp reports that the message depends on the history.
	FollowUp bool `json:"follow_up"`
	// Reason is "no-history", "reference", "crop-only",
	// "attribute-only", "connective", "no-content" or "self-contained".
	Reason string `json:"reason"`
}

// Word lists of DetectFollowUp, in lexical.Normalize form.
var (
	// followUpConnectives open a message that continues the previous one:
	// "e qual a dose do Fosetal?", "e pra zona rural?", "what about corn?".
	followUpConnectives = []string{
		"e", "mas e", "e quanto", "e se", "entao", "tambem", "alem disso", "agora",
		"and", "what about", "how about", "also", "then",
	}
	// followUpReferences point back at something said before: "ele serve
	// pra milho?", "qual a dose dele?", "does it work on corn?".
	followUpReferences = []string{
		"ele", "ela", "eles", "elas", "dele", "dela", "deles", "delas", "nele", "nela", "neles", "nelas",
		"desse", "dessa", "desses", "dessas", "deste", "desta", "nesse", "nessa", "neste", "nesta",
		"esses", "essas", "estes", "estas",
		"esse produto", "este produto", "o mesmo", "a mesma", "os mesmos", "as mesmas", "mesmo produto", "o primeiro", "o segundo",
		"o ultimo", "essa opcao", "esse ai", "isso", "disso",
		"it", "its", "this one", "that one", "them", "they", "the first", "the second", "the same",
	}
	// followUpAttributes are the attributes a message may ask about the
	// subject of the previous turn without naming it: "qual a dose?",
	// "e o preço?", "tem em estoque?", "e quanto tempo leva?".
	followUpAttributes = []string{
		"dose", "dosagem", "preco", "valor", "custa", "quanto", "prazo", "carencia", "intervalo", "seguranca",
		"estoque", "disponivel", "garantia", "frete", "embalagem", "bula", "aplicacao", "aplicar", "quantidade",
		"formulacao", "fabricante", "marca", "parcela", "parcelar", "desconto", "ingrediente", "ativo",
		"tempo", "demora", "demorar", "leva", "levar", "dias", "horas", "mais", "barato", "caro", "melhor", "hectare",
		"price", "cost", "cheaper", "cheapest", "expensive", "dose", "rate", "interval", "stock", "warranty", "shipping", "label",
	}
)

// DetectFollowUp is the default PipelineOptions.FollowUp. A message is a follow-up
// when the history holds a user turn and the message
//
//   - refers back ("dele", "esse produto", "isso", "it"), or
//   - names no subject of its own: only a crop ("e na uva?"), only
//     attributes (dose, preço, prazo, carência, estoque …: "qual a
//     dose?"; a synonym table name made of them counts as one, "and the
//     pre-harvest interval?"), only a connective ("e então?") or no content word at all
//     ("quanto custa?"). A function word of Portuguese or English
//     (lexicon.DefaultFrequencies) is no subject beside one of these cues
//     ("e a carência de cada um?"), but that list holds nouns too ("site",
//     "estado", "order", "website"), so a message of such words and no
//     cue ("vocês têm site?", "how do I place an order?") stands alone.
//
// A definition ("o que é período de carência?", "what is a pre-harvest
// interval?") asks for itself, whatever came before, unless it refers
// back ("e o que é isso?").
//
// Anything else — a question naming its own subject, even after "e …"
// ("e como faço pra devolver um produto?"), or noise — is
// self-contained, and the history stays out of its searches, so a topic
// change is not answered with the previous topic's records. The rule was
// chosen on the tune half of testdata/chat_eval.jsonl and a newcomer's
// review of the demo (BENCHMARKS.md, chat answers).
func DetectFollowUp(message string, history []Turn) FollowUpDecision {
	if !slices.ContainsFunc(history, func(t Turn) bool { return t.Role == llm.RoleUser }) {
		return FollowUpDecision{Reason: "no-history"}
	}
	if len(passage.DefinedTerms(message)) > 0 && !slices.ContainsFunc(followUpReferences, func(r string) bool {
		return strings.Contains(textutil.PaddedWords(message), " "+r+" ")
	}) {
		// "o que é período de carência?" asks a definition, whatever
		// came before; "o que é isso?" refers back.
		return FollowUpDecision{Reason: "self-contained"}
	}
	words := chatWords(message) // "qnto", "qto": as customers type them
	padded := " " + strings.Join(words, " ") + " "
	reference := false
	for _, r := range followUpReferences {
		if strings.Contains(padded, " "+r+" ") {
			if !englishReference[r] {
				return FollowUpDecision{FollowUp: true, Reason: "reference"}
			}
			reference = true
		}
	}
	stop := lexical.DefaultStopwords()
	cultures, attributes := map[string]bool{}, map[string]bool{}
	for _, m := range lexical.DefaultSynonyms().Detect(message) {
		mark := cultures
		switch {
		case m.Category == lexical.CategorySubject:
		case isAttributeTerm(m.Term, stop):
			// A name of an attribute ("pre-harvest interval" for
			// "intervalo de segurança") is an attribute, whatever its
			// words.
			mark = attributes
		default:
			continue
		}
		for _, w := range strings.Fields(strings.ReplaceAll(m.Text, "-", " ")) {
			mark[w] = true
		}
	}
	subject, attrs, crops, weak := 0, 0, 0, 0
	general := lexicon.DefaultFrequencies()
	frame := defaultFrameSet
	for _, w := range words {
		switch {
		case slices.Contains(followUpAttributes, w) || attributes[w]:
			attrs++
		case cultures[w]:
			crops++
		case stop.Contains(w) || frame[w] || frame[lexical.Stem(w)] || len(w) < 2 || slices.Contains(followUpConnectives, w):
		case general.Function(w):
			// The general list's function words include nouns ("site",
			// "estado", "sistema", "order", "website"): no subject beside
			// a follow-up cue ("e a carência de cada um?"), but a message
			// made of them alone ("vocês têm site?") still stands alone.
			weak++
		default:
			subject++
		}
	}
	connective := slices.ContainsFunc(followUpConnectives, func(c string) bool { return strings.HasPrefix(padded, " "+c+" ") })
	switch {
	case subject > 0 && reference:
		// English "it"/"they" also fill a subject's slot ("is it safe to
		// use Roundup on wheat?"): only a subject-less one refers back.
	case subject > 0:
		// A message naming its own subject stands alone, even after "e …":
		// "e como faço pra devolver um produto?" changes the subject.
	case reference:
		return FollowUpDecision{FollowUp: true, Reason: "reference"}
	case crops > 0:
		return FollowUpDecision{FollowUp: true, Reason: "crop-only"}
	case attrs > 0:
		return FollowUpDecision{FollowUp: true, Reason: "attribute-only"}
	case connective:
		return FollowUpDecision{FollowUp: true, Reason: "connective"}
	case weak > 0:
		// Only general function words, no cue: self-contained.
	default:
		return FollowUpDecision{FollowUp: true, Reason: "no-content"}
	}
	return FollowUpDecision{Reason: "self-contained"}
}

// englishReference are the references that, in English, also stand in
// for a subject the message names ("is it safe to use Roundup?").
var englishReference = map[string]bool{"it": true, "its": true, "them": true, "they": true}

var defaultFrameSet = textutil.FrameSet(defaultFrameWords)

// isAttributeTerm reports whether a synonym table term is a phrase of
// followUpAttributes and stopwords alone ("intervalo de seguranca"); a
// single word is not (its aliases name store policies too: "guarantee",
// "discount", which the FAQs answer).
func isAttributeTerm(term string, stop *lexical.StopwordSet) bool {
	words := strings.Fields(lexical.Normalize(term))
	return len(words) > 1 && !slices.ContainsFunc(words, func(w string) bool {
		return !slices.Contains(followUpAttributes, w) && !stop.Contains(w)
	})
}
