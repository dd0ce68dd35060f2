package rag

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/hybridrag/hybridrag/internal/morph"
	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/lexical/snowball"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
	"github.com/hybridrag/hybridrag/rag/internal/quoted"
	"github.com/hybridrag/hybridrag/storage"
)

// This file picks, for each hit the context carries, the passages of its
// record that answer the question: a leaflet row, a metadata value, a FAQ
// sentence, a document's paragraph. A model told to answer only from its
// context can state only what the context holds, and a hit's snippet (the
// chunk the vector leg matched, or the start of its description) seldom
// holds the dose, interval or date asked.
//
// A record's text is split into units (passage.Units: sentences, a list
// with its opening sentence, a table row written "Header: cell; Header:
// cell" with its header), each unit is scored by the question's content
// words it holds, each weighted by its rarity among the record's own units
// (ln(1+N/df)), so the word every row of a leaflet holds ("dose") counts
// little and the crop asked ("café") much; the words of the record's name
// do not count (every unit is about it), nor, for a catalog item, those of
// its category and of the one crop it is registered for. A question word also matches a
// unit through the synonym table: "carência" holds the canonical term
// "intervalo de segurança", and so does the leaflet's "INTERVALO DE
// SEGURANÇA" column. Words are compared by their Snowball stem (root),
// which conflates a verb with its noun: "como armazenar?" finds the
// leaflet's "Armazenamento:" line, "descartar" its "descarte". A crop
// asked also matches the group a leaflet row names instead of it
// ("repolho" → the "hortaliças" row), when no unit names the crop itself.
// A question that asks for a kind of value (answerKinds: "quanto tempo",
// "quantas vezes", "que horas", "quantos litros") counts the units that
// hold such a value ("48 horas", "quatro aplicações", "14h", "0,6 L/ha")
// as holding one more question word, weighted by rarity like the others:
// "quanto tempo tenho que esperar pra entrar na lavoura?" finds "Período de
// reentrada na área tratada: 48 horas", which shares no word with it. The
// best units are kept, best first, down to half of the best unit's score.
// Each keeps its source span, so a citation quotes the record exactly
// (Quote).

const (
	// maxPassages bounds the passages quoted per hit.
	maxPassages = 3
	// wholeLine is the length up to which a line of prose is one passage
	// (a leaflet line keeps its crop with its dose); longer lines are
	// split into sentences.
	wholeLine = 320
	// passageChars bounds each quoted passage.
	passageChars = 400
	// shortFAQAnswer is the length up to which a FAQ's answer is quoted
	// whole.
	shortFAQAnswer = 600
	// descriptionChars bounds the description an item's line keeps when
	// passages are quoted.
	descriptionChars = 200
	// synonymPrefix marks a canonical term among a unit's or question's
	// stemmed words (it cannot start a stemmed word).
	synonymPrefix = "≈"
	// subjectPrefix marks, among a unit's words, a subject (a crop) of
	// the synonym table it names.
	subjectPrefix = "§"
)

// quoter picks passages for the context. A nil *quoter quotes nothing
// (every hit keeps its snippet). It is safe for concurrent use.
type quoter struct {
	syn *lexical.Synonyms
	// groups are the subjects (Mention.Term) of each one-word group of
	// syn, by the group's Normalize form.
	groups map[string][]string
	// general weighs a question word by how specific it is in the
	// general language (generality), as the evidence does.
	general *generalTable
	stop    *lexical.StopwordSet
	frame   map[string]bool
	// units caches records' units, which do not depend on the question,
	// by kind and ID, valid for the UpdatedAt they were built from.
	units *lru.Cache[string, unitsEntry]
}

// unitsEntry are a record's cached units.
type unitsEntry struct {
	updated time.Time
	units   []passage.Unit
}

// quoterCacheSize is how many records' units a quoter keeps.
const quoterCacheSize = 4096

// newQuoter returns a quoter matching synonyms of syn and leaving out
// stopwords and the frame words.
func newQuoter(syn *lexical.Synonyms, frameWords []string) *quoter {
	c, _ := lru.New[string, unitsEntry](quoterCacheSize) // only a size ≤ 0 fails
	groups := map[string][]string{}
	for _, e := range syn.Entries() {
		for _, g := range e.Within {
			if g := lexical.Normalize(g); e.Category == lexical.CategorySubject && !strings.ContainsRune(g, ' ') {
				groups[g] = append(groups[g], lexical.Normalize(e.Canonical))
			}
		}
	}
	return &quoter{syn: syn, groups: groups, general: newGeneralTable(lexicon.DefaultFrequencies(), nil), stop: lexical.DefaultStopwords(), frame: textutil.FrameSet(frameWords), units: c}
}

// defaultQuoter is the quoter of FormatContext: the default synonym table
// and frame words.
var defaultQuoter = newQuoter(lexical.DefaultSynonyms(), defaultFrameWords)

// question is a question prepared for quoting: its stemmed content words
// and the canonical terms it mentions. A nil *question quotes nothing.
type question struct {
	q *quoter
	// words are the question's words (qword): a unit holds one when it
	// holds one of its keys.
	words []qword
	// terms are the terms a definitional question asks about
	// (passage.DefinedTerms): a unit defining one leads.
	terms []string
	// subjects are the crops (synonym table subjects) the question asks.
	subjects map[string]bool
	// groups maps the root of a group a crop of the question belongs to
	// ("hortalic") to the crop's synonym word ("≈repolho"): the group
	// counts only in a record that never names the crop.
	groups map[string]string
	// yesNo: the question asks yes or no (no interrogative word): a FAQ
	// answer opening with "Sim."/"Não." answers it in its first sentence.
	yesNo bool
	// memo holds the passages found per record ("kind/id"): a turn
	// formats its hits several times (budget, audit, context, citations).
	mu   sync.Mutex
	memo map[string]picks
}

// picks are the units chosen for a record, best first, and the record's
// citation (documents: the section of the best).
type picks struct {
	units []passage.Unit
	cite  string
}

