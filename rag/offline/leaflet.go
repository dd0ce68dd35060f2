package offline

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
	"github.com/hybridrag/hybridrag/rag/internal/quoted"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// leafletRow is one crop's entry in a product leaflet (bula, ficha
// técnica): a table row under a header naming its columns
//
//	CULTURA | ALVOS | DOSE | INTERVALO DE SEGURANÇA
//	Café | ferrugem (Hemileia vastatrix) | 400 mL/ha | 30 dias
//
// a line labelled with its crop ("• Soja: ferrugem-asiática (…). Dose:
// 500 mL/ha. Intervalo de segurança: 30 dias.", "• Café: 1,0 L/ha na
// pré-florada."), a sentence "Na cultura da uva, controla míldio (…).
// Dose: 250 g/100 L de água; intervalo de segurança: 7 dias.", or a
// general "Dose: 30 a 50 mL para cada 100 L de calda." (Crop empty). The
// fields hold the leaflet's own words, Markdown stripped; a field the
// leaflet does not give is empty.
type leafletRow struct {
	// Crop is the crop as written ("Café", "uva", "Soja e milho").
	Crop string
	// Targets are the pests, diseases or weeds controlled, as written.
	Targets string
	// Dose is the rate or use ("400 mL/ha", "0,5 L/ha em V4").
	Dose string
	// Interval is the safety interval (carência): "30 dias".
	Interval string
	// Text is the row's whole line.
	Text string
}

// leafletColumn is what a leaflet table column holds.
type leafletColumn int

const (
	columnOther leafletColumn = iota
	columnCrop
	columnTargets
	columnDose
	columnInterval
)

// leafletHeaderWords name the columns of a leaflet table, in the order
// they are tried ("INTERVALO DE SEGURANÇA" is an interval before
// anything else; "DOSE POR CULTURA" a dose).
var leafletHeaderWords = []struct {
	col   leafletColumn
	words []string
}{
	{columnInterval, []string{"intervalo", "carencia", "seguranca", "interval", "phi", "withholding"}},
	{columnDose, []string{"dose", "doses", "dosagem", "rate", "rates", "dosage"}},
	{columnTargets, []string{"alvo", "alvos", "praga", "pragas", "doenca", "doencas", "daninha", "daninhas", "target", "targets", "pest", "pests"}},
	{columnCrop, []string{"cultura", "culturas", "crop", "crops"}},
}

// leafletColumnOf classifies a header cell by its words.
func leafletColumnOf(cell string) leafletColumn {
	words := strings.FieldsFunc(lexical.Normalize(cell), func(r rune) bool { return !unicode.IsLetter(r) })
	for _, h := range leafletHeaderWords {
		for _, w := range words {
			if slices.Contains(h.words, w) {
				return h.col
			}
		}
	}
	return columnOther
}

// leafletHeader returns the columns of a header row: cells without digits,
// at least two of them known and one a crop or a dose; nil otherwise.
func leafletHeader(cells []string) []leafletColumn {
	cols := make([]leafletColumn, len(cells))
	known, key := 0, false
	for i, c := range cells {
		if strings.ContainsFunc(c, unicode.IsDigit) {
			return nil
		}
		cols[i] = leafletColumnOf(c)
		if cols[i] != columnOther {
			known++
		}
		key = key || cols[i] == columnCrop || cols[i] == columnDose
	}
	if known < 2 || !key {
		return nil
	}
	return cols
}

var (
	// leafletLabelRE finds the dose and interval labels of a line.
	leafletLabelRE = regexp.MustCompile(`(?i)(?:^|[.;,]\s+|\s)(doses?(?: recomendadas?)?|dosagem|intervalo de seguran[çc]a|car[êe]ncia)\s*:\s*`)
	// naCulturaRE is "Na cultura da uva, controla …".
	naCulturaRE = regexp.MustCompile(`(?i)^na cultura (?:d[aeo]s?\s+)?([^,]{2,60}),\s*(?:controla[m]?\s+|para\s+)?(.*)$`)
)

// leafletCropWords are crop groups the synonym table does not name.
var leafletCropWords = []string{"hortalica", "hortalicas", "frutifera", "frutiferas", "ornamentais", "graos", "cereais", "vegetables"}

