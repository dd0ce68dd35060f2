// Package passage splits records' text into the units an answer quotes
// (sentences, list items with their opening sentence, table rows with their
// header) and scores them against a question. The offline answerer quotes
// them and the Pipeline's context carries them, so a model reads the
// passages the extractive answer would state.
package passage

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/chunk"
)

// sentenceAbbreviations are words whose final period does not end a
// sentence ("Xanthomonas spp. e", "cv. Marandu").
var sentenceAbbreviations = []string{"sp", "spp", "subsp", "cv", "var", "ex", "aprox", "obs", "p", "pg", "pag", "n", "no", "sr", "sra", "dr", "dra", "vs", "e.g", "i.e"}

// SplitSentences splits text into sentences, trimmed: at line breaks, and
// after ".", "!" or "?" followed by a space and then an upper-case letter,
// a digit or an opening quote or parenthesis. An abbreviation
// ("Xanthomonas spp.", "cv. Marandu") or a lone initial ("C. sumatrensis")
// does not end a sentence, nor does a decimal point ("7.4"). Markdown is
// kept; see textutil.StripMarkdown.
func SplitSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		rs := []rune(strings.TrimSpace(line))
		start := 0
		for i := 0; i < len(rs)-2; i++ {
			if (rs[i] != '.' && rs[i] != '!' && rs[i] != '?') || rs[i+1] != ' ' {
				continue
			}
			next := rs[i+2]
			if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune("\"'“«(¿¡", next) {
				continue
			}
			if rs[i] == '.' && isAbbreviation(rs[start:i]) {
				continue
			}
			if s := strings.TrimSpace(string(rs[start : i+1])); s != "" {
				out = append(out, s)
			}
			start = i + 2
		}
		if s := strings.TrimSpace(string(rs[start:])); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// isAbbreviation reports whether the word ending s (before a period) is an
// abbreviation or a lone initial.
func isAbbreviation(s []rune) bool {
	i := len(s)
	for i > 0 && (unicode.IsLetter(s[i-1]) || s[i-1] == '.') {
		i--
	}
	w := string(s[i:])
	if utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(w)[0]) {
		return true
	}
	return slices.Contains(sentenceAbbreviations, lexical.Normalize(w))
}

// Section is the part of a Markdown document under one heading.
type Section struct {
	// Path is the heading path, outermost first: ["Política de trocas,
	// devoluções e entregas", "Entregas", "Prazos"]; empty for text before
	// the first heading.
	Path []string
	// Text is the section's own text, up to the next heading, Markdown
	// kept and trimmed.
	Text string
}

// Heading is the section's path joined with chunk.HeadingSeparator, as in
// a chunk's heading_path metadata.
func (s Section) Heading() string {
	return strings.Join(s.Path, chunk.HeadingSeparator)
}

// MarkdownSections splits Markdown content at its ATX headings ("#" to
// "######" and a space), outside fenced code blocks. Sections without text
// are kept, so every heading has its section; content without headings is
// one section with an empty path.
func MarkdownSections(content string) []Section {
	var out []Section
	var path []string
	var levels []int
	var b strings.Builder
	fenced := false
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" || len(path) > 0 {
			out = append(out, Section{Path: slices.Clone(path), Text: t})
		}
		b.Reset()
	}
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
		}
		if level, title, ok := atxHeading(t); ok && !fenced {
			flush()
			for len(levels) > 0 && levels[len(levels)-1] >= level {
				levels, path = levels[:len(levels)-1], path[:len(path)-1]
			}
			levels, path = append(levels, level), append(path, title)
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	flush()
	return out
}

// atxHeading parses "## Title" (closing #s dropped).
func atxHeading(line string) (level int, title string, ok bool) {
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(line) && line[level] != ' ' {
		return 0, "", false
	}
	title = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
	return level, textutil.StripMarkdown(title), title != ""
}

// maxListUnit bounds a list quoted whole with its opening sentence.
const maxListUnit = 320

// Units are the units of a section's text for quoting (see LineUnits):
// every prose line is split into sentences.
func Units(text string) []string { return LineUnits(text, 0) }

