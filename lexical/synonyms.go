package lexical

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/hybridrag/hybridrag/internal/morph"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Category groups canonical terms by the role they play in scoring. The
// two paired categories are generic: a subject is what a record is for
// or about, a class what kind of record it is, and a record holding both
// of those a query names is its answer. The agronomy preset
// ([DefaultSynonyms]) fills them with crops and product classes ("uva" →
// "fungicida"); an electronics store would list devices and accessory
// kinds ("iphone 15" → "capa"), a law office areas of law and document
// kinds ("trabalhista" → "recurso").
type Category string

// The synonym categories, which say what a [Scorer] does with a match.
const (
	// CategorySubject holds what records are for or about (the agronomy
	// preset's crops: "uva", "café"): a query subject found in a record
	// earns the Subject bonus, and the Pair bonus with a class.
	CategorySubject Category = "subject"
	// CategoryClass holds kinds of record, reached from the need a user
	// names (the agronomy preset's product classes: "fungicida" from
	// "míldio", "herbicida" from "mato").
	CategoryClass Category = "class"
	// CategoryGeneric holds everything else worth expanding ("adubo" →
	// "fertilizante"); it adds query terms but no bonus.
	CategoryGeneric Category = "generic"
	// CategoryAlias holds translations and everyday names: words of
	// another language, or the customers' name for a thing, that stand
	// for the canonical term as if the query had said it ("stink bug" →
	// "percevejo", "delivery" → "entrega", "bomba costal" → "pulverizador
	// costal"). Only the variants are
	// matched — the canonical term mentions nothing, so a query in the
	// table's own language is as without the entry; like generic terms,
	// aliases add query terms but no bonus. A canonical phrase is searched
	// as written and hyphenated ("ferrugem asiática" and
	// "ferrugem-asiática"), as records write disease names either way.
	CategoryAlias Category = "alias"
)

var categories = [...]Category{CategorySubject, CategoryClass, CategoryGeneric, CategoryAlias}

func (c Category) rank() int {
	for i, k := range categories {
		if k == c {
			return i
		}
	}
	return -1
}

// SynonymEntry is one canonical term of a [Synonyms] table with the
// variants that stand for it. It is the programmatic form of one key of
// the JSON schema (see [LoadSynonyms]).
type SynonymEntry struct {
	// Category is the entry's category.
	Category Category `json:"category"`
	// Canonical is the term variants map to, as it should be displayed
	// ("café"); it is matched in [Normalize] form ("cafe").
	Canonical string `json:"canonical"`
	// Variants are the words and phrases that stand for Canonical
	// ("cafeeiro", "cafezal", "pé de café").
	Variants []string `json:"variants,omitempty"`
	// Within are broader terms a record may name instead of a subject or
	// a class — groups it belongs to ("hortaliças" for "repolho", "todas
	// as culturas" for every crop, "defensivo" for "fungicida"): a record
	// naming the group holds the term indirectly (see [Synonyms.Within]).
	// Only subjects and classes have them.
	Within []string `json:"within,omitempty"`
}

// Mention is a canonical term found in a text through itself or one of its
// variants.
type Mention struct {
	// Category is the category of the canonical term.
	Category Category `json:"category"`
	// Canonical is the canonical term as written in the table ("café").
	Canonical string `json:"canonical"`
	// Term is Canonical in Normalize form ("cafe"): the term a query is
	// expanded with.
	Term string `json:"term"`
	// Text is the normalized text that matched ("cafezais").
	Text string `json:"text"`
	// Translation reports an English word read through the English table
	// of [DefaultSynonyms] (an alias of its Portuguese translation), not
	// through a term or variant of the table itself.
	Translation bool `json:"translation,omitempty"`
}