// texts are the picked units' texts as the context writes them: on one
// line, each cut to passageChars, without repeats (case, accents and
// final punctuation aside).
func (p picks) texts() []string {
	out := make([]string, 0, len(p.units))
	seen := map[string]bool{}
	for _, u := range p.units {
		t := textutil.TruncateRunes(textutil.OneLine(u.Text), passageChars)
		// A metadata value often repeats a leaflet line ("Ingrediente
		// ativo: …" and "Ingrediente ativo: ….").
		key := lexical.Normalize(strings.TrimRight(t, ".;: "))
		if !seen[key] {
			seen[key] = true
			out = append(out, t)
		}
	}
	return out
}

// memoized returns the picks of key, computing them with find once.
func (qs *question) memoized(key string, find func() picks) picks {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if m, ok := qs.memo[key]; ok {
		return m
	}
	p := find()
	if qs.memo == nil {
		qs.memo = map[string]picks{}
	}
	qs.memo[key] = p
	return p
}

// prepare returns text's question; nil when q is nil or text has no
// content word.
func (q *quoter) prepare(text string) *question { return q.prepareTurn(text, "") }

// followUpWeight is the weight of a word that only the conversation
// context of a follow-up holds: the message's own words lead.
const followUpWeight = 0.5

// prepareTurn returns the question of a message and its conversation
// context (the previous turn of a follow-up; "" for none): the context's
// words count half (followUpWeight), and when the message names a crop
// the context's crops are left out — "e no café?" after a question on
// soybean asks for the café row. nil when q is nil or neither has a
// content word.
func (q *quoter) prepareTurn(text, context string) *question {
	if q == nil {
		return nil
	}
	qs := &question{q: q}
	textSubject := slices.ContainsFunc(q.syn.Detect(text), func(m lexical.Mention) bool { return m.Category == lexical.CategorySubject })
	qs.add(text, 1, nil)
	// "e o preço?" after "qual a dose do Glifovale?" asks the price, which
	// the item's line states: the earlier turn's words would quote its
	// dose rows instead (the newcomer walk).
	if strings.TrimSpace(context) != "" && !(len(qs.words) == 0 && asksPrice(text)) {
		var skip map[string]bool
		if textSubject {
			skip = map[string]bool{}
			for _, m := range q.syn.Detect(context) {
				if m.Category == lexical.CategorySubject {
					skip[synonymPrefix+m.Term] = true
					for _, w := range textutil.NormWords(m.Text) {
						skip[lexical.Stem(w)] = true
					}
				}
			}
		}
		qs.add(context, followUpWeight, skip)
	}
	for _, k := range askedKinds(text) {
		qs.words = append(qs.words, qword{keys: []string{k}, weight: 1})
	}
	qs.yesNo = asksYesNo(text)
	qs.terms = passage.DefinedTerms(text)
	if len(qs.terms) == 0 && context != "" {
		qs.terms = passage.DefinedTerms(context)
	}
	if len(qs.words) == 0 && len(qs.terms) == 0 {
		return nil
	}
	return qs
}

// priceWords ask for an item's price (normalized).
var priceWords = []string{"preco", "precos", "custa", "custam", "custo", "valor", "price", "prices", "cost", "costs"}

// asksPrice reports whether text asks for a price.
func asksPrice(text string) bool {
	return slices.ContainsFunc(textutil.NormWords(text), func(w string) bool { return slices.Contains(priceWords, w) })
}

// qword is a word of a question: its keys (wordKeys; a canonical term
// "≈intervalo de segurança" and a kind of value "#duration" are one
// key), any of which a unit may hold, and its weight.
type qword struct {
	keys   []string
	weight float64
}

// has reports whether the question has a word whose first key is key.
func (qs *question) has(key string) bool {
	return slices.ContainsFunc(qs.words, func(w qword) bool { return w.keys[0] == key })
}

// add adds the content words of text (not a stopword, a frame word or a
// word of under 3 letters), the synonym table's terms it names and the
// groups of its crops, each of weight weight, but those whose first key
// skip holds.
func (qs *question) add(text string, weight float64, skip map[string]bool) {
	q := qs.q
	for _, w := range textutil.NormWords(text) {
		st := lexical.Stem(w)
		if utf8.RuneCountInString(w) < 3 || q.stop.Contains(w) || q.frame[w] || q.frame[st] || qs.has(st) || skip[st] {
			continue
		}
		g := 1.0
		if q.general != nil && len(q.syn.Detect(w)) == 0 {
			// A common word ("certo", "colocar") tells little of which
			// line answers; the store's own terms count whole.
			g = generality(q.general, w)
		}
		qs.words = append(qs.words, qword{keys: wordKeys(w), weight: weight * g})
	}
	for _, m := range q.syn.Detect(text) {
		t := synonymPrefix + m.Term
		if slices.ContainsFunc(qs.words, func(w qword) bool { return slices.Contains(w.keys, t) }) || skip[t] {
			continue
		}
		// A crop's term is one more key of the word naming it ("soja" and
		// "≈soja"), not a second word: a row naming the crop asked would
		// count it twice against the line holding the rest of the
		// question ("posso passar lambdavale na soja florida? tenho
		// abelha perto": "Muito tóxico para abelhas: não aplicar na
		// floração"). Other terms stay words of their own: a pest's class
		// ("ferrugem" → "≈fungicida") is not the pest, and a record named
		// by the class ("Fungicida Exemplo") must not drop the pest from
		// the words its units are scored by (wordsWithout).
		if i := qs.wordNaming(m.Text); i >= 0 && m.Category == lexical.CategorySubject {
			qs.words[i].keys = append(qs.words[i].keys, t)
		} else {
			qs.words = append(qs.words, qword{keys: []string{t}, weight: weight})
		}
		if m.Category != lexical.CategorySubject {
			continue
		}
		if qs.subjects == nil {
			qs.subjects = map[string]bool{}
		}
		qs.subjects[m.Term] = true
		for _, g := range q.syn.Within(m.Term) {
			if strings.ContainsRune(g, ' ') {
				continue // "todas as culturas": every item names its crops
			}
			if k := wordKeys(g); !qs.has(k[0]) {
				if qs.groups == nil {
					qs.groups = map[string]string{}
				}
				qs.groups[k[0]] = t
				qs.words = append(qs.words, qword{keys: k, weight: weight})
			}
		}
	}
}