// isCropLabel reports whether label (the text before a line's colon)
// names crops: short, no digit, and a culture of syn or a crop group.
func isCropLabel(label string, syn *lexical.Synonyms) bool {
	if label == "" || strings.ContainsFunc(label, unicode.IsDigit) || len(strings.Fields(label)) > 6 {
		return false
	}
	for _, m := range syn.Detect(label) {
		if m.Category == lexical.CategorySubject {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(lexical.Normalize(label), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if slices.Contains(leafletCropWords, w) {
			return true
		}
	}
	return false
}

// parseLeaflet finds the crop rows of a leaflet's text: the rows of tables
// whose header row names their columns (by words such as cultura, alvos,
// dose, intervalo or carência, in any order and case), lines labelled
// with a crop, "Na cultura da …" sentences and general "Dose: …" lines.
// syn tells crops from other labels ("Semeadura: 5 a 8 kg/ha" is not a
// crop row); nil means lexical.DefaultSynonyms. Rows come in text order.
func parseLeaflet(text string, syn *lexical.Synonyms) []leafletRow {
	if syn == nil {
		syn = lexical.DefaultSynonyms()
	}
	var rows []leafletRow
	var cols []leafletColumn
	for _, raw := range strings.Split(text, "\n") {
		line := textutil.OneLine(raw)
		if line == "" {
			cols = nil
			continue
		}
		if cells := passage.TableCells(line); len(cells) >= 2 {
			if h := leafletHeader(cells); h != nil {
				cols = h
				continue
			}
			if cols == nil || textutil.MDTableSep.MatchString(line) {
				continue
			}
			r := leafletRow{Text: strings.Join(cells, " | ")}
			for i, c := range cells {
				if i >= len(cols) {
					break
				}
				switch cols[i] {
				case columnCrop:
					r.Crop = c
				case columnTargets:
					r.Targets = c
				case columnDose:
					r.Dose = c
				case columnInterval:
					r.Interval = c
				}
			}
			if r.Crop != "" || r.Dose != "" {
				rows = append(rows, r)
			}
			continue
		}
		cols = nil
		line = strings.TrimSpace(passage.BulletRE.ReplaceAllString(textutil.StripMarkdown(line), ""))
		if r, ok := parseLeafletLine(line, syn); ok {
			rows = append(rows, r)
		}
	}
	return rows
}

// parseLeafletLine parses one line that is not a table row.
func parseLeafletLine(line string, syn *lexical.Synonyms) (leafletRow, bool) {
	r := leafletRow{Text: line}
	var rest string
	if m := naCulturaRE.FindStringSubmatch(line); m != nil {
		r.Crop, rest = strings.TrimSpace(m[1]), m[2]
	} else if label, after, ok := strings.Cut(line, ":"); ok && isCropLabel(label, syn) {
		r.Crop, rest = strings.TrimSpace(label), after
	} else if loc := leafletLabelRE.FindStringSubmatchIndex(line); loc != nil && loc[0] == 0 {
		// "Dose: 30 a 50 mL para cada 100 L de calda." — for every crop.
		rest = line
	} else {
		return r, false
	}
	labels := leafletLabelRE.FindAllStringSubmatchIndex(rest, -1)
	if len(labels) == 0 {
		if r.Crop == "" {
			return r, false
		}
		// "• Café: 1,0 L/ha na pré-florada." — the use is the dose.
		r.Dose = trimValue(rest)
		return r, r.Dose != ""
	}
	r.Targets = trimValue(rest[:labels[0][0]])
	for i, l := range labels {
		end := len(rest)
		if i+1 < len(labels) {
			end = labels[i+1][0]
		}
		v := trimValue(rest[l[1]:end])
		if strings.HasPrefix(lexical.Normalize(rest[l[2]:l[3]]), "dos") {
			if r.Dose == "" {
				r.Dose = doseValue(v)
			}
		} else if r.Interval == "" {
			r.Interval = firstSentence(v)
		}
	}
	if r.Dose == "" && r.Interval == "" {
		return r, false
	}
	return r, true
}

// trimValue trims spaces and the punctuation that ends a field.
func trimValue(s string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".;,:"))
}

// doseValue keeps a dose's first sentence, and the next when it holds a
// number too ("30 a 50 mL para cada 100 L de calda. Em aplicações de
// baixo volume, 50 mL/ha").
func doseValue(s string) string {
	first := firstSentence(s)
	if first == s {
		return s
	}
	next := firstSentence(strings.TrimSpace(s[len(first)+1:]))
	if strings.ContainsFunc(next, unicode.IsDigit) {
		return first + ". " + trimValue(next)
	}
	return first
}

// firstSentence cuts s at its first ". ".
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i]
	}
	return s
}