// Synonyms is an immutable synonym table: canonical terms per
// [Category], each with its variants. Matching is done on normalized,
// stemmed words (see [Stem]), so a variant also matches its plural and
// gender forms and the same words with other accents, case, spacing or
// hyphens: "pulgão" matches "Pulgões", "erva daninha" matches "ervas
// daninhas", "cana de açúcar" matches "cana-de-açúcar". Multi-word variants
// match consecutive words; the longest variant wins at each position.
//
// A variant (after normalization and stemming) belongs to at most one
// canonical term per category; it may appear in several categories.
//
// [DefaultSynonyms] also reads common English words through an English
// table of its own (see there), which [Synonyms.Merge] keeps.
//
// The zero value and nil are empty tables. A Synonyms is never modified
// after construction and is safe for concurrent use; [Synonyms.Merge]
// returns a new table.
type Synonyms struct {
	entries []synEntry
	// index maps the first word of every phrase to the phrases starting
	// with it, longest first.
	index map[string][]phraseRef
	// english, when set, holds translations of common English words
	// that Detect reads only in English text (englishText): the preset's
	// table of synonyms_en.tsv.gz. It is no entry of the table (Entries,
	// MarshalJSON); Merge keeps the last one set.
	english *englishTable
}

type synEntry struct {
	cat       Category
	canonical string
	term      string
	variants  []string
	// within are the groups of a subject, as written and normalized.
	within, withinNorm []string
	// phrases[0] is the canonical term itself.
	phrases []phrase
}

type phrase struct {
	words []string // stemmed, normalized words
	key   string   // words joined by one space
}

type phraseRef struct {
	entry, phrase int
}

//go:embed synonyms_ptbr.json
var defaultSynonymsJSON []byte

// synonyms_en.tsv.gz: English words and their Portuguese translations,
// "english<TAB>pt1[,pt2…]" one a line; built by lexicon/gentrans (see its
// doc for the sources).
//
//go:embed synonyms_en.tsv.gz
var englishSynonymsData []byte

var defaultSynonyms = sync.OnceValues(func() (*Synonyms, error) {
	own, err := parseSynonyms(defaultSynonymsJSON)
	if err != nil {
		return nil, err
	}
	if own.english, err = englishAliases(englishSynonymsData); err != nil {
		return nil, err
	}
	return own, nil
})

// englishTable maps common English words (Normalize form, matched as
// whole words, unstemmed: "leave" and "leaves" are two words) to their
// Portuguese translation.
type englishTable struct {
	words map[string]translation
}

// translation is an English word's Portuguese term, as written and in
// Normalize form.
type translation struct {
	canonical, term string
}

// englishAliases reads the English translation table: each English word
// stands for its first translation; of two lines for one word the first
// counts.
func englishAliases(data []byte) (*englishTable, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: English table: %w", ErrInvalidSynonyms, err)
	}
	t := &englishTable{words: map[string]translation{}}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		en, tr, ok := strings.Cut(sc.Text(), "\t")
		pt, _, _ := strings.Cut(tr, ",")
		en, term := Normalize(en), Normalize(pt)
		if _, dup := t.words[en]; !ok || en == "" || term == "" || dup {
			continue
		}
		t.words[en] = translation{canonical: strings.TrimSpace(pt), term: term}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: English table: %w", ErrInvalidSynonyms, err)
	}
	return t, nil
}