// wordNaming returns the index of the question's word that starts the
// synonym table's match text, or -1 when text starts with no word of the
// question (a stopword, a frame word).
func (qs *question) wordNaming(text string) int {
	ws := textutil.NormWords(text)
	if len(ws) == 0 {
		return -1
	}
	first := lexical.Stem(ws[0])
	return slices.IndexFunc(qs.words, func(w qword) bool { return w.keys[0] == first })
}

// preferAskedSubjects divides the score of a unit naming crops the
// question does not ask by one plus their number: "e pro feijão?" is
// answered by the row "Feijão: …", not by a description or list naming
// soybean, bean and coffee alike. A question naming no crop and asking
// for a kind of value (askedKinds: "passei metomax hj cedo, qdo o pessoal
// pode voltar pra roça?") is answered by the value that holds for every
// crop ("Período de reentrada na área tratada: 48 horas") before a crop's
// row ("Milho: … 14 dias"): a unit naming crops counts half. Without a
// kind asked ("em quais culturas posso usar?") the line listing the
// crops may be the answer, and nothing is divided.
func (qs *question) preferAskedSubjects(units []passage.Unit) {
	asked := qs.subjects
	if len(asked) == 0 {
		// The kinds of value asked are the words answerKinds names
		// ("#duration").
		if !slices.ContainsFunc(qs.words, func(w qword) bool { return strings.HasPrefix(w.keys[0], "#") }) {
			return
		}
		for i := range units {
			u := &units[i]
			for k := range u.Words {
				if strings.HasPrefix(k, subjectPrefix) {
					u.Score /= 2
					break
				}
			}
		}
		return
	}
	// The crops sharing a group with a crop asked: a unit answering
	// through the group ("Na cultura das hortaliças, … curuquerê-da-couve")
	// may name them.
	var kin map[string]bool
	for t := range asked {
		for _, g := range qs.q.syn.Within(t) {
			for _, e := range qs.q.groups[g] {
				if kin == nil {
					kin = map[string]bool{}
				}
				kin[e] = true
			}
		}
	}
	for i := range units {
		u := &units[i]
		direct := false
		for t := range asked {
			direct = direct || u.Words[subjectPrefix+t]
		}
		others := 0
		for k := range u.Words {
			if t, ok := strings.CutPrefix(k, subjectPrefix); ok && !asked[t] && (direct || !kin[t]) {
				others++
			}
		}
		u.Score /= float64(1 + others)
	}
}

// wordKeys are the keys of a normalized word, its light stem first
// (lexical.Stem: "embalagens" → "embalage") then its Snowball stems
// (snowball.Stem of the word and of its light stem), which conflate a
// verb with its noun ("armazenar", "armazenamento" → "armazen";
// "descartar", "descarte" → "descart"), the root a verb shares with its
// participle (verbRoot: "entrar", "entrada"), and, for a word "re" + a
// word of the language (lexicon.Default), that word's keys ("reentrada"
// → "entrada"). Snowball alone is not enough: it leaves some plurals
// whole ("embalagens") and stems "entrar" and "entrada" apart.
func wordKeys(w string) []string {
	keys := []string{lexical.Stem(w)}
	add := func(k string) {
		if k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	add(snowball.Stem(w))
	add(snowball.Stem(keys[0]))
	add(verbRoot(w))
	add(genderRoot(w))
	if rest, ok := strings.CutPrefix(w, "re"); ok && len(rest) >= 5 && lexicon.Default().Known(rest) {
		// "reentrada" is an "entrada" again: it answers "entrar".
		add(snowball.Stem(rest))
		add(verbRoot(rest))
	}
	return keys
}

// verbEndings are the endings of an infinitive and of its participle
// used as a noun or adjective ("entrar", "entrada"; "colher", "colhida").
var verbEndings = []string{"adas", "ados", "idas", "idos", "ada", "ado", "ida", "ido", "ar", "er", "ir"}

// verbRoot is the key a verb shares with its participle ("^entr" for
// "entrar" and "entrada", which Snowball stems apart), when at least
// four letters remain; "" otherwise.
func verbRoot(w string) string {
	for _, e := range verbEndings {
		if r, ok := strings.CutSuffix(w, e); ok && len(r) >= 4 {
			return "^" + r
		}
	}
	return ""
}

// genderRoot is the key the forms of a Portuguese adjective or noun
// share across gender and number ("~vazi" for "vazio", "vazia", "vazios"
// and "vazias"; "~propri" for "próprio" and "própria"), which the
// stemmers keep apart: Snowball stems "vazias" to "vazia" and "vazio" to
// "vazi". At least four letters must remain, so short words ("caso",
// "casa"; "mato", "mata") keep apart, and a form only a verb has is no
// adjective ("fazendo" is not "fazenda"); "" otherwise.
func genderRoot(w string) string {
	if morph.VerbForm(w) {
		return ""
	}
	r := strings.TrimSuffix(w, "s")
	if r2, ok := strings.CutSuffix(r, "o"); ok {
		r = r2
	} else if r2, ok := strings.CutSuffix(r, "a"); ok {
		r = r2
	} else {
		return ""
	}
	if len(r) < 4 {
		return ""
	}
	return "~" + r
}

// keySet is the set of the keys of s's words (wordKeys).
func keySet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range textutil.NormWords(s) {
		for _, k := range wordKeys(w) {
			m[k] = true
		}
	}
	return m
}

// holds reports whether set holds one of keys.
func holds(set map[string]bool, keys []string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { return set[k] })
}

