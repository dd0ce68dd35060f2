package offline

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/textutil"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// sentenceAbbreviations are words whose final period does not end a
// sentence ("Xanthomonas spp. e", "cv. Marandu").
var sentenceAbbreviations = []string{"sp", "spp", "subsp", "cv", "var", "ex", "aprox", "obs", "p", "pg", "pag", "n", "no", "sr", "sra", "dr", "dra", "vs", "e.g", "i.e"}

// splitSentences splits text into sentences, trimmed: at line breaks, and
// after ".", "!" or "?" followed by a space and then an upper-case letter,
// a digit or an opening quote or parenthesis. An abbreviation
// ("Xanthomonas spp.", "cv. Marandu") or a lone initial ("C. sumatrensis")
// does not end a sentence, nor does a decimal point ("7.4"). Markdown is
// kept; see textutil.StripMarkdown.
func splitSentences(text string) []string {
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

// markdownSection is the part of a Markdown document under one heading.
type markdownSection struct {
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
func (s markdownSection) Heading() string {
	return strings.Join(s.Path, chunk.HeadingSeparator)
}

// markdownSections splits Markdown content at its ATX headings ("#" to
// "######" and a space), outside fenced code blocks. Sections without text
// are kept, so every heading has its section; content without headings is
// one section with an empty path.
func markdownSections(content string) []markdownSection {
	var out []markdownSection
	var path []string
	var levels []int
	var b strings.Builder
	fenced := false
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" || len(path) > 0 {
			out = append(out, markdownSection{Path: slices.Clone(path), Text: t})
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

// plainUnits are the units of a section's text for quoting: sentences of
// its prose with Markdown stripped, a sentence opening a list ("…: ") with
// the list's items, and each row of a Markdown table as "Header: cell;
// Header: cell".
func plainUnits(text string) []string {
	var out []string
	var header []string
	list := false // the last unit opens a list ("…: ") or holds its items
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if item := bulletRE.MatchString(t) && !textutil.MDTableSep.MatchString(t); item && list {
			// "não aceitamos devolução de: Defensivos …; Sementes tratadas …",
			// while the whole stays short.
			last := out[len(out)-1]
			if !strings.HasSuffix(last, ":") {
				last = strings.TrimRight(last, ".;") + ";"
			}
			if merged := last + " " + textutil.OneLine(textutil.StripMarkdown(t)); utf8.RuneCountInString(merged) <= maxListUnit {
				out[len(out)-1] = merged
				continue
			}
			if strings.HasSuffix(out[len(out)-1], ":") {
				// Too long to quote whole: the items stand alone.
				list = false
			}
		}
		list = false
		if cells := tableCells(t); len(cells) >= 2 {
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
			out = append(out, strings.Join(parts, "; "))
			continue
		}
		header = nil
		ss := splitSentences(textutil.OneLine(textutil.StripMarkdown(t)))
		for i := 0; i+1 < len(ss); i++ {
			if utf8.RuneCountInString(ss[i]) < 16 {
				// "Sim." or "Não." alone says nothing: it opens the next.
				ss[i+1] = ss[i] + " " + ss[i+1]
				ss = slices.Delete(ss, i, i+1)
				i--
			}
		}
		out = append(out, ss...)
		list = len(out) > 0 && strings.HasSuffix(out[len(out)-1], ":")
	}
	return out
}

// contentWords are the stemmed content words of a question: no stopword,
// no frame word ("qual", "vende", "serve"), no word shorter than 3.
func contentWords(question string) []string {
	stop := lexical.DefaultStopwords()
	frame := defaultFrameSet
	var out []string
	for _, w := range textutil.NormWords(question) {
		st := lexical.Stem(w)
		if len(w) < 3 || stop.Contains(w) || frame[w] || frame[st] || slices.Contains(out, st) {
			continue
		}
		out = append(out, st)
	}
	return out
}

// stemSet is the set of stemmed words of s.
func stemSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range textutil.NormWords(s) {
		m[lexical.Stem(w)] = true
	}
	return m
}

// quoteUnit is a sentence or table row of a record, with the heading of
// its section.
type quoteUnit struct {
	text    string
	section int
	words   map[string]bool
	heading map[string]bool
	score   float64
}

// scoreUnits scores each unit by the question words it holds, each
// weighted by its rarity among the units, ln(1+N/df): a word on every
// line of a document about soybean rust ("soja", "ferrugem") counts little,
// "desistir" much. A word only in the unit's section heading counts half.
func scoreUnits(units []quoteUnit, words []string) {
	df := map[string]int{}
	for _, u := range units {
		for _, w := range words {
			if u.words[w] || u.heading[w] {
				df[w]++
			}
		}
	}
	n := float64(len(units))
	for i := range units {
		u := &units[i]
		u.score = 0
		for _, w := range words {
			if df[w] == 0 {
				continue
			}
			idf := math.Log(1 + n/float64(df[w]))
			switch {
			case u.words[w]:
				u.score += idf
			case u.heading[w]:
				u.score += idf / 2
			}
		}
	}
}

// definitionPhrases open a definitional question; the term defined
// follows.
var definitionPhrases = []string{"o que e ", "o que sao ", "o que significa ", "o que quer dizer ", "qual o significado de ",
	"qual o significado do ", "qual o significado da ", "what is ", "what are ", "what does ", "meaning of ", "define "}

// definedTerms are the normalized terms a definitional question asks
// about: "o que é resistência de planta daninha a herbicida?" →
// ["resistencia de planta daninha a herbicida", "resistencia"]; none for
// other questions.
func definedTerms(question string) []string {
	n := " " + strings.Join(strings.FieldsFunc(lexical.Normalize(question), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }), " ") + " "
	var term string
	for _, p := range definitionPhrases {
		if i := strings.Index(n, " "+p); i >= 0 {
			term = strings.TrimSpace(n[i+1+len(p):])
			break
		}
	}
	term = strings.TrimSuffix(term, " mean")
	for _, a := range []string{"o ", "a ", "os ", "as ", "um ", "uma ", "the ", "an "} {
		term = strings.TrimPrefix(term, a)
	}
	if term == "" {
		return nil
	}
	out := []string{term}
	for _, sep := range []string{" de ", " do ", " da ", " dos ", " das ", " no ", " na ", " em ", " of ", " in ", " on ", " for "} {
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

// definesTerm reports whether text defines one of terms: "Resistência é a
// capacidade …", "O vazio sanitário é o período …" (not "respeite o vazio
// sanitário e evite …"), or "poder relativo de neutralização total
// (PRNT)".
func definesTerm(text string, terms []string) bool {
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
	}
	return false
}

// boostDefinitions raises the units that define one of terms
// (definesTerm), and a little the unit after each in the same section,
// and reports whether one does.
func boostDefinitions(units []quoteUnit, terms []string) bool {
	found := false
	for i := range units {
		if definesTerm(units[i].text, terms) {
			units[i].score += 3
			if i+1 < len(units) && units[i+1].section == units[i].section {
				units[i+1].score += 1.5
			}
			found = true
		}
	}
	return found
}

// pickUnits returns the best unit and the next best of the same section
// (at most n in all, plus the unit after one that ends with a colon), in
// text order; the whole section when its text is
// short (maxShort characters or fewer). ok is false when no unit holds a
// question word.
func pickUnits(units []quoteUnit, n, maxShort int) (picked []quoteUnit, ok bool) {
	best := -1
	for i, u := range units {
		if u.score > 0 && (best < 0 || u.score > units[best].score) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	sec := units[best].section
	var same []int
	total := 0
	for i, u := range units {
		if u.section == sec {
			same = append(same, i)
			total += utf8.RuneCountInString(u.text) + 1
		}
	}
	if total <= maxShort {
		for _, i := range same {
			picked = append(picked, units[i])
		}
		return picked, true
	}
	slices.SortStableFunc(same, func(a, b int) int {
		switch {
		case units[a].score > units[b].score:
			return -1
		case units[a].score < units[b].score:
			return 1
		}
		return 0
	})
	same = slices.DeleteFunc(same, func(i int) bool { return units[i].score == 0 })
	if len(same) > n {
		same = same[:n]
	}
	// A sentence that opens a table or list ("…: ") brings its first row.
	for _, i := range same {
		if strings.HasSuffix(units[i].text, ":") && i+1 < len(units) && units[i+1].section == sec && !slices.Contains(same, i+1) {
			same = append(same, i+1)
		}
	}
	slices.Sort(same)
	for _, i := range same {
		picked = append(picked, units[i])
	}
	return picked, true
}

// documentQuote is what a document hit says on the question: the
// sentence (or table row) that best matches words (those of its title
// aside) and a sentence defining one of terms (definedTerms), with the
// next best of the same Markdown section up to n units — the whole section
// when it has maxShort characters or fewer — and the citation "Title ›
// Section". The section of the hit's best chunk (its heading_path) is
// favoured. defines reports a sentence defining a term. With no sentence
// holding a question word it falls back to the hit's snippet.
func documentQuote(h *rag.Hit[storage.Document], words, terms []string, n, maxShort int) (text, citation string, defines bool) {
	heading := ""
	if h.Vector != nil {
		heading = strings.Join(h.Vector.HeadingPath, chunk.HeadingSeparator)
	}
	// The title's words are what every passage is about.
	if title := stemSet(h.Record.Title); len(title) > 0 {
		if rest := slices.DeleteFunc(slices.Clone(words), func(w string) bool { return title[w] }); len(rest) > 0 {
			words = rest
		}
	}
	secs := markdownSections(h.Record.Content)
	var units []quoteUnit
	for i, s := range secs {
		var head map[string]bool
		if len(s.Path) > 1 {
			head = stemSet(s.Path[len(s.Path)-1])
		}
		for _, t := range plainUnits(s.Text) {
			units = append(units, quoteUnit{text: t, section: i, words: stemSet(t), heading: head})
		}
	}
	scoreUnits(units, words)
	defines = boostDefinitions(units, terms)
	for i := range units {
		if p := secs[units[i].section].Heading(); units[i].score > 0 && heading != "" && p != "" && strings.HasSuffix(heading, p) {
			units[i].score += 1
		}
	}
	picked, ok := pickUnits(units, n, maxShort)
	if !ok {
		return vector.Truncate(textutil.OneLine(strings.Join(plainUnits(h.Snippet), " ")), 320), rag.DocumentCitation(h), false
	}
	texts := make([]string, len(picked))
	for i, u := range picked {
		texts[i] = vector.Truncate(u.text, 320)
	}
	citation = h.Record.Title
	if p := secs[picked[0].section].Heading(); p != "" {
		citation = p
		if h.Record.Title != "" && !strings.HasPrefix(p, h.Record.Title) {
			citation = h.Record.Title + chunk.HeadingSeparator + p
		}
	}
	return joinPassages(texts), citation, defines
}

// faqQuote is a FAQ's answer, Markdown stripped: whole when short
// (maxShort characters or fewer), else its sentences that hold the most
// of words (at most n, in order; the first one leads when the FAQ's
// question holds most of words), or its first n sentences. defines
// reports a sentence defining one of terms (definedTerms).
func faqQuote(question, answer string, words, terms []string, n, maxShort int) (string, bool) {
	var units []quoteUnit
	for _, t := range plainUnits(answer) {
		units = append(units, quoteUnit{text: t, words: stemSet(t)})
	}
	scoreUnits(units, words)
	if len(units) > 0 && holdsMost(stemSet(question), words) {
		// The FAQ asks what the user asks: its answer opens with the
		// answer ("Mantenha os sacos em local seco, fresco e ventilado…").
		top := 0.0
		for _, u := range units {
			top = max(top, u.score)
		}
		units[0].score = top + 1
	}
	defines := boostDefinitions(units, terms)
	picked, ok := pickUnits(units, n, maxShort)
	if !ok {
		picked = units[:min(n, len(units))]
	}
	texts := make([]string, len(picked))
	for i, u := range picked {
		texts[i] = u.text
	}
	return joinPassages(texts), defines
}

// holdsMost reports whether set holds at least half of words (and one).
func holdsMost(set map[string]bool, words []string) bool {
	n := 0
	for _, w := range words {
		if set[w] {
			n++
		}
	}
	return n > 0 && 2*n >= len(words)
}

// defaultFrameSet holds the request words (rag.DefaultSearcherOptions().Evidence.FrameWords) folded
// for lookup.
var defaultFrameSet = textutil.FrameSet(rag.DefaultSearcherOptions().Evidence.FrameWords)