// DefaultSynonyms returns the agronomy preset, the embedded pt-BR table:
// as subjects, about fifty crops with their everyday names (videira → uva,
// cafezal → café, canavial → cana-de-açúcar, laranja → citros, pasto →
// pastagem, ...), as classes, the pesticide classes reached from the
// problem a grower names (míldio, ferrugem → fungicida; mato, erva daninha, capim → herbicida; lagarta,
// percevejo, pulgão → inseticida; ácaro → acaricida; nematoide →
// nematicida; cupim → cupinicida; formiga → formicida; lesma →
// moluscicida; bactéria → bactericida) and generic terms (adubo, nutrição
// foliar → fertilizante; calcário → corretivo; espalhante → adjuvante),
// the English names of all of them (soybean, stink bug, weed killer,
// fertilizer), English aliases of the pests, diseases and weeds as the
// leaflets name them and of the store's everyday words (stink bug →
// percevejo, backpack sprayer → pulverizador costal, delivery → entrega,
// refund → reembolso), the customers' names of equipment (bomba costal →
// pulverizador costal, roupa de proteção → EPI), crop groups a record may
// name instead of a crop (hortaliças, frutíferas, cereais, todas as
// culturas) and the groups of the pesticide classes (defensivo, agrotóxico,
// agroquímico, pesticida).
// English questions are read through a second, embedded table
// (synonyms_en.tsv.gz, built by lexicon/gentrans): about 6,000 common
// English content words, each standing for the Portuguese word a
// farm-input store's customer most likely means by it ("money" →
// "dinheiro", "gloves" → "luva", "bag" → "saco", "spot" → "mancha"),
// which [Synonyms.Detect] consults only in English text — at least as
// many English function words as Portuguese ones, and some ("do you sell
// gloves?"), or, with none of either and no crop or product class named,
// mostly the table's own words ("power tools") — and only for the words the Portuguese table leaves,
// each matched as a whole word and reported once per term, with
// [Mention.Translation] set. So a Portuguese question naming a product in
// English words ("qual a dose do Power Max?") reads as before. The table
// holds no word a Portuguese dictionary form spells, no function word of
// either language (lexicon.DefaultFrequencies: "get", "back", "long") and
// nothing the Portuguese table holds; it is no entry of the table
// ([Synonyms.Entries]) and follows it through [Synonyms.Merge], but not
// through JSON (MarshalJSON, LoadSynonyms); NewSynonyms(DefaultSynonyms().
// Entries()) is the preset without it. Word by word it cannot read idioms
// ("money back", "pick up") or Portuguese ambiguities ("insurance" →
// "seguro", also "safe").
// The same table is returned on every call. The source is
// synonyms_ptbr.json in this package; start from it, or Merge a table of
// your own over it.
func DefaultSynonyms() *Synonyms {
	s, err := defaultSynonyms()
	if err != nil {
		// The embedded table is validated by the package tests; an
		// empty table is the only safe answer if it were ever broken.
		return &Synonyms{}
	}
	return s
}

// synonymsJSON is the JSON schema of a synonym table.
type synonymsJSON struct {
	Subject map[string][]string `json:"subject,omitempty"`
	Class   map[string][]string `json:"class,omitempty"`
	Generic map[string][]string `json:"generic,omitempty"`
	Alias   map[string][]string `json:"alias,omitempty"`
	Groups  map[string][]string `json:"groups,omitempty"`
}

// allSubjects is the member of a group that stands for every subject of
// the table.
const allSubjects = "*"

// parseSynonyms parses a synonym table from JSON (see LoadSynonyms).
func parseSynonyms(data []byte) (*Synonyms, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var raw synonymsJSON
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSynonyms, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the JSON object", ErrInvalidSynonyms)
	}
	var entries []SynonymEntry
	for _, c := range []struct {
		cat Category
		m   map[string][]string
	}{{CategorySubject, raw.Subject}, {CategoryClass, raw.Class}, {CategoryGeneric, raw.Generic}, {CategoryAlias, raw.Alias}} {
		for _, canonical := range slices.Sorted(maps.Keys(c.m)) {
			entries = append(entries, SynonymEntry{Category: c.cat, Canonical: canonical, Variants: c.m[canonical]})
		}
	}
	for _, group := range slices.Sorted(maps.Keys(raw.Groups)) {
		for _, member := range raw.Groups[group] {
			found := false
			for i := range entries {
				e := &entries[i]
				if e.Category == CategorySubject && (member == allSubjects || Normalize(e.Canonical) == Normalize(member)) ||
					e.Category == CategoryClass && Normalize(e.Canonical) == Normalize(member) {
					e.Within = append(e.Within, group)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("%w: groups: %q of %q is no subject or class of the table", ErrInvalidSynonyms, member, group)
			}
		}
	}
	return NewSynonyms(entries)
}