// scoreUnits is passage.ScoreUnits for a question's words: each word the
// unit holds (one of its keys) adds its weight times its rarity among the
// units, ln(1+N/df), half of it when only the unit's section heading
// holds it.
func scoreUnits(units []passage.Unit, words []qword) {
	df := make([]int, len(words))
	for _, u := range units {
		for i, w := range words {
			if holds(u.Words, w.keys) || holds(u.Heading, w.keys) {
				df[i]++
			}
		}
	}
	n := float64(len(units))
	for i := range units {
		u := &units[i]
		u.Score = 0
		for j, w := range words {
			if df[j] == 0 {
				continue
			}
			idf := w.weight * math.Log(1+n/float64(df[j]))
			switch {
			case holds(u.Words, w.keys):
				u.Score += idf
			case holds(u.Heading, w.keys):
				u.Score += idf / 2
			}
		}
	}
}

// answerKind is a kind of value a question can ask for: the question
// asks for it when its normalized text holds one of cues (as whole
// words), and a unit holds one when value matches its normalized text.
// The kind is a pseudo-word of both ("#duration"), so ScoreUnits weighs
// it by its rarity among the record's units like any word.
type answerKind struct {
	word  string
	cues  []string
	value *regexp.Regexp
}

// numberWord is a number written in digits or, up to twelve and a few
// round ones, in words (pt-BR and English), normalized.
const numberWord = `(?:\d+(?:[.,]\d+)?|um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|nove|dez|onze|doze|quinze|vinte|trinta|sessenta|noventa|one|two|three|four|five|six|seven|eight|nine|ten|twelve)`

// answerKinds are the kinds of value a question's wording asks for: a
// duration ("quanto tempo", "quantos dias", "prazo", "demora", "how
// long"), a time of day ("até que horas", "what time"), a count of times
// ("quantas vezes", "how many times"), a stage ("até que fase", "which
// stage"), a temperature ("temperatura", "quantos graus") and an amount
// ("quantos litros", "quanto usar", "how much"). They are the
// interrogatives of the language, not words of a domain: the value is
// recognized by its form (a number and a unit of time, "14h", a number of
// times or applications, "estádio"/"V8", degrees, a number and a unit of
// measure).
var answerKinds = []answerKind{
	{word: "#duration",
		cues: []string{"quanto tempo", "quantos dias", "quantas horas", "quantos meses", "quantos anos", "quantas semanas", "quantos minutos",
			"prazo", "prazos", "demora", "demoram", "demorar", "ate quando", "how long", "how many days", "how many hours", "how many months", "how many years", "how soon"},
		value: regexp.MustCompile(`\b` + numberWord + `(?:\s*(?:a|e|ou|to|-)\s*` + numberWord + `)?\s*(?:h|hs|horas?|dias?|semanas?|mes|meses|anos?|minutos?|min|hours?|days?|weeks?|months?|years?|minutes?)\b`)},
	{word: "#clock",
		cues:  []string{"que horas", "que hora", "horario", "horarios", "what time", "opening hours"},
		value: regexp.MustCompile(`\b\d{1,2}\s*h(?:\d{2})?\b|\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:am|pm)\b`)},
	{word: "#count",
		cues:  []string{"quantas vezes", "quantas aplicacoes", "numero de aplicacoes", "how many times", "how many applications", "how often"},
		value: regexp.MustCompile(`\b` + numberWord + `\s+(?:vezes|aplicacoes|aplicacao|times|applications?)\b|\bmaximo de \d`)},
	{word: "#stage",
		cues:  []string{"que fase", "qual fase", "que estadio", "qual estadio", "what stage", "which stage", "growth stage"},
		value: regexp.MustCompile(`\bestadios?\b|\b[vr]\d{1,2}\b|\bfases?\b|\bstages?\b`)},
	{word: "#temperature",
		cues:  []string{"temperatura", "quantos graus", "what temperature", "how hot", "how cold"},
		value: regexp.MustCompile(`\d\s*(?:°|º)\s*c\b|\b\d+\s*graus?\b|\b\d+\s*degrees\b`)},
	{word: "#amount",
		cues: []string{"quantos litros", "quantos ml", "quantos quilos", "quantos kg", "quantos gramas", "quanto usar", "quanto uso", "quanto coloco", "quanto colocar",
			"quanto aplicar", "quanto aplico", "quantidade", "how much"},
		value: regexp.MustCompile(`\b\d+(?:[.,]\d+)?\s*(?:ml|l|kg|g|t|litros?|quilos?)(?:\s*/\s*\w+)?\b`)},
}

// chatSpelling are the words customers abbreviate when they type in a
// chat ("internetês": "qto tempo", "qnd chega", "tbm serve"), each with
// the word it stands for, normalized. It is general-language knowledge,
// the common abbreviations of Brazilian Portuguese chat, not a list of
// any store's or set's words; abbreviations that are words or codes of
// their own ("mt", Mato Grosso; "pf", pessoa física; "to", "ta") are left
// out. The cues of answerKinds, DetectFollowUp and the evidence's
// general-language weights (a concept spelled "qnd" weighs what "quando"
// weighs) read them.
var chatSpelling = map[string]string{
	"q": "que", "oq": "que",
	"qto": "quanto", "qnto": "quanto", "qnt": "quanto",
	"qtos": "quantos", "qntos": "quantos", "qts": "quantos", "qnts": "quantos", "mts": "muitos",
	"qtas": "quantas", "qntas": "quantas",
	"qnd": "quando", "qdo": "quando", "qndo": "quando",
	"tbm": "tambem", "tb": "tambem", "tbem": "tambem",
	"pq": "porque", "pqe": "porque", "porq": "porque",
	"vc": "voce", "vcs": "voces", "hj": "hoje", "agr": "agora", "dps": "depois",
	"msm": "mesmo", "td": "tudo", "tds": "todos", "nd": "nada", "ngm": "ninguem",
	"mto": "muito", "mta": "muita", "mtos": "muitos", "mtas": "muitas",
	"qlq": "qualquer", "qlqr": "qualquer", "qq": "qualquer",
	"qro": "quero", "qr": "quero", "axo": "acho", "aki": "aqui", "kd": "cade", "naum": "nao",
	"cmg": "comigo", "ctg": "contigo", "obg": "obrigado", "obgd": "obrigado", "vlw": "valeu",
	"blz": "beleza", "vdd": "verdade", "msg": "mensagem",
}