// cropTerms are the normalized crops a row is about: the canonical terms
// of syn and the row's own words.
func (r leafletRow) cropTerms(syn *lexical.Synonyms) []string {
	var out []string
	for _, m := range syn.Detect(r.Crop) {
		if m.Category == lexical.CategorySubject {
			out = append(out, m.Term)
		}
	}
	for _, w := range strings.FieldsFunc(lexical.Normalize(r.Crop), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		out = append(out, w, lexical.Stem(w))
	}
	return out
}

// leafletAsk is what a question asks of a product's leaflet.
type leafletAsk struct {
	// crops are the crops asked (canonical, normalized).
	crops []string
	// words are the question's other content words (stemmed), some of
	// which may name a target.
	words []string
	// other reports content words that are neither crops, the item's
	// name, treatments nor known pests: the question asks something else
	// than a recommendation ("posso aplicar quantas vezes por safra?").
	other bool
	// dose, interval: the column asked.
	dose, interval bool
}

// targetItems splits a Targets cell at its commas and "e" (outside
// parentheses): "ferrugem (Hemileia vastatrix), cercosporiose (…)".
func targetItems(targets string) []string {
	var out []string
	depth, start := 0, 0
	rs := []rune(targets)
	flush := func(end int) {
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
	}
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		case ' ':
			if depth == 0 && i+2 < len(rs) && rs[i+1] == 'e' && rs[i+2] == ' ' {
				flush(i)
				start = i + 3
				i += 2
			}
		}
	}
	flush(len(rs))
	return out
}

// matchTargets returns the target items that hold the most of words
// (stemmed, normalized), and how many they hold: for "ferrugem",
// "ferrugem-asiática (Phakopsora pachyrhizi)" of "ferrugem-asiática (…),
// mancha-alvo (…)"; for "capim-amargoso", "capim-amargoso (Digitaria
// insularis)" and not "capim-colchão".
func matchTargets(targets string, words []string) ([]string, int) {
	var out []string
	best := 0
	for _, item := range targetItems(targets) {
		its := textutil.NormWords(item)
		for i := range its {
			its[i] = lexical.Stem(its[i])
		}
		n := 0
		for _, w := range words {
			if slices.Contains(its, w) {
				n++
			}
		}
		switch {
		case n == 0 || n < best:
		case n > best:
			out, best = []string{item}, n
		default:
			out = append(out, item)
		}
	}
	return out, best
}

// leafletSelection is the rows of a leaflet that answer a question.
type leafletSelection struct {
	rows []leafletRow
	// targets are, per row, the target items the question names; nil when
	// it names none.
	targets [][]string
	// source is the file the rows come from ("bula.txt").
	source string
}

// selectLeafletRows picks the rows answering ask: the crop's rows when it
// names crops (narrowed to those naming a target it names, when some
// do); else the rows naming a target it names; else, when it asks the
// dose or the interval, every row. A crop not in the leaflet, or a
// question asking nothing of it, selects nothing. General rows (no crop)
// answer a dose question when no crop row does.
func selectLeafletRows(rows []leafletRow, ask leafletAsk, syn *lexical.Synonyms) ([]leafletRow, [][]string) {
	var crop, general []leafletRow
	for _, r := range rows {
		switch {
		case r.Crop == "":
			general = append(general, r)
		case len(ask.crops) == 0:
			crop = append(crop, r)
		case slices.ContainsFunc(r.cropTerms(syn), func(t string) bool { return slices.Contains(ask.crops, t) }):
			crop = append(crop, r)
		}
	}
	var targeted []leafletRow
	var targets [][]string
	best := 0
	for _, r := range crop {
		t, n := matchTargets(r.Targets, ask.words)
		switch {
		case n == 0 || n < best:
		case n > best:
			targeted, targets, best = []leafletRow{r}, [][]string{t}, n
		default:
			targeted, targets = append(targeted, r), append(targets, t)
		}
	}
	switch {
	case len(targeted) > 0:
		return targeted, targets
	case len(crop) > 0 && (ask.dose || ask.interval || len(ask.crops) > 0 && !ask.other):
		return crop, nil
	case len(crop) == 0 && len(general) > 0 && (ask.dose || len(ask.crops) > 0 && ask.interval):
		return general, nil
	}
	return nil, nil
}

// leafletLabels are an answer's leaflet labels in one language.
type leafletLabels struct {
	dose, interval string
	// sources name a file kind: "bula" → "bula"/"label".
	sources map[string]string
	// english localizes the units of dose and interval values.
	english bool
}