// LoadSynonyms reads a synonym table in JSON from r. The schema is one object
// with up to four keys, one per [Category]; each maps a canonical term to
// the list of its variants:
//
//	{
//	  "subject": {"uva": ["videira", "parreira"], "café": ["cafeeiro", "cafezal"]},
//	  "class":   {"fungicida": ["fungo", "doença fúngica", "míldio"]},
//	  "generic": {"fertilizante": ["adubo", "nutrição foliar"]},
//	  "alias":   {"percevejo": ["stink bug"], "entrega": ["delivery"]},
//	  "groups":  {"frutíferas": ["uva", "café"], "todas as culturas": ["*"], "defensivo": ["fungicida"]}
//	}
//
// "groups" maps a group a record may name to the subjects or classes it
// stands for ("*": every subject of this table, not those a later
// [Synonyms.Merge] adds); each member gets the group in its
// [SynonymEntry.Within], which Merge unites. A member that is no subject
// or class of the table is an error.
//
// Terms may carry accents, capitals and several words; they are matched in
// [Normalize] form, word by word, stemmed. Unknown keys, an empty term and
// a variant claimed by two canonical terms of one category are errors
// wrapping [ErrInvalidSynonyms]. Two canonical spellings that normalize to
// the same term ("café", "cafe") are one entry.
func LoadSynonyms(r io.Reader) (*Synonyms, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("lexical: reading synonym table: %w", err)
	}
	return parseSynonyms(data)
}

// NewSynonyms builds a table from entries. Entries with the same category
// and canonical term are combined. It fails, wrapping
// [ErrInvalidSynonyms], on an unknown category, a term with no word in it,
// or a variant claimed by two canonical terms of one category.
func NewSynonyms(entries []SynonymEntry) (*Synonyms, error) {
	b := newSynBuilder()
	for _, e := range entries {
		if err := b.add(e, false); err != nil {
			return nil, err
		}
	}
	return b.build(), nil
}

// Merge returns a new table holding s and then each of others in order;
// s and others are not modified. Later tables extend and override
// earlier ones: the variants of a canonical term present in several
// tables are united, the later display form of a canonical term wins, and
// a variant that a later table gives to another canonical term of the same
// category moves there. When a later table lists an earlier canonical term
// as a variant of another, the earlier entry is folded into it with all
// its variants. Nil tables are skipped. The English table of
// [DefaultSynonyms] is kept (the last one of the tables merged).
func (s *Synonyms) Merge(others ...*Synonyms) *Synonyms {
	b := newSynBuilder()
	var english *englishTable
	for _, t := range append([]*Synonyms{s}, others...) {
		for _, e := range t.Entries() {
			// Entries of a built table are valid, so add cannot fail.
			_ = b.add(e, true)
		}
		if t != nil && t.english != nil {
			english = t.english
		}
	}
	out := b.build()
	out.english = english
	return out
}

// Entries returns the table's entries, ordered by category (subject,
// class, generic, alias) and then by normalized canonical term. The result is
// a copy.
func (s *Synonyms) Entries() []SynonymEntry {
	if s.size() == 0 {
		return nil
	}
	out := make([]SynonymEntry, len(s.entries))
	for i, e := range s.entries {
		out[i] = SynonymEntry{Category: e.cat, Canonical: e.canonical, Variants: slices.Clone(e.variants), Within: slices.Clone(e.within)}
	}
	return out
}

// size returns the number of canonical terms in the table.
func (s *Synonyms) size() int {
	if s == nil {
		return 0
	}
	return len(s.entries)
}

// canonicals returns the canonical terms of category c as written in the
// table, ordered by normalized term.
func (s *Synonyms) canonicals(c Category) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, e := range s.entries {
		if e.cat == c {
			out = append(out, e.canonical)
		}
	}
	return out
}

// MarshalJSON encodes the table in the schema [LoadSynonyms] reads.
func (s *Synonyms) MarshalJSON() ([]byte, error) {
	var raw synonymsJSON
	if s != nil {
		for _, e := range s.entries {
			var m *map[string][]string
			switch e.cat {
			case CategorySubject:
				m = &raw.Subject
			case CategoryClass:
				m = &raw.Class
			case CategoryAlias:
				m = &raw.Alias
			default:
				m = &raw.Generic
			}
			if *m == nil {
				*m = make(map[string][]string)
			}
			v := e.variants
			if v == nil {
				v = []string{}
			}
			(*m)[e.canonical] = v
			for _, g := range e.within {
				if raw.Groups == nil {
					raw.Groups = make(map[string][]string)
				}
				raw.Groups[g] = append(raw.Groups[g], e.canonical)
			}
		}
	}
	return json.Marshal(raw)
}

