package rag

import (
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
	"github.com/hybridrag/hybridrag/rag/internal/textutil"
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
// do not count (every unit is about it). A question word also matches a
// unit through the synonym table: "carência" holds the canonical term
// "intervalo de segurança", and so does the leaflet's "INTERVALO DE
// SEGURANÇA" column. The best units are kept, best first, down to half of
// the best unit's score.

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
)

// quoter picks passages for the context. A nil *quoter quotes nothing
// (every hit keeps its snippet). It is safe for concurrent use.
type quoter struct {
	syn   *lexical.Synonyms
	stop  *lexical.StopwordSet
	frame map[string]bool
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
	return &quoter{syn: syn, stop: lexical.DefaultStopwords(), frame: textutil.FrameSet(frameWords), units: c}
}

// defaultQuoter is the quoter of FormatContext: the default synonym table
// and frame words.
var defaultQuoter = newQuoter(lexical.DefaultSynonyms(), defaultFrameWords)

// question is a question prepared for quoting: its stemmed content words
// and the canonical terms it mentions. A nil *question quotes nothing.
type question struct {
	q     *quoter
	words []string
	// memo holds the passages found per record ("kind/id"): a turn
	// formats its hits several times (budget, audit, context).
	mu   sync.Mutex
	memo map[string]memoPassages
}

// memoPassages are a record's passages and citation.
type memoPassages struct {
	texts []string
	cite  string
}

// memoized returns the passages of key, computing them with find once.
func (qs *question) memoized(key string, find func() ([]string, string)) ([]string, string) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if m, ok := qs.memo[key]; ok {
		return m.texts, m.cite
	}
	texts, cite := find()
	if qs.memo == nil {
		qs.memo = map[string]memoPassages{}
	}
	qs.memo[key] = memoPassages{texts, cite}
	return texts, cite
}

// prepare returns text's question; nil when q is nil or text has no
// content word.
func (q *quoter) prepare(text string) *question {
	if q == nil {
		return nil
	}
	var words []string
	for _, w := range textutil.NormWords(text) {
		st := lexical.Stem(w)
		if utf8.RuneCountInString(w) < 3 || q.stop.Contains(w) || q.frame[w] || q.frame[st] || slices.Contains(words, st) {
			continue
		}
		words = append(words, st)
	}
	for _, m := range q.syn.Detect(text) {
		if t := synonymPrefix + m.Term; !slices.Contains(words, t) {
			words = append(words, t)
		}
	}
	if len(words) == 0 {
		return nil
	}
	return &question{q: q, words: words}
}

// unitsOf returns the units of a record (kind/id, updated at updated),
// from the cache or built by build; the caller may set their Score, not
// their Words. Records without an UpdatedAt are not cached.
func (q *quoter) unitsOf(key string, updated time.Time, build func(add func(text string, sec int, heading map[string]bool))) []passage.Unit {
	if !updated.IsZero() {
		if e, ok := q.units.Get(key); ok && e.updated.Equal(updated) {
			return slices.Clone(e.units)
		}
	}
	var units []passage.Unit
	build(func(text string, sec int, heading map[string]bool) {
		for _, t := range passage.LineUnits(text, wholeLine) {
			words := passage.StemSet(t)
			for _, m := range q.syn.Detect(t) {
				words[synonymPrefix+m.Term] = true
			}
			units = append(units, passage.Unit{Text: t, Section: sec, Words: words, Heading: heading})
		}
	})
	if !updated.IsZero() {
		q.units.Add(key, unitsEntry{updated: updated, units: units})
	}
	return slices.Clone(units)
}

// wordsWithout are the question's words without those of name (a
// record's name or title: every unit of the record is about it); none
// when the question names nothing else, and the record then keeps its
// snippet.
func (qs *question) wordsWithout(name string) []string {
	skip := passage.StemSet(name)
	for _, m := range qs.q.syn.Detect(name) {
		skip[synonymPrefix+m.Term] = true
	}
	return slices.DeleteFunc(slices.Clone(qs.words), func(w string) bool { return skip[w] })
}

// best scores units with words and returns the texts of the best
// (bestScored).
func best(units []passage.Unit, words []string) []string {
	passage.ScoreUnits(units, words)
	return bestScored(units)
}