// interrogatives are the words and phrases of a question that asks
// something other than yes or no (pt-BR and English, normalized, chat
// spellings spelled out).
var interrogatives = []string{"qual", "quais", "quanto", "quanta", "quantos", "quantas", "como", "onde", "aonde",
	"quando", "quem", "cade", "porque", "o que", "por que", "pra que", "para que",
	"what", "which", "how", "where", "when", "who", "why"}

// asksYesNo reports whether text is a question without an interrogative
// ("preciso de receita pra comprar glifosato?", "vocês entregam na
// fazenda?", "can I return it?").
func asksYesNo(text string) bool {
	if !strings.Contains(text, "?") {
		return false
	}
	if slices.Contains(textutil.NormWords(text), "oq") { // "o que", spelled out as "que"
		return false
	}
	n := chatText(text)
	return !slices.ContainsFunc(interrogatives, func(w string) bool { return strings.Contains(n, " "+w+" ") })
}

// leadWithVerdict raises, in a FAQ answer opening with a verdict ("Sim.",
// "Não, …"), the unit stating it to the best score: it answers a yes-or-no
// question ("preciso de receita pra comprar glifosato?" → "Sim. A venda
// de agrotóxicos … exige receituário agronômico", not the later sentence
// sharing the word "receita").
func leadWithVerdict(units []passage.Unit) {
	if len(units) == 0 {
		return
	}
	first := textutil.NormWords(units[0].Text)
	if len(first) == 0 || first[0] != "sim" && first[0] != "nao" {
		return
	}
	lead := 0
	if len(first) == 1 && len(units) > 1 {
		lead = 1 // a bare "Sim." is followed by what it says yes to
	}
	top := 0.0
	for _, u := range units {
		top = max(top, u.Score)
	}
	if top > 0 {
		units[lead].Score = top + 1e-9
	}
}

// chatText is text's chatWords joined by single spaces, with a space at
// either end, so a phrase is found as whole words (" quanto tempo ").
func chatText(text string) string { return " " + strings.Join(chatWords(text), " ") + " " }

// chatWords are text's normalized words, chat abbreviations spelled out
// (chatSpelling).
func chatWords(text string) []string {
	words := textutil.NormWords(text)
	for i, w := range words {
		if full, ok := chatSpelling[w]; ok {
			words[i] = full
		}
	}
	return words
}

// askedWhen is "quando" (or "qnd", "qdo") asking when: opening a clause
// ("…, quando o pessoal pode voltar?") or closing one ("o estorno cai
// quando?"), not joining two ("o que fazer quando aparece ferrugem?",
// "if/when").
var askedWhen = regexp.MustCompile(`(?:^|[,.;:!?]|\be|\bmas)\s*(?:quando|qnd|qdo|qndo)\b|\b(?:quando|qnd|qdo|qndo)\s*(?:[?.!]|$)`)

// askedKinds are the pseudo-words of the kinds of value text asks for:
// by its cues ("quanto tempo", "quando" asking when), or by a value of the
// kind it states itself ("aguenta 35 graus no galpão?", "apliquei há 10
// dias"), which the answer's value is to be set against. Both were chosen
// on the chat sets' fact recall, with the cross-domain evaluation as a
// check (BENCHMARKS.md, seventh pass).
func askedKinds(text string) []string {
	n := chatText(text)
	var out []string
	norm := lexical.Normalize(text)
	for _, k := range answerKinds {
		if slices.ContainsFunc(k.cues, func(c string) bool { return strings.Contains(n, " "+c+" ") }) || k.value.MatchString(norm) ||
			k.word == "#duration" && askedWhen.MatchString(norm) {
			out = append(out, k.word)
		}
	}
	return out
}

// heldKinds adds to words the pseudo-words of the kinds of value text
// holds.
func heldKinds(text string, words map[string]bool) {
	n := lexical.Normalize(text)
	for _, k := range answerKinds {
		if holdsKind(k, n) {
			words[k.word] = true
		}
	}
}

// holdsKind reports whether normalized text holds a value of kind k; a
// time of day ("até as 14h") is no duration, though the duration pattern
// matches it.
func holdsKind(k answerKind, n string) bool {
	if k.word != "#duration" {
		return k.value.MatchString(n)
	}
	return slices.ContainsFunc(k.value.FindAllString(n, -1), func(m string) bool { return !clockTime.MatchString(m) })
}

// unitAdder adds the units of text, a part of the record's field source
// starting at byte base, to section sec (heading path path, whose last
// heading's stemmed words are heading).
type unitAdder func(text string, sec int, path string, heading map[string]bool, source string, base int)

// wholeAdder adds text as one unit of section sec standing for
// source[start:end].
type wholeAdder func(text string, sec int, source string, start, end int)

// unitsOf returns the units of a record (kind/id, updated at updated),
// from the cache or built by build, whose texts add splits with split
// (passage.LineUnitSpans or ItemUnitSpans); the caller may set their
// Score, not their Words. Records without an UpdatedAt are not cached.
func (q *quoter) unitsOf(key string, updated time.Time, split func(string, int) []passage.Span, build func(add unitAdder, whole wholeAdder)) []passage.Unit {
	if !updated.IsZero() {
		if e, ok := q.units.Get(key); ok && e.updated.Equal(updated) {
			return slices.Clone(e.units)
		}
	}
	var units []passage.Unit
	whole := func(text string, sec int, source string, start, end int) {
		words := keySet(text)
		for _, m := range q.syn.Detect(text) {
			words[synonymPrefix+m.Term] = true
			if m.Category == lexical.CategorySubject {
				words[subjectPrefix+m.Term] = true
			}
		}
		heldKinds(text, words)
		units = append(units, passage.Unit{Text: text, Section: sec, Words: words, Source: source, Start: start, End: end})
	}
	add := func(text string, sec int, path string, heading map[string]bool, source string, base int) {
		for _, sp := range split(text, wholeLine) {
			whole(sp.Text, sec, source, base+sp.Start, base+sp.End)
			units[len(units)-1].Path, units[len(units)-1].Heading = path, heading
		}
	}
	build(add, whole)
	if !updated.IsZero() {
		q.units.Add(key, unitsEntry{updated: updated, units: units})
	}
	return slices.Clone(units)
}