// lookup returns the canonical term (as written in the table) that text
// stands for in category c: text must be the canonical term or one of its
// variants as a whole, in any case, accent, number or gender form.
func (s *Synonyms) lookup(c Category, text string) (canonical string, ok bool) {
	if s == nil {
		return "", false
	}
	words := phraseWords(Normalize(text), nil)
	if len(words) == 0 {
		return "", false
	}
	key := strings.Join(words, " ")
	for _, ref := range s.index[words[0]] {
		e := &s.entries[ref.entry]
		if e.cat == c && e.phrases[ref.phrase].key == key {
			return e.canonical, true
		}
	}
	return "", false
}

// Detect returns the canonical terms mentioned in text, in the order they
// first appear, each once. At each word the longest matching phrase wins
// and its words are consumed, so "batata doce" is the crop "batata-doce",
// not "batata", and "ervas daninhas" is only "herbicida". A phrase that is
// a variant in several categories yields one mention per category. A
// diminutive the table knows only in its base form is read as the base
// ("lagartinha" as "lagarta", "mosquinha branca" as "mosca branca"; a
// Scorer then searches the base word too); a word that only looks like one
// ("vizinho") is not.
func (s *Synonyms) Detect(text string) []Mention {
	if s.size() == 0 && (s == nil || s.english == nil) {
		return nil
	}
	norm := Normalize(text)
	var spans []wordSpan
	var stems []string
	for i := 0; ; {
		start, end := nextWord(norm, i)
		if start < 0 {
			break
		}
		spans = append(spans, wordSpan{start, end})
		stems = append(stems, s.wordStem(norm[start:end]))
		i = end
	}
	var found []foundMention
	seen := make(map[*synEntry]bool)
	taken := make([]bool, len(stems))
	found = s.detectWords(found, norm, spans, stems, taken, seen)
	if s.english != nil && englishText(norm, spans, func(i int) bool { _, ok := s.english.lookup(norm[spans[i].start:spans[i].end]); return ok }, found) {
		// The English words the table itself leaves: "money" in "how long
		// until I get my money back?".
		n := len(found)
		found = s.english.detect(found, norm, spans, taken)
		if len(found) > n {
			slices.SortStableFunc(found, func(a, b foundMention) int { return a.at - b.at })
		}
	}
	if len(found) == 0 {
		return nil
	}
	out := make([]Mention, len(found))
	for i, f := range found {
		out[i] = f.Mention
	}
	return out
}

// foundMention is a mention and the index of its first word.
type foundMention struct {
	Mention
	at int
}

type wordSpan struct{ start, end int }

// detectWords appends to out the mentions of s's phrases in the words not
// taken (stems, their spans in norm), marking the words it takes.
func (s *Synonyms) detectWords(out []foundMention, norm string, spans []wordSpan, stems []string, taken []bool, seen map[*synEntry]bool) []foundMention {
	if s.size() == 0 {
		return out
	}
	for i := 0; i < len(stems); {
		// The longest phrase starting here wins; phrases of other
		// categories count only when they cover the same words.
		longest := 0
		for _, ref := range s.index[stems[i]] {
			p := s.entries[ref.entry].phrases[ref.phrase]
			if n := len(p.words); n > longest && n <= len(stems)-i && slices.Equal(p.words, stems[i:i+n]) && !slices.Contains(taken[i:i+n], true) {
				longest = n
			}
		}
		if longest == 0 {
			i++
			continue
		}
		var catDone [len(categories)]bool
		for _, ref := range s.index[stems[i]] {
			e := &s.entries[ref.entry]
			p := e.phrases[ref.phrase]
			r := e.cat.rank()
			if catDone[r] || len(p.words) != longest || !slices.Equal(p.words, stems[i:i+longest]) {
				continue
			}
			catDone[r] = true
			if !seen[e] {
				seen[e] = true
				out = append(out, foundMention{Mention{
					Category:  e.cat,
					Canonical: e.canonical,
					Term:      e.term,
					Text:      norm[spans[i].start:spans[i+longest-1].end],
				}, i})
			}
		}
		for j := i; j < i+longest; j++ {
			taken[j] = true
		}
		i += longest
	}
	return out
}

// lookup returns the translation of the English word w, or of its
// singular when the table lists only that ("bees" as "bee", "flies" as
// "fly", "boxes" as "box").
func (t *englishTable) lookup(w string) (translation, bool) {
	if tr, ok := t.words[w]; ok {
		return tr, true
	}
	if !strings.HasSuffix(w, "s") || len(w) < 4 {
		return translation{}, false
	}
	for _, s := range []string{strings.TrimSuffix(w, "ies") + "y", strings.TrimSuffix(w, "es"), w[:len(w)-1]} {
		if s != w {
			if tr, ok := t.words[s]; ok {
				return tr, true
			}
		}
	}
	return translation{}, false
}

// detect appends to found a translation for each word not taken that the
// table holds, but for a term found already ("conventional" after
// "non-GMO", both "convencional").
func (t *englishTable) detect(found []foundMention, norm string, spans []wordSpan, taken []bool) []foundMention {
	for i, sp := range spans {
		if taken[i] {
			continue
		}
		w := norm[sp.start:sp.end]
		tr, ok := t.lookup(w)
		if !ok || slices.ContainsFunc(found, func(f foundMention) bool { return f.Term == tr.term }) {
			continue
		}
		found = append(found, foundMention{Mention{Category: CategoryAlias, Canonical: tr.canonical, Term: tr.term, Text: w, Translation: true}, i})
	}
	return found
}

// englishText reports whether the words of norm (at spans) are English: at
// least as many of them are English function words as Portuguese ones,
// and some are (the words of stopwords_en.txt and stopwords_pt.txt that the
// other list lacks); or, holding no function word of either and no crop
// or product class of the table (among found), two or more and at least half of
// them are words of the English table (inTable: "serious illness
// exemption retirement"; not "Green Leaf fungicida"). "Do you sell
// gloves?" is English; "O que diz a Tese de Church-Turing?", "qual a dose
// do Power Max?" and a single word are not.
func englishText(norm string, spans []wordSpan, inTable func(i int) bool, found []foundMention) bool {
	en, pt := 0, 0
	lang := languageFunctionWords()
	for _, sp := range spans {
		switch lang[norm[sp.start:sp.end]] {
		case 1:
			en++
		case -1:
			pt++
		}
	}
	if en+pt > 0 {
		return en > 0 && en >= pt
	}
	if storeWords(found) {
		return false
	}
	table := 0
	for i := range spans {
		if inTable(i) {
			table++
		}
	}
	return table >= 2 && 2*table >= len(spans)
}

// storeWords reports whether found holds a subject or a class: a crop or
// a product class the store's table names.
func storeWords(found []foundMention) bool {
	return slices.ContainsFunc(found, func(f foundMention) bool {
		return f.Category == CategorySubject || f.Category == CategoryClass
	})
}

// languageFunctionWords maps the function words of one language only to
// 1 (English) or -1 (Portuguese).
var languageFunctionWords = sync.OnceValue(func() map[string]int8 {
	en, pt := NewStopwordSet(parseWordList(stopwordsEN)...), NewStopwordSet(parseWordList(stopwordsPT)...)
	m := make(map[string]int8, en.Len()+pt.Len())
	for w := range en.words {
		// "to" is also the Brazilian chat spelling of "tô" (estou):
		// "tô precisando de luva" is Portuguese.
		if !pt.Contains(w) && w != "to" {
			m[w] = 1
		}
	}
	for w := range pt.words {
		if !en.Contains(w) {
			m[w] = -1
		}
	}
	return m
})

// wordStem is the stem a word is looked up by: its own, else, for a
// diminutive the table knows only in its base form ("lagartinha",
// "mosquinha"), the base's.
func (s *Synonyms) wordStem(word string) string {
	st := Stem(word)
	if len(s.index[st]) > 0 {
		return st
	}
	for _, b := range morph.Undiminish(word) {
		if bs := Stem(b); len(s.index[bs]) > 0 {
			return bs
		}
	}
	return st
}

// undiminished returns the base forms of word the table knows (see
// wordStem); nil when word is known itself or is no such diminutive.
func (s *Synonyms) undiminished(word string) []string {
	if s.size() == 0 || len(s.index[Stem(word)]) > 0 {
		return nil
	}
	var out []string
	for _, b := range morph.Undiminish(word) {
		if len(s.index[Stem(b)]) > 0 {
			out = append(out, b)
		}
	}
	return out
}

