package legal

import (
	"context"
	"regexp"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// Document-level metadata keys, set on storage.Document.Metadata when the
// title or the first lines name the act.
const (
	// keyDocumentType is the kind of act: constituicao,
	// emenda_constitucional, lei_complementar, decreto_lei, lei, decreto,
	// medida_provisoria, portaria, instrucao_normativa, resolucao or sumula.
	keyDocumentType = "tipo_documento"
	// keyDocumentNumber is the act's number without thousands separators
	// ("Lei nº 8.072" gives "8072").
	keyDocumentNumber = "numero_documento"
	// keyDocumentYear is the year of the act's date ("de 25 de julho de
	// 1990" gives "1990").
	keyDocumentYear = "ano_documento"
)

// Chunk-level metadata keys: where a chunk sits in the act's structure,
// so a search can ask for "art. 5º, § 2º" or a question can be cited by
// article.
const (
	keyTitulo   = "titulo"   // the Título, a Roman numeral ("I") or "ÚNICO"
	keyCapitulo = "capitulo" // the Capítulo
	keySecao    = "secao"    // the Seção
	// keyArtigo is the article number: "5", "1000" (Art. 1.000), "5-A".
	keyArtigo = "artigo"
	// keyParagrafo is the paragraph: "1", "2", or "único".
	keyParagrafo = "paragrafo"
	// keyInciso is the inciso, a Roman numeral: "I", "III".
	keyInciso = "inciso"
	// keyAlinea is the alínea, a lower-case letter: "a".
	keyAlinea = "alinea"
	// keyTipo says what the chunk's own text starts in: caput (an
	// article's head text), paragrafo, inciso, alinea, heading (a Título,
	// Capítulo or Seção heading) or content (anything else: preamble,
	// notes).
	keyTipo = "tipo"
	// keyBanca is the examining board a chunk cites (CEBRASPE, CESPE,
	// FCC, VUNESP, FGV), upper case; keyAno the year that follows it.
	keyBanca = "banca"
	keyAno   = "ano"
)

// Markers a reader of Brazilian legal texts filters on (court precedents,
// exam questions, criminal provisions…): each is set on every chunk of a
// legal document, to "true" or "false", so a filter on "false" works too.
// They are the keys of DefaultMarkers; filter on them by name
// (storage.ChunkFilter{Key: "marca_stf", Value: "true"}).
const (
	marcaAtencao   = "marca_atencao"    // text marked "#Atenção:"
	marcaSTF       = "marca_stf"        // mentions the STF / Supremo Tribunal Federal
	marcaSTJ       = "marca_stj"        // mentions the STJ / Superior Tribunal de Justiça
	marcaConcurso  = "marca_concurso"   // relevant to public exams (concurso, a banca)
	marcaCrime     = "marca_crime"      // criminal law: crime, delito, tipificação
	marcaPena      = "marca_pena"       // a penalty: pena, reclusão, detenção, sanção
	marcaHediondo  = "marca_hediondo"   // heinous crimes (Lei 8.072)
	marcaAcaoPenal = "marca_acao_penal" // ação penal, public or private
	marcaMilitar   = "marca_militar"    // military law (Código Penal Militar…)
)

// marcaJurisprudencia is derived from the markers: "true" when marca_stf or
// marca_stj is, for the "jurisprudencia" consulta (case law; see
// ConsultaFilters). It is set on every chunk with them.
const marcaJurisprudencia = "marca_jurisprudencia"

// Values of keyTipo.
const (
	tipoCaput     = "caput"     // an article's head text
	tipoParagrafo = "paragrafo" // a paragraph (§) of an article
	tipoInciso    = "inciso"    // an inciso
	tipoAlinea    = "alinea"    // an alínea
	tipoHeading   = "heading"   // a Título, Capítulo or Seção heading
	tipoContent   = "content"   // anything else (preamble, notes)
)

// Values of keyDocumentType.
const (
	constituicao         = "constituicao"
	emendaConstitucional = "emenda_constitucional"
	leiComplementar      = "lei_complementar"
	decretoLei           = "decreto_lei"
	lei                  = "lei"
	decreto              = "decreto"
	medidaProvisoria     = "medida_provisoria"
	portaria             = "portaria"
	instrucaoNormativa   = "instrucao_normativa"
	resolucao            = "resolucao"
	sumula               = "sumula"
)

// Marker is one marker rule: a chunk whose normalized text (lower case,
// accents removed: lexical.Normalize) matches Pattern gets Key = "true",
// any other chunk Key = "false".
type Marker struct {
	Key     string
	Pattern *regexp.Regexp
}

// DefaultMarkers returns the nine default marker rules (a new slice on each
// call; the patterns are shared and safe for concurrent use).
func DefaultMarkers() []Marker {
	return []Marker{
		{marcaAtencao, regexp.MustCompile(`#\s*atencao`)},
		{marcaSTF, regexp.MustCompile(`\bstf\b|supremo tribunal federal`)},
		{marcaSTJ, regexp.MustCompile(`\bstj\b|superior tribunal de justica`)},
		{marcaConcurso, regexp.MustCompile(`\bconcursos?\b|#\s*questao|` + bancaRE)},
		{marcaCrime, regexp.MustCompile(`\bcrimes?\b|\bdelitos?\b|\btipifica`)},
		{marcaPena, regexp.MustCompile(`\bpenas?\b|\breclusao\b|\bdetencao\b|\bsancao\b|\bsancoes\b`)},
		{marcaHediondo, regexp.MustCompile(`\bhediond|\b8\.?072\b`)},
		{marcaAcaoPenal, regexp.MustCompile(`\bacao penal\b|\bacoes penais\b`)},
		{marcaMilitar, regexp.MustCompile(`\bmilitar(es)?\b`)},
	}
}

const bancaRE = `\b(cebraspe|cespe|fcc|vunesp|fgv)\b`

var bancaYearRE = regexp.MustCompile(bancaRE + `[^0-9\n]{0,12}((?:19|20)\d\d)?`)

// Options configures an Extractor; the zero value gives DefaultMarkers.
type Options struct {
	// Markers replaces DefaultMarkers when non-nil.
	Markers []Marker
}

// Extractor is the pt-BR legal metadata extractor: it implements
// ingest.Extractor. It is immutable and safe for concurrent use.
type Extractor struct {
	markers []Marker
}

// New returns an Extractor. It does no I/O.
func New(opts Options) *Extractor {
	m := opts.Markers
	if m == nil {
		m = DefaultMarkers()
	}
	return &Extractor{markers: append([]Marker(nil), m...)}
}

// Extract sets the document's type, number and year (tipo_documento,
// numero_documento, ano_documento) when its title or first lines name
// the act, and on each chunk the structure its own text starts in
// (titulo … alinea, tipo), the markers and the cited banca.
//
// The structure is read from doc.Content once, line by line (a line
// starting "Art. 5º", "§ 2º", "Parágrafo único", "III –", "a)", "CAPÍTULO
// II"…), and each chunk is placed at its Start offset: a chunk in the
// middle of Art. 5º § 2º inciso III gets those values although its text
// names none of them. A chunk that overlaps the one before is placed where
// its new text begins; one that starts before any article (a heading, the
// preamble) takes the first article that begins in it. A chunk whose text
// is not found at its Start is located by searching doc.Content after the
// previous chunk. A heading ends the article before it.
func (e *Extractor) Extract(_ context.Context, doc *storage.Document, chunks []storage.Chunk) error {
	if typ, num, year := documentType(doc.Title, doc.Content); typ != "" {
		if doc.Metadata == nil {
			doc.Metadata = make(map[string]string, 3)
		}
		doc.Metadata[keyDocumentType] = typ
		setNonEmpty(doc.Metadata, keyDocumentNumber, num)
		setNonEmpty(doc.Metadata, keyDocumentYear, year)
	}
	units := newStructure(doc.Content)
	prevStart, prevEnd := -1, -1
	for i := range chunks {
		c := &chunks[i]
		start := locate(doc.Content, c, prevEnd)
		var st state
		if start >= 0 {
			end := start + len(c.Content)
			pos := start
			if prevStart >= 0 && prevStart < start && prevEnd > start && prevEnd < end {
				pos = prevEnd
				for pos < end && isSpace(doc.Content[pos]) {
					pos++
				}
			}
			st = units.at(pos, end)
			prevStart, prevEnd = start, end
		} else {
			own := newStructure(c.Content)
			st = own.at(0, len(c.Content))
		}
		if c.Metadata == nil {
			c.Metadata = make(map[string]string, 8+len(e.markers))
		}
		st.write(c.Metadata)
		norm := lexical.Normalize(c.Content)
		for _, m := range e.markers {
			c.Metadata[m.Key] = boolString(m.Pattern.MatchString(norm))
		}
		c.Metadata[marcaJurisprudencia] = boolString(c.Metadata[marcaSTF] == "true" || c.Metadata[marcaSTJ] == "true")
		if sm := bancaYearRE.FindStringSubmatch(norm); sm != nil {
			c.Metadata[keyBanca] = strings.ToUpper(sm[1])
			setNonEmpty(c.Metadata, keyAno, sm[2])
		}
	}
	return nil
}

// locate returns the byte offset of c's text in content: its Start when
// the text is there, else the first occurrence at or after from, else -1.
func locate(content string, c *storage.Chunk, from int) int {
	if c.Content == "" {
		return -1
	}
	if c.Start >= 0 && c.Start+len(c.Content) <= len(content) && content[c.Start:c.Start+len(c.Content)] == c.Content {
		return c.Start
	}
	from = max(from-len(c.Content), 0)
	if from > len(content) {
		return -1
	}
	if i := strings.Index(content[from:], c.Content); i >= 0 {
		return from + i
	}
	return -1
}

func setNonEmpty(m map[string]string, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }
