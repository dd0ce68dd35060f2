package offline

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag"

	"github.com/hybridrag/hybridrag/lexical"
)

// DetectLanguage guesses whether text is English or Portuguese from its
// function words; Portuguese wins ties and texts with none.
func DetectLanguage(text string) rag.Language {
	en, pt := 0, 0
	for _, w := range strings.FieldsFunc(lexical.Normalize(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if englishWords[w] {
			en++
		}
		if portugueseWords[w] {
			pt++
		}
	}
	if en > pt {
		return rag.LanguageEnglish
	}
	return rag.LanguagePortuguese
}

var (
	englishWords = wordSet("the", "is", "are", "what", "which", "how", "do", "does", "you", "your", "of", "for", "on",
		"in", "to", "and", "much", "many", "can", "i", "my", "it", "with", "have", "sell", "any", "there", "per", "where",
		"when", "who", "why", "should", "will", "would", "could", "that", "this", "these", "those", "was", "were", "be",
		"been", "being", "has", "had", "did", "not", "but", "if", "or", "at", "by", "from", "about", "after", "all",
		"an", "am", "we", "our", "they", "their", "them", "then", "than", "too", "just", "into", "its", "please")
	portugueseWords = wordSet("o", "a", "os", "as", "que", "de", "do", "da", "dos", "das", "para", "pra", "qual", "quais",
		"voce", "voces", "vcs", "tem", "e", "um", "uma", "no", "na", "nos", "com", "por", "como", "quanto", "quantos",
		"onde", "quando", "meu", "minha", "se", "nao", "sim", "posso", "esse", "essa", "isso", "ele", "ela")
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// questionFocus is what a question asks, for picking the passages that
// answer it.
type questionFocus struct {
	// words are the question's content words, normalized and stemmed.
	words []string
	// crops are the cultures it names (canonical, normalized).
	crops []string
	// dose, interval and target report the attribute asked.
	dose, interval, target bool
}

var (
	doseWords     = []string{"dose", "dosagem", "quanto uso", "quanto usar", "quanto aplicar", "por hectare", "quantidade", "how much", "rate", "per hectare"}
	intervalWords = []string{"carencia", "intervalo", "seguranca", "quantos dias", "colheita", "interval", "pre-harvest", "withholding", "reentrada"}
	targetWords   = []string{"controla", "controle", "serve", "alvo", "alvos", "praga", "pragas", "doenca", "doencas", "combate", "control", "target"}
)

// focusOf analyzes question (with the user turns of history, when the
// question names no crop of its own) for passage selection.
func focusOf(question string, history []rag.Turn, syn *lexical.Synonyms) questionFocus {
	n := " " + strings.Join(strings.Fields(lexical.Normalize(question)), " ") + " "
	var f questionFocus
	has := func(list []string) bool {
		return slices.ContainsFunc(list, func(w string) bool { return strings.Contains(n, " "+w) })
	}
	f.dose, f.interval, f.target = has(doseWords), has(intervalWords), has(targetWords)
	f.words = contentWords(question)
	crops := func(text string) []string {
		var out []string
		for _, m := range syn.Detect(text) {
			if m.Category == lexical.CategorySubject && !slices.Contains(out, m.Term) {
				out = append(out, m.Term)
			}
		}
		return out
	}
	f.crops = crops(question)
	if len(f.crops) == 0 {
		for i := len(history) - 1; i >= 0 && len(f.crops) == 0; i-- {
			if history[i].Role == "user" {
				f.crops = crops(history[i].Content)
			}
		}
	}
	for _, m := range syn.Detect(question) {
		if m.Category == lexical.CategoryGeneric && m.Term == "intervalo de seguranca" {
			f.interval = true
		}
	}
	return f
}

// textPassage is one unit of a record's text: a line, a table row rendered
// with its header, or a sentence of a long line.
type textPassage struct {
	text  string
	order int
	score float64
}

// passages splits text into units: table rows ("A | B | C") rendered as
// "Header: value; …" with the header row, bullet lines and short lines
// whole, long lines by sentence.
func passages(text string) []textPassage {
	var out []textPassage
	var header []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if utf8.RuneCountInString(s) >= 12 {
			out = append(out, textPassage{text: s, order: len(out)})
		}
	}
	raws := strings.Split(text, "\n")
	for ri, raw := range raws {
		if strings.HasPrefix(strings.TrimSpace(raw), "#") {
			header = nil
			continue // a heading names a section; it answers nothing
		}
		if textutil.MDTableSep.MatchString(strings.TrimSpace(raw)) {
			continue
		}
		line := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(textutil.StripMarkdown(raw)), "•·"))
		if strings.HasPrefix(line, "– ") {
			line = strings.TrimSpace(strings.TrimPrefix(line, "– "))
		}
		if line == "" {
			header = nil
			continue
		}
		// A Markdown table's header row is the one above its separator.
		mdHeader := ri+1 < len(raws) && textutil.MDTableSep.MatchString(strings.TrimSpace(raws[ri+1]))
		if strings.Count(line, "|") >= 2 {
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			if header == nil || mdHeader || isHeaderRow(cells) {
				header = cells
				continue
			}
			var b strings.Builder
			for i, c := range cells {
				if c == "" {
					continue
				}
				if b.Len() > 0 {
					b.WriteString("; ")
				}
				if i < len(header) && header[i] != "" {
					b.WriteString(titleCase(header[i]) + ": ")
				}
				b.WriteString(c)
			}
			add(b.String())
			continue
		}
		header = nil
		if utf8.RuneCountInString(line) <= 320 {
			add(line)
			continue
		}
		for _, s := range sentences(line) {
			add(s)
		}
	}
	return out
}