// Expand returns tokens followed by the normalized canonical term of each
// term [Synonyms.Detect] finds in query that is not already among them,
// and the mentions that added a term (the synonyms used). tokens is not
// modified. Query "fungo na videira" with tokens [fungo videira] expands
// to [fungo videira fungicida uva].
func (s *Synonyms) Expand(query string, tokens []string) (terms []string, used []Mention) {
	terms = slices.Clone(tokens)
	for _, m := range s.Detect(query) {
		if !slices.Contains(terms, m.Term) {
			terms = append(terms, m.Term)
			used = append(used, m)
		}
	}
	return terms, used
}

// entry returns the entry of category c whose normalized canonical term is
// term, or nil.
func (s *Synonyms) entry(c Category, term string) *synEntry {
	if s == nil {
		return nil
	}
	for i := range s.entries {
		if e := &s.entries[i]; e.cat == c && e.term == term {
			return e
		}
	}
	return nil
}

// phraseWords appends to dst the stemmed words of the normalized text s.
func phraseWords(s string, dst []string) []string {
	for i := 0; ; {
		start, end := nextWord(s, i)
		if start < 0 {
			return dst
		}
		dst = append(dst, Stem(s[start:end]))
		i = end
	}
}

// phraseKey is the identity of a term inside a category: its stemmed,
// normalized words joined by one space ("" when it has no word).
func phraseKey(text string) string {
	return strings.Join(phraseWords(Normalize(text), nil), " ")
}

// synBuilder assembles tables; it keeps the invariant that a phrase key
// belongs to one canonical term per category.
type synBuilder struct {
	entries map[catKey]*buildEntry // by (category, term)
	owner   map[catKey]*buildEntry // by (category, phrase key)
}

type catKey struct {
	cat Category
	s   string
}

type buildEntry struct {
	cat       Category
	canonical string
	term      string
	key       string
	variants  []buildVariant
	within    []string
}

type buildVariant struct {
	text, key string
}

func newSynBuilder() *synBuilder {
	return &synBuilder{entries: make(map[catKey]*buildEntry), owner: make(map[catKey]*buildEntry)}
}

// add inserts e. With override, a key owned by another canonical term
// moves to e's term; without it, that is an error.
func (b *synBuilder) add(e SynonymEntry, override bool) error {
	if e.Category.rank() < 0 {
		return fmt.Errorf("%w: unknown category %q (want subject, class, generic or alias)", ErrInvalidSynonyms, e.Category)
	}
	term := Normalize(e.Canonical)
	key := phraseKey(term)
	if key == "" {
		return fmt.Errorf("%w: %s: canonical term %q has no word", ErrInvalidSynonyms, e.Category, e.Canonical)
	}
	ent := b.entries[catKey{e.Category, term}]
	if ent == nil {
		ent = &buildEntry{cat: e.Category, canonical: e.Canonical, term: term, key: key}
		if err := b.claim(ent, key, e.Canonical, override); err != nil {
			return err
		}
		b.entries[catKey{e.Category, term}] = ent
	} else if override {
		ent.canonical = e.Canonical
	}
	if len(e.Within) > 0 && e.Category != CategorySubject && e.Category != CategoryClass {
		return fmt.Errorf("%w: %s: %q has groups; only subjects and classes do", ErrInvalidSynonyms, e.Category, e.Canonical)
	}
	for _, g := range e.Within {
		if phraseKey(g) == "" {
			return fmt.Errorf("%w: %s: group %q of %q has no word", ErrInvalidSynonyms, e.Category, g, e.Canonical)
		}
		if !slices.ContainsFunc(ent.within, func(w string) bool { return Normalize(w) == Normalize(g) }) {
			ent.within = append(ent.within, g)
		}
	}
	for _, v := range e.Variants {
		vk := phraseKey(v)
		if vk == "" {
			return fmt.Errorf("%w: %s: variant %q of %q has no word", ErrInvalidSynonyms, e.Category, v, e.Canonical)
		}
		if vk == ent.key || b.owner[catKey{e.Category, vk}] == ent {
			continue
		}
		if err := b.claim(ent, vk, v, override); err != nil {
			return err
		}
		ent.variants = append(ent.variants, buildVariant{text: v, key: vk})
	}
	return nil
}