var (
	// leafletDaysRE and the other value patterns find the Portuguese
	// words of a leaflet's values that an English answer translates.
	leafletDaysRE  = regexp.MustCompile(`(\d)\s+(dias?|horas?|semanas?)\b`)
	leafletRangeRE = regexp.MustCompile(`(\d)\s+a\s+(\d)`)
	leafletUnitsEN = map[string]string{"dia": "day", "dias": "days", "hora": "hour", "horas": "hours", "semana": "week", "semanas": "weeks"}
	leafletWordsEN = strings.NewReplacer("não determinado", "not determined", "Não determinado", "Not determined",
		" de água", " of water", " de calda", " of spray mix", " por hectare", " per hectare",
		" na dessecação", " for burndown", " antes da semeadura", " before sowing", " antes do plantio", " before planting",
		"uso em pré-plantio ou jato dirigido", "pre-plant or directed-spray use")
)

// value is a dose or interval value in the answer's language: for
// English "7 dias" → "7 days", "1,5 a 2,0 L/ha" → "1,5 to 2,0 L/ha",
// "250 g/100 L de água" → "250 g/100 L of water", "não determinado" →
// "not determined"; other words stay as the leaflet has them.
func (l leafletLabels) value(s string) string {
	if !l.english || s == "" {
		return s
	}
	s = leafletDaysRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := leafletDaysRE.FindStringSubmatch(m)
		return sub[1] + " " + leafletUnitsEN[strings.ToLower(sub[2])]
	})
	s = leafletRangeRE.ReplaceAllString(s, "$1 to $2")
	return leafletWordsEN.Replace(s)
}

var (
	leafletLabelsPT = leafletLabels{dose: "dose", interval: "intervalo de segurança",
		sources: map[string]string{"bula": "bula", "ficha-tecnica": "ficha técnica", "ficha-de-seguranca": "ficha de segurança", "manual": "manual"}}
	leafletLabelsEN = leafletLabels{dose: "dose", interval: "safety interval", english: true,
		sources: map[string]string{"bula": "label", "ficha-tecnica": "data sheet", "ficha-de-seguranca": "safety data sheet", "manual": "manual"}}
)

// sourceName is how an answer names a file: "bula.txt" → "bula" (pt) or
// "label" (en).
func (l leafletLabels) sourceName(file string) string {
	base := strings.TrimSuffix(path.Base(file), path.Ext(file))
	n := lexical.Normalize(base)
	for k, v := range l.sources {
		if strings.HasPrefix(n, k) {
			return v
		}
	}
	return strings.ReplaceAll(base, "-", " ")
}