// LineUnits are the units of a section's text for quoting: sentences of
// its prose with Markdown stripped, a sentence opening a list ("…: ") with
// the list's items, and each row of a Markdown table as "Header: cell;
// Header: cell".
//
// A prose line of at most wholeLine runes is one unit (a leaflet's "Na
// cultura do tomate, controla … Dose: 3,0 kg/ha; intervalo de segurança: 7
// dias." keeps its crop with its dose); longer lines, or every line when
// wholeLine is 0, are split into sentences.
func LineUnits(text string, wholeLine int) []string {
	spans := lineUnits(text, wholeLine, false, false)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = sp.Text
	}
	return out
}

// Span is a unit with where it comes from: text[Start:End] is the source
// the unit was written from (the raw line of a table row, the lines of a
// list, the sentence within its line, or the whole line when the sentence
// cannot be found in it as written).
type Span struct {
	Text       string
	Start, End int
}

// LineUnitSpans is LineUnits with each unit's byte span in text.
func LineUnitSpans(text string, wholeLine int) []Span { return lineUnits(text, wholeLine, true, false) }

// ItemUnitSpans is LineUnitSpans with every item of a list its own unit,
// written after the list's opening sentence ("Culturas, alvos e doses:
// Soja: ferrugem-asiática. Dose: 500 mL/ha.") and spanning the item's
// line: a leaflet's list of crops is read row by row, as its tables are.
func ItemUnitSpans(text string, wholeLine int) []Span { return lineUnits(text, wholeLine, true, true) }

// lineUnits is LineUnitSpans; without locate, a sentence's span is its
// whole line (finding it costs a search). With items, list items are
// units of their own (ItemUnitSpans).
func lineUnits(text string, wholeLine int, locate, items bool) []Span {
	var out []Span
	var header []string
	// opening is the sentence opening the current list, for items.
	opening := ""
	list := false // the last unit opens a list ("…: ") or holds its items
	for off := 0; off <= len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		line := text[off:end]
		lineStart := off
		off = end + 1
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		// The trimmed line's span.
		ts := lineStart + strings.Index(line, t)
		te := ts + len(t)
		if item := BulletRE.MatchString(t) && !textutil.MDTableSep.MatchString(t); item && list && items && opening != "" {
			body := textutil.OneLine(textutil.StripMarkdown(BulletRE.ReplaceAllString(t, "")))
			if last := len(out) - 1; out[last].Text == opening {
				out = out[:last] // the items carry it
			}
			out = append(out, Span{Text: opening + " " + body, Start: ts, End: te})
			continue
		}
		if item := BulletRE.MatchString(t) && !textutil.MDTableSep.MatchString(t); item && list {
			// "não aceitamos devolução de: Defensivos …; Sementes tratadas …",
			// while the whole stays short.
			last := out[len(out)-1].Text
			if !strings.HasSuffix(last, ":") {
				last = strings.TrimRight(last, ".;") + ";"
			}
			if merged := last + " " + textutil.OneLine(textutil.StripMarkdown(t)); utf8.RuneCountInString(merged) <= maxListUnit {
				out[len(out)-1].Text, out[len(out)-1].End = merged, te
				continue
			}
			if strings.HasSuffix(out[len(out)-1].Text, ":") {
				// Too long to quote whole: the items stand alone.
				list = false
			}
		}
		list = false
		if cells := TableCells(t); len(cells) >= 2 {
			if textutil.MDTableSep.MatchString(t) {
				continue
			}
			for i := range cells {
				cells[i] = textutil.OneLine(textutil.StripMarkdown(cells[i]))
			}
			if header == nil {
				header = cells
				continue
			}
			var parts []string
			for i, c := range cells {
				if c == "" {
					continue
				}
				if i < len(header) && header[i] != "" {
					c = header[i] + ": " + c
				}
				parts = append(parts, c)
			}
			out = append(out, Span{Text: strings.Join(parts, "; "), Start: ts, End: te})
			continue
		}
		header = nil
		if plain := textutil.OneLine(textutil.StripMarkdown(t)); wholeLine > 0 && utf8.RuneCountInString(plain) <= wholeLine {
			out = append(out, Span{Text: plain, Start: ts, End: te})
			list = strings.HasSuffix(plain, ":")
			if opening = ""; list {
				opening = plain
			}
			continue
		}
		ss := SplitSentences(textutil.OneLine(textutil.StripMarkdown(t)))
		for i := 0; i+1 < len(ss); i++ {
			if utf8.RuneCountInString(ss[i]) < 16 {
				// "Sim." or "Não." alone says nothing: it opens the next.
				ss[i+1] = ss[i] + " " + ss[i+1]
				ss = slices.Delete(ss, i, i+1)
				i--
			}
		}
		from := ts
		for _, sent := range ss {
			sp := Span{Text: sent, Start: ts, End: te}
			if !locate {
				out = append(out, sp)
				continue
			}
			if i := strings.Index(text[from:te], sent); i >= 0 {
				sp.Start, sp.End = from+i, from+i+len(sent)
				from = sp.End
			}
			out = append(out, sp)
		}
		list = len(out) > 0 && strings.HasSuffix(out[len(out)-1].Text, ":")
		if opening = ""; list {
			opening = out[len(out)-1].Text
		}
	}
	return out
}

// SortByScore orders idx, indexes of units, by their units' Score, best
// first; ties keep their order.
func SortByScore(units []Unit, idx []int) {
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(units[b].Score, units[a].Score) })
}

// StemSet is the set of stemmed words of s.
func StemSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range textutil.NormWords(s) {
		m[lexical.Stem(w)] = true
	}
	return m
}

// Unit is a sentence or table row of a record, with the heading of
// its section.
type Unit struct {
	// Text is the unit's text.
	Text string
	// Section is the index of the unit's section among the record's.
	Section int
	// Words are the unit's stemmed words (StemSet).
	Words map[string]bool
	// Heading are the stemmed words of its section's heading.
	Heading map[string]bool
	// Path is its section's heading path, joined as Section.Heading
	// does; empty outside Markdown sections.
	Path string
	// Score is set by ScoreUnits.
	Score float64
	// Source labels where Text comes from (the caller's name for a field
	// of the record), and Start and End are its byte span there (see
	// Span).
	Source     string
	Start, End int
}

// ScoreUnits scores each unit by the question words it holds, each
// weighted by its rarity among the units, ln(1+N/df): a word on every
// line of a document about soybean rust ("soja", "ferrugem") counts little,
// "desistir" much. A word only in the unit's section heading counts half.
func ScoreUnits(units []Unit, words []string) {
	df := map[string]int{}
	for _, u := range units {
		for _, w := range words {
			if u.Words[w] || u.Heading[w] {
				df[w]++
			}
		}
	}
	n := float64(len(units))
	for i := range units {
		u := &units[i]
		u.Score = 0
		for _, w := range words {
			if df[w] == 0 {
				continue
			}
			idf := math.Log(1 + n/float64(df[w]))
			switch {
			case u.Words[w]:
				u.Score += idf
			case u.Heading[w]:
				u.Score += idf / 2
			}
		}
	}
}