// claim makes ent the owner of key, taking it from its previous owner when
// override is set.
func (b *synBuilder) claim(ent *buildEntry, key, text string, override bool) error {
	ck := catKey{ent.cat, key}
	prev := b.owner[ck]
	if prev != nil && prev != ent {
		if !override {
			return fmt.Errorf("%w: %s: %q of %q is already a variant of %q", ErrInvalidSynonyms, ent.cat, text, ent.canonical, prev.canonical)
		}
		if key == prev.key {
			b.fold(prev, ent)
		} else {
			prev.variants = slices.DeleteFunc(prev.variants, func(v buildVariant) bool { return v.key == key })
		}
	}
	b.owner[ck] = ent
	return nil
}

// fold moves every phrase of from into into and deletes from.
func (b *synBuilder) fold(from, into *buildEntry) {
	delete(b.entries, catKey{from.cat, from.term})
	for _, g := range from.within {
		if !slices.Contains(into.within, g) {
			into.within = append(into.within, g)
		}
	}
	for _, v := range append([]buildVariant{{text: from.canonical, key: from.key}}, from.variants...) {
		if v.key == into.key {
			continue
		}
		b.owner[catKey{into.cat, v.key}] = into
		if !slices.ContainsFunc(into.variants, func(w buildVariant) bool { return w.key == v.key }) {
			into.variants = append(into.variants, v)
		}
	}
}

func (b *synBuilder) build() *Synonyms {
	list := make([]*buildEntry, 0, len(b.entries))
	for _, e := range b.entries {
		list = append(list, e)
	}
	slices.SortFunc(list, func(x, y *buildEntry) int {
		if d := x.cat.rank() - y.cat.rank(); d != 0 {
			return d
		}
		return strings.Compare(x.term, y.term)
	})
	s := &Synonyms{entries: make([]synEntry, len(list)), index: make(map[string][]phraseRef)}
	for i, be := range list {
		e := synEntry{cat: be.cat, canonical: be.canonical, term: be.term, within: slices.Clone(be.within)}
		for _, g := range be.within {
			e.withinNorm = append(e.withinNorm, Normalize(g))
		}
		e.phrases = append(e.phrases, newPhrase(be.term))
		for _, v := range be.variants {
			e.variants = append(e.variants, v.text)
			e.phrases = append(e.phrases, newPhrase(Normalize(v.text)))
		}
		s.entries[i] = e
		for j, p := range e.phrases {
			if j == 0 && e.cat == CategoryAlias {
				continue // an alias's canonical term mentions nothing
			}
			s.index[p.words[0]] = append(s.index[p.words[0]], phraseRef{entry: i, phrase: j})
		}
	}
	for first, refs := range s.index {
		slices.SortStableFunc(refs, func(x, y phraseRef) int {
			return len(s.entries[y.entry].phrases[y.phrase].words) - len(s.entries[x.entry].phrases[x.phrase].words)
		})
		s.index[first] = refs
	}
	return s
}

func newPhrase(norm string) phrase {
	words := phraseWords(norm, nil)
	return phrase{words: words, key: strings.Join(words, " ")}
}

// Within returns the groups a record may name instead of the subject or
// class whose normalized canonical term is term (a [Mention]'s Term), in
// [Normalize] form; nil when term is neither or has none (when a term is
// both, the subject's groups, else the class's). The result is a copy: a
// table is shared (DefaultSynonyms) and immutable.
func (s *Synonyms) Within(term string) []string {
	if s == nil {
		return nil
	}
	for _, cat := range []Category{CategorySubject, CategoryClass} {
		i, ok := slices.BinarySearchFunc(s.entries, term, func(e synEntry, t string) int {
			if d := e.cat.rank() - cat.rank(); d != 0 {
				return d
			}
			return strings.Compare(e.term, t)
		})
		if ok && len(s.entries[i].withinNorm) > 0 {
			return slices.Clone(s.entries[i].withinNorm)
		}
	}
	return nil
}
