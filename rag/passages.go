package rag

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
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
// the best unit's score. Each keeps its source span, so a citation quotes
// the record exactly (Quote).

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
// line, each cut to passageChars.
func (p picks) texts() []string {
	out := make([]string, 0, len(p.units))
	for _, u := range p.units {
		if t := textutil.TruncateRunes(textutil.OneLine(u.Text), passageChars); !slices.Contains(out, t) {
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

// unitAdder adds the units of text, a part of the record's field source
// starting at byte base, to section sec (heading path path, whose last
// heading's stemmed words are heading).
type unitAdder func(text string, sec int, path string, heading map[string]bool, source string, base int)

// wholeAdder adds text as one unit of section sec standing for
// source[start:end].
type wholeAdder func(text string, sec int, source string, start, end int)

// unitsOf returns the units of a record (kind/id, updated at updated),
// from the cache or built by build; the caller may set their Score, not
// their Words. Records without an UpdatedAt are not cached.
func (q *quoter) unitsOf(key string, updated time.Time, build func(add unitAdder, whole wholeAdder)) []passage.Unit {
	if !updated.IsZero() {
		if e, ok := q.units.Get(key); ok && e.updated.Equal(updated) {
			return slices.Clone(e.units)
		}
	}
	var units []passage.Unit
	whole := func(text string, sec int, source string, start, end int) {
		words := passage.StemSet(text)
		for _, m := range q.syn.Detect(text) {
			words[synonymPrefix+m.Term] = true
		}
		units = append(units, passage.Unit{Text: text, Section: sec, Words: words, Source: source, Start: start, End: end})
	}
	add := func(text string, sec int, path string, heading map[string]bool, source string, base int) {
		for _, sp := range passage.LineUnitSpans(text, wholeLine) {
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
func (qs *question) wordsWithout(name string) []string {
	skip := passage.StemSet(name)
	for _, m := range qs.q.syn.Detect(name) {
		skip[synonymPrefix+m.Term] = true
	}
	return slices.DeleteFunc(slices.Clone(qs.words), func(w string) bool { return skip[w] })
}

// best returns the best scored units, best first (ties in text order): at
// most maxPassages, each scoring at least half the best. None when no unit
// holds a question word.
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
	for _, i := range idx {
		if len(out) == maxPassages || units[i].Score < top/2 {
			break
		}
		out = append(out, units[i])
	}
	return out
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
	return q.unitsOf("item/"+it.ID, it.UpdatedAt, func(add unitAdder, whole wholeAdder) {
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
// first; none when no unit holds a question word other than the item's
// name.
func (qs *question) itemPicks(it *storage.CatalogItem) picks {
	return qs.memoized("item/"+it.ID, func() picks {
		units := qs.q.itemUnits(it)
		passage.ScoreUnits(units, qs.wordsWithout(it.Name))
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
	return q.unitsOf("faq/"+f.ID, f.UpdatedAt, func(add unitAdder, _ wholeAdder) {
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
		passage.ScoreUnits(units, qs.wordsWithout(f.Question))
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
	return q.unitsOf("doc/"+d.ID, d.UpdatedAt, func(add unitAdder, _ wholeAdder) {
		from := 0
		for i, s := range passage.MarkdownSections(d.Content) {
			var head map[string]bool
			if len(s.Path) > 1 {
				head = passage.StemSet(s.Path[len(s.Path)-1])
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
// question, from any of its sections; a unit of the section of the hit's
// best chunk counts one more. The citation is the section of the best
// ("Title › Section"), or the hit's.
func (qs *question) documentPicks(h *Hit[storage.Document]) picks {
	cite := DocumentCitation(h)
	return qs.memoized("doc/"+h.ID+"/"+cite, func() picks {
		heading := chunkHeading(h)
		units := qs.q.documentUnits(&h.Record)
		passage.ScoreUnits(units, qs.wordsWithout(h.Record.Title))
		for i := range units {
			if units[i].Score > 0 && inSection(&units[i], heading) {
				units[i].Score++
			}
		}
		picked := best(units)
		if len(picked) == 0 {
			return picks{cite: cite}
		}
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