// bestScored returns the texts of the best scored units, best first (ties
// in text order): at most maxPassages, each scoring at least half the
// best, each cut to passageChars. None when no unit holds a question
// word.
func bestScored(units []passage.Unit) []string {
	idx := make([]int, 0, len(units))
	for i := range units {
		if units[i].Score > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case units[a].Score > units[b].Score:
			return -1
		case units[a].Score < units[b].Score:
			return 1
		}
		return 0
	})
	top := units[idx[0]].Score
	var out []string
	for _, i := range idx {
		if len(out) == maxPassages || units[i].Score < top/2 {
			break
		}
		if t := textutil.TruncateRunes(textutil.OneLine(units[i].Text), passageChars); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// itemPassages are the passages of an item that answer the question: from
// its description, its metadata ("Ingrediente ativo: azoxistrobina 250
// g/L") and its files (leaflet rows, sentences).
func (qs *question) itemPassages(it *storage.CatalogItem) []string {
	if qs == nil {
		return nil
	}
	texts, _ := qs.memoized("item/"+it.ID, func() ([]string, string) { return qs.findItemPassages(it), "" })
	return texts
}

func (qs *question) findItemPassages(it *storage.CatalogItem) []string {
	units := qs.q.unitsOf("item/"+it.ID, it.UpdatedAt, func(add func(string, int, map[string]bool)) {
		add(it.Description, 0, nil)
		keys := make([]string, 0, len(it.Metadata))
		for k := range it.Metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if v := strings.TrimSpace(it.Metadata[k]); v != "" {
				add(metadataLabel(k)+": "+textutil.OneLine(v), 1, nil)
			}
		}
		for i, f := range it.Files {
			add(f.Text, 2+i, nil)
		}
	})
	return best(units, qs.wordsWithout(it.Name))
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

// faqAnswer is the part of a FAQ's answer the context carries: the whole
// answer when short, else its sentences that answer the question (at most
// maxPassages, in text order), else its start.
func (qs *question) faqAnswer(f *storage.FAQ) string {
	answer := textutil.OneLine(textutil.StripMarkdown(f.Answer))
	if qs == nil || utf8.RuneCountInString(answer) <= shortFAQAnswer {
		return textutil.TruncateRunes(answer, contextAnswerChars)
	}
	_, text := qs.memoized("faq/"+f.ID, func() ([]string, string) { return nil, qs.findFAQAnswer(f, answer) })
	return text
}

func (qs *question) findFAQAnswer(f *storage.FAQ, answer string) string {
	units := qs.q.unitsOf("faq/"+f.ID, f.UpdatedAt, func(add func(string, int, map[string]bool)) { add(f.Answer, 0, nil) })
	passage.ScoreUnits(units, qs.wordsWithout(f.Question))
	picked, ok := passage.PickUnits(units, maxPassages, 0)
	if !ok {
		return textutil.TruncateRunes(answer, contextAnswerChars)
	}
	texts := make([]string, len(picked))
	for i, u := range picked {
		texts[i] = textutil.TruncateRunes(u.Text, passageChars)
	}
	return passage.JoinPassages(texts)
}

// documentPassages are the passages of a document hit that answer the
// question, from any of its sections; a unit of the section of the hit's
// best chunk counts one more. cite is the section of the best passage
// ("Title › Section"), or the hit's citation.
func (qs *question) documentPassages(h *Hit[storage.Document]) (texts []string, cite string) {
	cite = DocumentCitation(h)
	if qs == nil {
		return nil, cite
	}
	return qs.memoized("doc/"+h.ID+"/"+cite, func() ([]string, string) { return qs.findDocumentPassages(h, cite) })
}

func (qs *question) findDocumentPassages(h *Hit[storage.Document], cite string) (texts []string, _ string) {
	heading := ""
	if h.Vector != nil {
		heading = strings.Join(h.Vector.HeadingPath, chunk.HeadingSeparator)
	}
	secs := passage.MarkdownSections(h.Record.Content)
	units := qs.q.unitsOf("doc/"+h.ID, h.Record.UpdatedAt, func(add func(string, int, map[string]bool)) {
		for i, s := range secs {
			var head map[string]bool
			if len(s.Path) > 1 {
				head = passage.StemSet(s.Path[len(s.Path)-1])
			}
			add(s.Text, i, head)
		}
	})
	words := qs.wordsWithout(h.Record.Title)
	passage.ScoreUnits(units, words)
	for i := range units {
		if p := secs[units[i].Section].Heading(); units[i].Score > 0 && heading != "" && p != "" && strings.HasSuffix(heading, p) {
			units[i].Score++
		}
	}
	texts = bestScored(units)
	if len(texts) == 0 {
		return nil, cite
	}
	for _, u := range units {
		if textutil.TruncateRunes(textutil.OneLine(u.Text), passageChars) == texts[0] {
			if p := secs[u.Section].Heading(); p != "" {
				cite = p
				if h.Record.Title != "" && !strings.HasPrefix(p, h.Record.Title) {
					cite = h.Record.Title + chunk.HeadingSeparator + p
				}
			}
			break
		}
	}
	return texts, cite
}