// isHeaderRow reports a table row of labels: no digit in any cell.
func isHeaderRow(cells []string) bool {
	for _, c := range cells {
		if strings.ContainsFunc(c, unicode.IsDigit) {
			return false
		}
	}
	up := 0
	for _, c := range cells {
		if c == strings.ToUpper(c) {
			up++
		}
	}
	return up == len(cells)
}

// titleCase writes an upper-case header label as "Intervalo de segurança".
func titleCase(s string) string {
	if s != strings.ToUpper(s) {
		return s
	}
	l := strings.ToLower(s)
	r := []rune(l)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// sentences splits text after ". ", "? " and "! " (not after a digit's
// decimal point).
func sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	for i := 0; i < len(rs)-1; i++ {
		if (rs[i] == '.' || rs[i] == '?' || rs[i] == '!' || rs[i] == ';') && rs[i+1] == ' ' {
			if rs[i] == ';' && i-start < 80 {
				continue
			}
			out = append(out, strings.TrimSpace(string(rs[start:i+1])))
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

// rateRE finds a dose or rate: "400 mL/ha", "1,0 L/ha", "15 g/100 L".
var rateRE = regexp.MustCompile(`(?i)\d+(?:[.,]\d+)?\s*(?:ml|l|g|kg|mg)\s*/\s*(?:ha|100\s*l|\d+\s*l|planta|m)`)

// daysRE finds a number of days or hours.
var daysRE = regexp.MustCompile(`(?i)\d+\s*(?:dias?|horas?|h\b)`)

// scorePassages scores each passage against the focus; skip are words not
// to count (the record's own name: every passage of it is about it). A
// word counts by its rarity among the record's passages: 2·ln(1+N/df) /
// ln(1+N), so a word on every line of a document about soybean rust
// ("soja", "ferrugem") counts little and "calda" much; the crop asked
// counts the same way, times 1.5 (3 for a leaflet row, the only one of its
// crop), and a passage about another crop loses 3.
func scorePassages(ps []textPassage, f questionFocus, skip map[string]bool) {
	norm := make([]string, len(ps))
	for i := range ps {
		norm[i] = " " + strings.Join(textutil.NormWords(ps[i].text), " ")
	}
	n := float64(len(ps))
	weight := func(w string) float64 {
		df := 0
		for _, t := range norm {
			if strings.Contains(t, " "+w) {
				df++
			}
		}
		if df == 0 {
			return 0
		}
		return 2 * math.Log(1+n/float64(df)) / math.Log(1+n)
	}
	ww := make([]float64, len(f.words))
	for i, w := range f.words {
		crop := slices.ContainsFunc(f.crops, func(c string) bool { return strings.HasPrefix(c, w) || strings.HasPrefix(w, c) })
		if !skip[w] && !crop {
			ww[i] = weight(w)
		}
	}
	cw := make([]float64, len(f.crops))
	for i, c := range f.crops {
		cw[i] = 1.5 * weight(strings.ReplaceAll(c, "-", " "))
	}
	for i := range ps {
		p, t := &ps[i], norm[i]
		var s float64
		for j, w := range f.words {
			if ww[j] > 0 && strings.Contains(t, " "+w) {
				s += ww[j]
			}
		}
		if len(f.crops) > 0 {
			found := false
			for j, c := range f.crops {
				if strings.Contains(t, " "+strings.ReplaceAll(c, "-", " ")) {
					found = true
					s += cw[j]
				}
			}
			if !found && namesOtherCrop(t, f.crops) {
				s -= 3
			}
		}
		hasRate, hasDays := rateRE.MatchString(p.text), daysRE.MatchString(p.text)
		if f.dose && hasRate {
			s += 2.5
		}
		if f.interval && (strings.Contains(t, " intervalo") || strings.Contains(t, " carencia")) && hasDays {
			s += 2.5
		}
		if f.target && (hasRate || strings.Contains(p.text, "(")) && strings.Contains(p.text, ":") {
			s += 1
		}
		p.score = s
	}
}

// cropNames are normalized culture words that open a leaflet row or
// sentence.
var cropNames = func() []string {
	var out []string
	for _, m := range lexical.DefaultSynonyms().Detect("soja milho cafe trigo feijao uva citros laranja algodao arroz batata tomate banana cana maca cebola alface pastagem sorgo eucalipto") {
		out = append(out, m.Term)
	}
	return out
}()

// namesOtherCrop reports a passage about a culture other than those
// asked ("Soja: … Dose: 300 mL/ha" when the question is about café).
func namesOtherCrop(n string, crops []string) bool {
	for _, c := range cropNames {
		if slices.Contains(crops, c) {
			continue
		}
		c = strings.ReplaceAll(c, "-", " ")
		if strings.HasPrefix(n, " "+c+" ") || strings.HasPrefix(n, " cultura "+c+" ") ||
			strings.Contains(n, " cultura da "+c) || strings.Contains(n, " cultura do "+c) {
			return true
		}
	}
	return false
}

// bestPassages returns up to n passages of text that score at least min,
// best first.
func bestPassages(text string, f questionFocus, skip map[string]bool, n int, min float64) []textPassage {
	ps := passages(text)
	scorePassages(ps, f, skip)
	ps = slices.DeleteFunc(ps, func(p textPassage) bool { return p.score < min })
	slices.SortStableFunc(ps, func(a, b textPassage) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.order - b.order
	})
	if len(ps) > n {
		ps = ps[:n]
	}
	return ps
}