// wordsWithout are the question's words without those of name (a
// record's name or title: every unit of the record is about it); none
// when the question names nothing else, and the record then keeps its
// snippet.
func (qs *question) wordsWithout(name string) []qword {
	skip := keySet(name)
	for _, m := range qs.q.syn.Detect(name) {
		skip[synonymPrefix+m.Term] = true
	}
	return slices.DeleteFunc(slices.Clone(qs.words), func(w qword) bool { return holds(skip, w.keys) })
}

// score scores units (ScoreUnits) by the question's words but those of
// name (wordsWithout), leaving out a crop's group when a unit names the
// crop itself (a leaflet with a "Repolho" row answers "repolho" with it,
// not with its "Hortaliças" row), and raises the units defining a term
// of a definitional question (passage.BoostDefinitions).
func (qs *question) score(units []passage.Unit, name string) {
	words := qs.wordsWithout(name)
	if len(qs.groups) > 0 {
		words = slices.DeleteFunc(words, func(w qword) bool {
			crop, ok := qs.groups[w.keys[0]]
			return ok && slices.ContainsFunc(units, func(u passage.Unit) bool { return u.Words[crop] })
		})
	}
	scoreUnits(units, words)
	qs.preferAskedSubjects(units)
	if len(qs.terms) > 0 {
		// "o que é vazio sanitário?": the sentence that defines it, even
		// when the record's name holds every word asked.
		passage.BoostDefinitions(units, qs.terms)
	}
}

// best returns the best scored units, best first (ties in text order): at
// most maxPassages, each scoring at least half the best and not repeating
// one kept before it (redundant). None when no unit holds a question
// word.
func best(units []passage.Unit) []passage.Unit {
	idx := make([]int, 0, len(units))
	for i := range units {
		if units[i].Score > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	passage.SortByScore(units, idx)
	top := units[idx[0]].Score
	var out []passage.Unit
	var kept []string
	for _, i := range idx {
		if len(out) == maxPassages || units[i].Score < top/2 {
			break
		}
		n := lexical.Normalize(units[i].Text)
		if slices.ContainsFunc(kept, func(k string) bool { return strings.Contains(k, content(n)) }) {
			continue
		}
		if j := slices.IndexFunc(kept, func(k string) bool { return strings.Contains(n, content(k)) }); j >= 0 {
			// It says all the kept one says, and more.
			out[j], kept[j] = units[i], n
			continue
		}
		out = append(out, units[i])
		kept = append(kept, n)
	}
	return out
}

// content is a normalized passage without a leading label ("ingrediente
// ativo: ") and final punctuation: a metadata value is often a phrase of
// a leaflet's line, which then says all it says.
func content(n string) string {
	if _, v, ok := strings.Cut(n, ": "); ok && len(v) >= 12 {
		n = v
	}
	return strings.TrimRight(n, ".;: ")
}

// Sources of a quoted unit: the record field it comes from.
const (
	fieldDescription = "description"
	fieldAnswer      = "answer"
	fieldContent     = "content"
	// fieldMetadata and fieldFile prefix a metadata key and a file name.
	fieldMetadata = "metadata:"
	fieldFile     = "file:"
)

// itemUnits are an item's units: its description (section 0), each
// metadata value written "Label: value" (1; its span is the value's) and
// each file's text (2, 3, …).
func (q *quoter) itemUnits(it *storage.CatalogItem) []passage.Unit {
	// A leaflet's lists are read item by item (passage.ItemUnitSpans), as
	// its tables are row by row: each crop's line is a unit.
	return q.unitsOf("item/"+it.ID, it.UpdatedAt, passage.ItemUnitSpans, func(add unitAdder, whole wholeAdder) {
		add(it.Description, 0, "", nil, fieldDescription, 0)
		keys := make([]string, 0, len(it.Metadata))
		for k := range it.Metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v := it.Metadata[k]
			if t := strings.TrimSpace(v); t != "" {
				start := strings.Index(v, t)
				whole(metadataLabel(k)+": "+textutil.OneLine(t), 1, fieldMetadata+k, start, start+len(t))
			}
		}
		for i, f := range it.Files {
			add(f.Text, 2+i, "", nil, fieldFile+f.Name, 0)
		}
	})
}

// itemPicks are the units of an item that answer the question, best
// first; none when no unit holds a question word other than those of the
// item's name and category.
func (qs *question) itemPicks(it *storage.CatalogItem) picks {
	return qs.memoized("item/"+it.ID, func() picks {
		units := qs.q.itemUnits(it)
		// The item's category says what every unit is, as its name does
		// (TestPassagesClassQuestionPicksTheCropRow); so does the crop of
		// an item registered for one crop only: "passei pastonet max no
		// pasto, depois posso plantar feijão?" is answered by the line
		// on planting, not by the pasture's dose row
		// (TestPassagesOneCropItem).
		about := it.Name + "\n" + it.Category
		if len(it.Tags) == 1 && slices.ContainsFunc(qs.q.syn.Detect(it.Tags[0]), func(m lexical.Mention) bool { return m.Category == lexical.CategorySubject }) {
			about += "\n" + it.Tags[0]
		}
		qs.score(units, about)
		return picks{units: best(units)}
	})
}

