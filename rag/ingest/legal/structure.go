package legal

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
)

// level is a structural unit of a Brazilian act, outermost first.
type level int

const (
	lvTitulo level = iota
	lvCapitulo
	lvSecao
	lvArtigo
	lvParagrafo
	lvInciso
	lvAlinea
	numLevels
	// lvOther is a Markdown heading that names no unit ("## Notas"): it
	// ends the article before it.
	lvOther
)

var levelKeys = [numLevels]string{keyTitulo, keyCapitulo, keySecao, keyArtigo, keyParagrafo, keyInciso, keyAlinea}

// event is a line that starts a unit: at byte offset off, unit lv is
// value (and every deeper unit ends).
type event struct {
	off   int
	lv    level
	value string
}

// state is the unit of each level in effect at some offset.
type state struct {
	v [numLevels]string
	// heading reports that the last unit started was a heading.
	heading bool
}

func (s *state) apply(e event) {
	if e.lv == lvOther {
		for l := lvArtigo; l < numLevels; l++ {
			s.v[l] = ""
		}
		s.heading = true
		return
	}
	s.v[e.lv] = e.value
	for l := e.lv + 1; l < numLevels; l++ {
		s.v[l] = ""
	}
	if e.lv <= lvSecao {
		// A heading ends the article before it.
		for l := lvArtigo; l < numLevels; l++ {
			s.v[l] = ""
		}
	}
	s.heading = e.lv <= lvSecao
}

func (s *state) tipo() string {
	switch {
	case s.v[lvAlinea] != "":
		return tipoAlinea
	case s.v[lvInciso] != "":
		return tipoInciso
	case s.v[lvParagrafo] != "":
		return tipoParagrafo
	case s.v[lvArtigo] != "":
		return tipoCaput
	case s.heading:
		return tipoHeading
	}
	return tipoContent
}

func (s *state) write(m map[string]string) {
	for l, v := range s.v {
		setNonEmpty(m, levelKeys[l], v)
	}
	m[keyTipo] = s.tipo()
}

// structure is a text's units: events in offset order and, for each,
// the state once it is applied.
type structure struct {
	events []event
	after  []state
}

func newStructure(text string) structure {
	ev := parse(text)
	after := make([]state, len(ev))
	var s state
	for i, e := range ev {
		s.apply(e)
		after[i] = s
	}
	return structure{ev, after}
}

// at returns the state at offset pos: every event at or before pos
// applied; when no article is then in effect, up to the first article
// starting before end.
func (st *structure) at(pos, end int) state {
	i, _ := slices.BinarySearchFunc(st.events, pos+1, func(e event, off int) int { return cmp.Compare(e.off, off) })
	var s state
	if i > 0 {
		s = st.after[i-1]
	}
	if s.v[lvArtigo] != "" {
		return s
	}
	for j := i; j < len(st.events) && st.events[j].off < end; j++ {
		if st.events[j].lv == lvArtigo {
			return st.after[j]
		}
	}
	return s
}

var (
	// Matched against the normalized line (lexical.Normalize).
	headingRE   = regexp.MustCompile(`^(titulo|capitulo|secao)\s+([ivxlcdm]+|\d+|unic[oa])\b`)
	artigoRE    = regexp.MustCompile(`^art(?:igo)?\.?\s*(\d+(?:\.\d{3})*)(?:º|°|ª|o\b)?(?:-([a-z])\b)?`)
	paragrafoRE = regexp.MustCompile(`^(?:§\s*(\d+)|paragrafo\s+(unico)\b)`)
	alineaRE    = regexp.MustCompile(`^([a-z])\)`)
	// Matched against the raw line: incisos are upper-case Roman numerals
	// followed by a dash.
	incisoRE = regexp.MustCompile(`^([IVXLCDM]+)\s*[-–—]`)
	romanRE  = regexp.MustCompile(`^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$`)
)

// parse returns the lines of text that start a unit, in order.
func parse(text string) []event {
	var out []event
	for off := 0; off < len(text); {
		n := strings.IndexByte(text[off:], '\n')
		if n < 0 {
			n = len(text) - off
		}
		line := text[off : off+n]
		trimmed := strings.TrimLeft(line, " \t\r\u00a0")
		if ev, ok := classify(trimmed); ok {
			ev.off = off
			out = append(out, ev)
		}
		off += n + 1
	}
	return out
}

func classify(line string) (event, bool) {
	md := false
	if loc := mdHeadingRE.FindStringIndex(line); loc != nil {
		line, md = line[loc[1]:], true
	}
	// Emphasis and quotes around a unit: "**Art. 5º**", "> § 1º".
	line = strings.TrimLeft(line, "*_> \t")
	if line == "" {
		return event{}, false
	}
	ev, ok := classifyUnit(line)
	if !ok && md {
		return event{lv: lvOther}, true
	}
	return ev, ok
}