// PickUnits returns the best unit and the next best of the same section
// (at most n in all, plus the unit after one that ends with a colon), in
// text order; the whole section when its text is
// short (maxShort characters or fewer). ok is false when no unit holds a
// question word.
func PickUnits(units []Unit, n, maxShort int) (picked []Unit, ok bool) {
	best := -1
	for i, u := range units {
		if u.Score > 0 && (best < 0 || u.Score > units[best].Score) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	sec := units[best].Section
	var same []int
	total := 0
	for i, u := range units {
		if u.Section == sec {
			same = append(same, i)
			total += utf8.RuneCountInString(u.Text) + 1
		}
	}
	if total <= maxShort {
		for _, i := range same {
			picked = append(picked, units[i])
		}
		return picked, true
	}
	SortByScore(units, same)
	same = slices.DeleteFunc(same, func(i int) bool { return units[i].Score == 0 })
	if len(same) > n {
		same = same[:n]
	}
	// A sentence that opens a table or list ("…: ") brings its first row.
	for _, i := range same {
		if strings.HasSuffix(units[i].Text, ":") && i+1 < len(units) && units[i+1].Section == sec && !slices.Contains(same, i+1) {
			same = append(same, i+1)
		}
	}
	slices.Sort(same)
	for _, i := range same {
		picked = append(picked, units[i])
	}
	return picked, true
}

// JoinPassages joins passage texts into one paragraph, ending each with
// a period when it has no closing punctuation.
func JoinPassages(texts []string) string {
	var b strings.Builder
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		if last, _ := utf8.DecodeLastRuneInString(t); !strings.ContainsRune(".!?:;…)", last) {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// TableCells splits "A | B | C" (or "| A | B |") into trimmed cells; nil
// for a line with no pipe.
func TableCells(line string) []string {
	if !strings.Contains(line, "|") {
		return nil
	}
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "|")
	t = strings.TrimSuffix(t, "|")
	cells := strings.Split(t, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// BulletRE is a list marker.
var BulletRE = regexp.MustCompile(`^(?:[•·▪◦‣–—*+-]|\d+[.)])\s*`)

// definitionPhrases open a definitional question; the term defined
// follows.
var definitionPhrases = []string{"o que e ", "o que sao ", "o que significa ", "o que quer dizer ", "qual o significado de ",
	"qual o significado do ", "qual o significado da ", "what is ", "what are ", "what does ", "meaning of ", "define "}

// DefinedTerms are the normalized terms a definitional question asks
// about: "o que é resistência de planta daninha a herbicida?" →
// ["resistencia de planta daninha a herbicida", "resistencia"]; none for
// other questions.
func DefinedTerms(question string) []string {
	n := " " + strings.Join(strings.FieldsFunc(lexical.Normalize(question), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }), " ") + " "
	var term string
	for _, p := range definitionPhrases {
		if i := strings.Index(n, " "+p); i >= 0 {
			term = strings.TrimSpace(n[i+1+len(p):])
			break
		}
	}
	term = strings.TrimSuffix(term, " mean")
	for _, a := range []string{"o ", "a ", "os ", "as ", "um ", "uma ", "esse ", "essa ", "este ", "esta ", "isso ", "the ", "an ", "this ", "that "} {
		term = strings.TrimPrefix(term, a)
	}
	if term == "" {
		return nil
	}
	out := []string{term}
	for _, sep := range []string{" de ", " do ", " da ", " dos ", " das ", " no ", " na ", " em ", " a ", " ao ", " para ", " of ", " in ", " on ", " for ", " to "} {
		if i := strings.Index(term, sep); i > 0 {
			if head := term[:i]; !slices.Contains(out, head) {
				out = append(out, head)
			}
		}
	}
	return out
}

// definingVerbs follow a term in the sentence that defines it.
var definingVerbs = []string{"é", "são", "significa", "significam", "consiste", "is", "are", "means", "refers"}

// DefinesTerm reports whether text defines one of terms: "Resistência é a
// capacidade …", "O vazio sanitário é o período …" (not "respeite o vazio
// sanitário e evite …"), or "poder relativo de neutralização total
// (PRNT)".
func DefinesTerm(text string, terms []string) bool {
	raw := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
	norm := make([]string, len(raw))
	for i, w := range raw {
		norm[i] = lexical.Normalize(w)
	}
	n := lexical.Normalize(text)
	for _, t := range terms {
		tw := strings.Fields(t)
		for i := 0; i+len(tw) < len(norm); i++ {
			if slices.Equal(norm[i:i+len(tw)], tw) && slices.Contains(definingVerbs, raw[i+len(tw)]) {
				return true
			}
		}
		if strings.Contains(n, "("+t+")") {
			return true
		}
		// An abbreviation the question names with more words ("VC 80%")
		// is defined by its long form, written in capitals in
		// parentheses: "Valor cultural (VC): 80%".
		for _, w := range tw {
			if len(w) >= 2 && strings.IndexFunc(w, unicode.IsDigit) < 0 && strings.Contains(text, "("+strings.ToUpper(w)+")") {
				return true
			}
		}
	}
	return false
}

// BoostDefinitions raises the units that define one of terms
// (DefinesTerm), and a little the unit after each in the same section,
// and reports whether one does.
func BoostDefinitions(units []Unit, terms []string) bool {
	found := false
	for i := range units {
		if DefinesTerm(units[i].Text, terms) {
			units[i].Score += 3
			if i+1 < len(units) && units[i+1].Section == units[i].Section {
				units[i+1].Score += 1.5
			}
			found = true
		}
	}
	return found
}