// itemPassages are the texts of itemPicks; none for a nil question.
func (qs *question) itemPassages(it *storage.CatalogItem) []string {
	if qs == nil {
		return nil
	}
	return qs.itemPicks(it).texts()
}

// faqUnits are a FAQ's answer's units.
func (q *quoter) faqUnits(f *storage.FAQ) []passage.Unit {
	// A FAQ's answer is prose: its units are sentences, so a citation
	// quotes the sentence that answers.
	sentences := func(text string, _ int) []passage.Span { return passage.LineUnitSpans(text, 0) }
	return q.unitsOf("faq/"+f.ID, f.UpdatedAt, sentences, func(add unitAdder, _ wholeAdder) {
		add(f.Answer, 0, "", nil, fieldAnswer, 0)
	})
}

// faqPicks are the sentences of a FAQ's answer that answer the question,
// in text order (passage.PickUnits: the best and the next best of the
// answer, at most maxPassages); none when none holds a question word other
// than the FAQ's own question's.
func (qs *question) faqPicks(f *storage.FAQ) picks {
	return qs.memoized("faq/"+f.ID, func() picks {
		units := qs.q.faqUnits(f)
		qs.score(units, f.Question)
		if qs.yesNo {
			leadWithVerdict(units)
		}
		picked, ok := passage.PickUnits(units, maxPassages, 0)
		if !ok {
			return picks{}
		}
		// PickUnits keeps text order; the quote is the best.
		slices.SortStableFunc(picked, func(a, b passage.Unit) int { return cmp.Compare(b.Score, a.Score) })
		return picks{units: picked}
	})
}

// faqAnswer is the part of a FAQ's answer the context carries: the whole
// answer when short, else its sentences that answer the question (at most
// maxPassages, in text order), else its start.
func (qs *question) faqAnswer(f *storage.FAQ) string {
	answer := textutil.OneLine(textutil.StripMarkdown(f.Answer))
	if qs == nil || utf8.RuneCountInString(answer) <= shortFAQAnswer {
		return textutil.TruncateRunes(answer, contextAnswerChars)
	}
	p := qs.faqPicks(f)
	if len(p.units) == 0 {
		return textutil.TruncateRunes(answer, contextAnswerChars)
	}
	ordered := slices.Clone(p.units)
	slices.SortFunc(ordered, func(a, b passage.Unit) int { return a.Start - b.Start })
	texts := make([]string, len(ordered))
	for i, u := range ordered {
		texts[i] = textutil.TruncateRunes(u.Text, passageChars)
	}
	return passage.JoinPassages(texts)
}

// documentUnits are a document's units by Markdown section, each with its
// span in the content and its section's heading path. The sections are
// parsed only when the units are not cached.
func (q *quoter) documentUnits(d *storage.Document) []passage.Unit {
	return q.unitsOf("doc/"+d.ID, d.UpdatedAt, passage.LineUnitSpans, func(add unitAdder, _ wholeAdder) {
		from := 0
		for i, s := range passage.MarkdownSections(d.Content) {
			var head map[string]bool
			if len(s.Path) > 1 {
				head = keySet(s.Path[len(s.Path)-1])
			}
			base := strings.Index(d.Content[from:], s.Text)
			if base < 0 || s.Text == "" {
				continue // not as written in the content: nothing to quote
			}
			base += from
			add(s.Text, i, s.Heading(), head, fieldContent, base)
			from = base + len(s.Text)
		}
	})
}

// chunkHeading is the heading path of a document hit's best chunk; "" for
// none.
func chunkHeading(h *Hit[storage.Document]) string {
	if h.Vector == nil {
		return ""
	}
	return strings.Join(h.Vector.HeadingPath, chunk.HeadingSeparator)
}

// inSection reports whether u belongs to the section heading (a chunk's
// heading path) names.
func inSection(u *passage.Unit, heading string) bool {
	return heading != "" && u.Path != "" && strings.HasSuffix(heading, u.Path)
}

// documentPicks are the passages of a document hit that answer the
// question, from the section of the best one (any section; a unit of the
// section of the hit's best chunk counts one more). The citation is that
// section ("Title › Section"), or the hit's.
func (qs *question) documentPicks(h *Hit[storage.Document]) picks {
	cite := DocumentCitation(h)
	return qs.memoized("doc/"+h.ID+"/"+cite, func() picks {
		heading := chunkHeading(h)
		units := qs.q.documentUnits(&h.Record)
		qs.score(units, h.Record.Title)
		for i := range units {
			if units[i].Score > 0 && inSection(&units[i], heading) {
				units[i].Score++
			}
		}
		picked := best(units)
		if len(picked) == 0 {
			return picks{cite: cite}
		}
		// The evidence of a long document is the section that answers:
		// the passages of the best unit's section, so the citation names
		// where every quoted passage comes from.
		sec := picked[0].Section
		picked = best(slices.DeleteFunc(units, func(u passage.Unit) bool { return u.Section != sec }))
		if p := picked[0].Path; p != "" {
			cite = p
			if h.Record.Title != "" && !strings.HasPrefix(p, h.Record.Title) {
				cite = h.Record.Title + chunk.HeadingSeparator + p
			}
		}
		return picks{units: picked, cite: cite}
	})
}

// documentPassages are the texts of documentPicks and its citation; none
// and the hit's citation for a nil question.
func (qs *question) documentPassages(h *Hit[storage.Document]) ([]string, string) {
	if qs == nil {
		return nil, DocumentCitation(h)
	}
	p := qs.documentPicks(h)
	return p.texts(), p.cite
}

// quotePassages writes passages for the context, each in guillemets and
// best first: «CULTURA: Café; DOSE: 400 mL/ha» «Fungicida sistêmico …».
// A reader (or a model) tells where each quoted unit starts and ends.
func quotePassages(ps []string) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("«" + strings.TrimSpace(p) + "»")
	}
	return b.String()
}