// mdHeadingRE is a Markdown ATX heading's marker.
var mdHeadingRE = regexp.MustCompile(`^#{1,6}[ \t]+`)

func classifyUnit(line string) (event, bool) {
	if m := incisoRE.FindStringSubmatch(line); m != nil && romanRE.MatchString(m[1]) {
		return event{lv: lvInciso, value: m[1]}, true
	}
	norm := lexical.Normalize(line)
	if m := artigoRE.FindStringSubmatch(norm); m != nil {
		v := strings.ReplaceAll(m[1], ".", "")
		if m[2] != "" {
			v += "-" + strings.ToUpper(m[2])
		}
		return event{lv: lvArtigo, value: v}, true
	}
	if m := paragrafoRE.FindStringSubmatch(norm); m != nil {
		if m[1] != "" {
			return event{lv: lvParagrafo, value: m[1]}, true
		}
		return event{lv: lvParagrafo, value: "único"}, true
	}
	if m := alineaRE.FindStringSubmatch(norm); m != nil {
		return event{lv: lvAlinea, value: m[1]}, true
	}
	if m := headingRE.FindStringSubmatch(norm); m != nil {
		lv := map[string]level{"titulo": lvTitulo, "capitulo": lvCapitulo, "secao": lvSecao}[m[1]]
		v := strings.ToUpper(m[2])
		if strings.HasPrefix(m[2], "unic") {
			v = "ÚNIC" + strings.ToUpper(m[2][4:])
		}
		return event{lv: lv, value: v}, true
	}
	return event{}, false
}

// documentTypes are tried in order on the normalized line; longer names
// first.
var documentTypes = []struct {
	re  *regexp.Regexp
	typ string
}{
	{regexp.MustCompile(`^constituicao(?:\s|$)`), constituicao},
	{regexp.MustCompile(`^emenda constitucional(?:\s|$)`), emendaConstitucional},
	{regexp.MustCompile(`^lei complementar(?:\s|$)`), leiComplementar},
	{regexp.MustCompile(`^decreto[- ]lei(?:\s|$)`), decretoLei},
	{regexp.MustCompile(`^lei(?:\s|$)`), lei},
	{regexp.MustCompile(`^decreto(?:\s|$)`), decreto},
	{regexp.MustCompile(`^medida provisoria(?:\s|$)`), medidaProvisoria},
	{regexp.MustCompile(`^portaria(?:\s|$)`), portaria},
	{regexp.MustCompile(`^instrucao normativa(?:\s|$)`), instrucaoNormativa},
	{regexp.MustCompile(`^resolucao(?:\s|$)`), resolucao},
	{regexp.MustCompile(`^sumula(?:\s|$)`), sumula},
}

var (
	// numberRE finds the act's number after its name and up to three
	// words (an agency's acronym): "nº 1.234", "srf n. 8072", "10".
	numberRE = regexp.MustCompile(`^(?:\s*[a-z/-]+){0,3}?\s*(?:n[º°o]?\.?\s*)?(\d+(?:\.\d{3})*)`)
	yearRE   = regexp.MustCompile(`\bde\s+((?:1[89]|20)\d\d)\b`)
)

// documentType reports the kind of act a document is (one of the
// keyDocumentType values such as lei or instrucao_normativa), its number and
// its year, read from the title or else from the first five non-empty
// lines of the content ("LEI Nº 1.234, DE 10 DE MARÇO DE 2020" gives lei,
// "1234", "2020"). A line names an act when it starts with the act's name
// followed by its number (after "nº" and up to three words, such as an
// agency's acronym); the Constitution needs no number. It returns empty
// strings when no line names an act; year is empty when absent.
func documentType(title, content string) (typ, number, year string) {
	lines := []string{title}
	for line := range strings.Lines(content) {
		if len(lines) > 5 {
			break
		}
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	for _, line := range lines {
		norm := lexical.Normalize(strings.TrimLeft(strings.TrimSpace(line), "#*_> \t"))
		for _, dt := range documentTypes {
			loc := dt.re.FindStringIndex(norm)
			if loc == nil {
				continue
			}
			rest := norm[loc[1]:]
			if m := numberRE.FindStringSubmatch(rest); m != nil {
				number = strings.ReplaceAll(m[1], ".", "")
			} else if dt.typ != constituicao {
				// "Lei da oferta e da procura": a name without a
				// number is no act.
				continue
			}
			if m := yearRE.FindStringSubmatch(rest); m != nil {
				year = m[1]
			}
			return dt.typ, number, year
		}
	}
	return "", "", ""
}