// formatLeafletRows writes selected rows: "Café: 400 mL/ha; intervalo de
// segurança: 30 dias", the column asked first, the targets named by the
// question before the dose. More than three rows for no crop in
// particular are brief: the column asked only, "Soja: 300 mL/ha; Milho:
// 300 mL/ha; …".
func formatLeafletRows(rows []leafletRow, targets [][]string, ask leafletAsk, l leafletLabels) string {
	brief := len(rows) > 3 && len(ask.crops) == 0
	parts := make([]string, 0, len(rows))
	for i, r := range rows {
		var fields []string
		var t []string
		if targets != nil {
			t = targets[i]
		}
		lead := false // fields[0] is targets
		r.Dose, r.Interval = l.value(r.Dose), l.value(r.Interval)
		switch {
		case brief && ask.interval && r.Interval != "":
			fields = append(fields, r.Interval)
		case brief && len(t) > 0:
			fields = append(fields, strings.Join(t, ", "))
			lead = true
			if r.Dose != "" {
				fields = append(fields, r.Dose)
			}
		case brief && r.Dose != "":
			fields = append(fields, r.Dose)
		default:
			if len(t) > 0 {
				fields = append(fields, strings.Join(t, ", "))
				lead = true
			} else if !ask.dose && !ask.interval && r.Targets != "" {
				fields = append(fields, r.Targets)
				lead = true
			}
			dose, interval := r.Dose, ""
			if r.Interval != "" {
				interval = l.interval + ": " + r.Interval
			}
			if ask.interval && interval != "" {
				if dose != "" {
					dose = l.dose + ": " + dose
				}
				fields = append(fields, interval, dose)
			} else {
				fields = append(fields, dose, interval)
			}
		}
		fields = slices.DeleteFunc(fields, func(s string) bool { return s == "" })
		if len(fields) == 0 {
			continue
		}
		text := strings.Join(fields, "; ")
		if lead && len(fields) > 1 {
			// "ferrugem (Hemileia vastatrix) — 400 mL/ha; …"
			sep := "; "
			if brief {
				sep = ", "
			}
			text = fields[0] + " — " + strings.Join(fields[1:], sep)
		}
		if r.Crop != "" {
			text = upperFirst(r.Crop) + ": " + text
		} else {
			text = upperFirst(l.dose) + ": " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; ")
}

func upperFirst(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// leafletAnswer is the fact an item's attached files give for ask,
// "Café: 400 mL/ha; intervalo de segurança: 30 dias (bula)", or "" when no
// leaflet row answers it. The rows come from the first file that has
// some answering rows.
func leafletAnswer(it *storage.CatalogItem, ask leafletAsk, l leafletLabels, syn *lexical.Synonyms) string {
	for _, f := range it.Files {
		rows, targets := selectLeafletRows(parseLeaflet(f.Text, syn), ask, syn)
		if len(rows) == 0 {
			continue
		}
		if len(rows) > 6 {
			rows = rows[:6]
			if targets != nil {
				targets = targets[:6]
			}
		}
		text := formatLeafletRows(rows, targets, ask, l)
		if text == "" {
			continue
		}
		return text + " (" + l.sourceName(f.Name) + ")"
	}
	return ""
}

// askWordsSkip are question words that never name a target.
var askWordsSkip = []string{"dose", "doses", "dosagem", "intervalo", "seguranca", "carencia", "dias", "quantos", "quanto",
	"qual", "quais", "hectare", "aplicacao", "interval", "safety", "rate", "label", "bula", "cultura", "culturas", "crop"}

// leafletAskOf is what message asks of the leaflet of the item named
// name: the crops and columns of focus, and the message's other content
// words (not the item's name, not a crop) as possible targets.
func leafletAskOf(message string, f questionFocus, name string, syn *lexical.Synonyms) leafletAsk {
	n := paddedWords(message)
	ask := leafletAsk{crops: f.crops, dose: f.dose, interval: asksSafetyInterval(n)}
	skip := passage.StemSet(name)
	stop := lexical.DefaultStopwords()
	frame := defaultFrameSet
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		st := lexical.Stem(w)
		if len(w) < 3 || stop.Contains(w) || frame[w] || frame[st] || skip[st] || slices.Contains(askWordsSkip, w) {
			continue
		}
		ms := syn.Detect(w)
		if slices.ContainsFunc(ms, func(m lexical.Mention) bool { return m.Category == lexical.CategorySubject }) {
			continue
		}
		ask.other = ask.other || len(ms) == 0
		if !slices.Contains(ask.words, st) {
			ask.words = append(ask.words, st)
		}
	}
	return ask
}

// paddedWords is s normalized to space-padded words: " qual a dose ".
func paddedWords(s string) string {
	return " " + strings.Join(textutil.NormWords(s), " ") + " "
}

// asksSafetyInterval reports a question about the safety interval (n is
// normalized and space-padded): carência, intervalo de segurança, days
// before harvest — not the interval between applications nor re-entry.
func asksSafetyInterval(n string) bool {
	for _, p := range []string{" carencia", " seguranca ", " colheita ", " safety interval", " pre-harvest", " preharvest", " pre harvest", " withholding", " phi "} {
		if strings.Contains(n, p) {
			return true
		}
	}
	return strings.Contains(n, " intervalo ") && !strings.Contains(n, " intervalo entre ") && !strings.Contains(n, " aplicac") && !strings.Contains(n, " reentrada")
}

// productPart writes the catalog part of an answer. When the question asks
// a fact (a dose, an interval, a labelled fact such as "Ciclo: …", or
// anything about the one product it names) and the first product's files
// state it, the part leads with that fact, "Fungiprot 250 SC —
// Café: 400 mL/ha; intervalo de segurança: 30 dias (bula).", then the
// product's category, manufacturer and price, and every other product
// gets one line. A recommendation lists its products, one line each:
// name (category, manufacturer) — price, then why it matches (its
// leaflet row for the crop or target asked, else the passages of
// itemFacts).
func productPart(message string, hits []rag.Hit[storage.CatalogItem], focus questionFocus, lang rag.Language, fr answerFrame, syn *lexical.Synonyms, qt *quoted.Turn) (string, []string) {
	named := len(hits) > 0 && hits[0].Evidence != nil && hits[0].Evidence.Named
	labels := leafletLabelsPT
	if lang == rag.LanguageEnglish {
		labels = leafletLabelsEN
	}
	var lines, ids []string
	led := false
	for i := range hits {
		it := &hits[i].Record
		ids = append(ids, hits[i].ID)
		ask := leafletAskOf(message, focus, it.Name, syn)
		fact := leafletAnswer(it, ask, labels, syn)
		asked := ask.dose || ask.interval || named || len(hits) == 1
		quoted, _ := qt.Get(storage.OwnerRef{Kind: storage.KindItem, ID: hits[i].ID})
		switch {
		case fact != "":
		case len(quoted.Passages) > 0 && (named || len(hits) == 1):
			// The question is about this product: it leads with the
			// passages the context quotes for it.
			fact, asked = strings.TrimSuffix(quotedText(quoted.Passages), "."), true
		default:
			fact = labelledFacts(it, nonCropWords(contentWords(message), syn), labels, syn)
			asked = asked || fact != ""
		}
		var facts []string
		if it.Category != "" {
			facts = append(facts, textutil.OneLine(it.Category))
		}
		if it.Manufacturer != "" {
			facts = append(facts, textutil.OneLine(it.Manufacturer))
		}
		if i == 0 && fact != "" && asked {
			lines = append(lines, textutil.OneLine(it.Name)+" — "+fact+".")
			lines = append(lines, strings.Join(append(facts, priceText(it.Price, lang)), " · ")+".")
			led = true
			continue
		}
		var b strings.Builder
		switch {
		case i == 0 && len(hits) > 1:
			b.WriteString(fr.products + "\n")
		case i == 1 && led:
			b.WriteString(fr.also + "\n")
		}
		b.WriteString(textutil.OneLine(it.Name))
		if len(facts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(facts, ", "))
		}
		fmt.Fprintf(&b, " — %s", priceText(it.Price, lang))
		if fact != "" {
			fmt.Fprintf(&b, ". %s.", fact)
			lines = append(lines, b.String())
			continue
		}
		if len(it.Tags) > 0 && isAgronomyItem(it, syn) {
			fmt.Fprintf(&b, "; %s: %s", fr.crops, strings.Join(it.Tags, ", "))
		} else if len(it.Tags) > 0 {
			fmt.Fprintf(&b, "; tags: %s", strings.Join(it.Tags, ", "))
		}
		b.WriteString(". ")
		if len(quoted.Passages) > 0 {
			// The passages the context quotes: what a model would read.
			b.WriteString(quotedText(quoted.Passages[:1]))
		} else {
			b.WriteString(itemFacts(it, focus))
		}
		lines = append(lines, strings.TrimSpace(b.String()))
	}
	return strings.Join(lines, "\n"), ids
}

// labelledFacts are the "Label: value" sentences of an item's files whose
// label holds one of words (stemmed): "Ciclo: 125 a 132 dias" for "qual o
// ciclo da soja SMR 7450?", at most two, with the file they come from:
// "Ciclo: 125 a 132 dias (ficha técnica)". Crop rows are leafletAnswer's.
func labelledFacts(it *storage.CatalogItem, words []string, l leafletLabels, syn *lexical.Synonyms) string {
	for _, f := range it.Files {
		var out []string
		for _, s := range passage.SplitSentences(textutil.StripMarkdown(f.Text)) {
			label, value, ok := strings.Cut(strings.TrimSpace(passage.BulletRE.ReplaceAllString(s, "")), ":")
			if !ok || strings.TrimSpace(value) == "" || len(strings.Fields(label)) > 6 ||
				strings.ContainsFunc(label, unicode.IsDigit) || isCropLabel(label, syn) {
				continue
			}
			set := passage.StemSet(label)
			if slices.ContainsFunc(words, func(w string) bool { return set[w] }) {
				out = append(out, trimValue(label+":"+value))
			}
			if len(out) == 2 {
				break
			}
		}
		if len(out) > 0 {
			return strings.Join(out, "; ") + " (" + l.sourceName(f.Name) + ")"
		}
	}
	return ""
}

// nonCropWords drops the words naming a crop.
func nonCropWords(words []string, syn *lexical.Synonyms) []string {
	return slices.DeleteFunc(slices.Clone(words), func(w string) bool {
		return slices.ContainsFunc(syn.Detect(w), func(m lexical.Mention) bool { return m.Category == lexical.CategorySubject })
	})
}