// metadataLabel writes a metadata key as a label: "ingrediente_ativo" →
// "Ingrediente ativo".
func metadataLabel(key string) string {
	s := strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(key))
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return strings.ToUpper(string(r)) + s[n:]
}

// quoteOf is the Quote of a unit of a record.
func quoteOf(u passage.Unit, text string) *Quote {
	if u.Start < 0 || u.End > len(text) || u.Start >= u.End {
		return nil
	}
	return &Quote{Field: u.Source, Text: text[u.Start:u.End], Start: u.Start, End: u.End}
}

// fieldText is the text of a record's field as Quote.Field names it.
func fieldText[T any](rec *T, field string) (string, bool) {
	switch r := any(rec).(type) {
	case *storage.CatalogItem:
		switch {
		case field == fieldDescription:
			return r.Description, true
		case strings.HasPrefix(field, fieldMetadata):
			v, ok := r.Metadata[strings.TrimPrefix(field, fieldMetadata)]
			return v, ok
		case strings.HasPrefix(field, fieldFile):
			for _, f := range r.Files {
				if fieldFile+f.Name == field {
					return f.Text, true
				}
			}
		}
	case *storage.FAQ:
		if field == fieldAnswer {
			return r.Answer, true
		}
	case *storage.Document:
		if field == fieldContent {
			return r.Content, true
		}
	}
	return "", false
}

// itemQuote is the span an item's citation rests on: its best passage for
// the question, else the first unit of its description (or of its first
// field with text).
func (qs *question) itemQuote(it *storage.CatalogItem, q *quoter) *Quote {
	var u []passage.Unit
	if qs != nil {
		u = qs.itemPicks(it).units
	}
	if len(u) == 0 {
		u = q.itemUnits(it)
	}
	return firstQuote(it, u)
}

// faqQuote is the span a FAQ's citation rests on: its best sentence for
// the question, else the first of its answer.
func (qs *question) faqQuote(f *storage.FAQ, q *quoter) *Quote {
	var u []passage.Unit
	if qs != nil {
		u = qs.faqPicks(f).units
	}
	if len(u) == 0 {
		u = q.faqUnits(f)
	}
	return firstQuote(f, u)
}

// documentQuote is the span a document's citation rests on: its best
// passage for the question, else the first unit of the section of its
// best chunk, else its first unit.
func (qs *question) documentQuote(h *Hit[storage.Document], q *quoter) *Quote {
	var u []passage.Unit
	if qs != nil {
		u = qs.documentPicks(h).units
	}
	if len(u) == 0 {
		u = q.documentUnits(&h.Record)
		heading := chunkHeading(h)
		if i := slices.IndexFunc(u, func(x passage.Unit) bool { return inSection(&x, heading) }); i > 0 {
			u = u[i:]
		}
	}
	return firstQuote(&h.Record, u)
}

// firstQuote is the Quote of the first of units that is a span of rec.
func firstQuote[T any](rec *T, units []passage.Unit) *Quote {
	for _, u := range units {
		if text, ok := fieldText(rec, u.Source); ok {
			if q := quoteOf(u, text); q != nil {
				return q
			}
		}
	}
	return nil
}

// answerQuotes returns the spans of answer written in guillemets («…»).
func answerQuotes(answer string) []string {
	var out []string
	for {
		i := strings.Index(answer, "«")
		if i < 0 {
			return out
		}
		answer = answer[i+len("«"):]
		j := strings.Index(answer, "»")
		if j < 0 {
			return out
		}
		if q := strings.TrimSpace(answer[:j]); q != "" {
			out = append(out, q)
		}
		answer = answer[j+len("»"):]
	}
}

// unverifiedQuotes are the quotes of answer («…») found neither in the
// context nor in a field of the cited records, compared after
// lexical.Normalize (case, accents and spacing aside). A model that copies
// a passage of its context passes; one that invents a dose in guillemets
// does not.
func unverifiedQuotes(answer, context string, r *searchResults) []string {
	quotes := answerQuotes(answer)
	if len(quotes) == 0 {
		return nil
	}
	texts := []string{lexical.Normalize(context)}
	for _, h := range r.catalog {
		it := &h.Record
		parts := []string{it.Name, it.Description}
		for _, v := range it.Metadata {
			parts = append(parts, v)
		}
		for _, f := range it.Files {
			parts = append(parts, f.Text)
		}
		texts = append(texts, lexical.Normalize(strings.Join(parts, "\n")))
	}
	for _, h := range r.faqs {
		texts = append(texts, lexical.Normalize(h.Record.Question+"\n"+h.Record.Answer))
	}
	for _, h := range r.docs {
		texts = append(texts, lexical.Normalize(h.Record.Content))
	}
	var out []string
	for _, q := range quotes {
		n := lexical.Normalize(strings.TrimRight(q, ".…"))
		if n == "" || !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, n) }) {
			out = append(out, q)
		}
	}
	return out
}

// quoted are the passages the context quotes for each kept hit, for the
// offline extractive answerer (package quoted), so that it states what
// a model reading the context would: an item's and a FAQ's best
// passages, a document's with the section they come from.
func (r *searchResults) quoted() *quoted.Turn {
	t := &quoted.Turn{}
	for i := range r.catalog {
		h := &r.catalog[i]
		t.Add(storage.OwnerRef{Kind: storage.KindItem, ID: h.ID}, quoted.Record{Passages: r.catalogQ.itemPassages(&h.Record)})
	}
	for i := range r.faqs {
		h := &r.faqs[i]
		var ps []string
		if r.faqQ != nil {
			ps = r.faqQ.faqPicks(&h.Record).texts()
		}
		t.Add(storage.OwnerRef{Kind: storage.KindFAQ, ID: h.ID}, quoted.Record{Passages: ps})
	}
	for i := range r.docs {
		h := &r.docs[i]
		ps, cite := r.docQ.documentPassages(h)
		t.Add(storage.OwnerRef{Kind: storage.KindDocument, ID: h.ID}, quoted.Record{Passages: ps, Cite: cite})
	}
	return t
}
