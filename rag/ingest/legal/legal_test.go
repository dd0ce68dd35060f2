package legal_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// lei loads testdata/lei_1234.txt, a fictitious municipal law written for
// these tests.
func lei(t testing.TB) load.ParsedDocument {
	t.Helper()
	data, err := os.ReadFile("testdata/lei_1234.txt")
	if err != nil {
		t.Fatal(err)
	}
	d, err := load.ParseDocument("lei_1234.txt", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// smallChunks cuts the law into chunks of 240 runes with 60 of overlap,
// so that articles span chunks and chunks overlap.
func smallChunks(t testing.TB) *chunk.Recursive {
	t.Helper()
	r, err := chunk.NewRecursive(chunk.RecursiveOptions{Size: 240, Overlap: 60})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// smallSections is the structural splitter the law is cut by in these
// tests: 240 runes with 60 of overlap, no merging, so that long articles
// span chunks and chunks of one article overlap.
func smallSections(t testing.TB) *chunk.Structural {
	t.Helper()
	s, err := chunk.NewStructural(chunk.StructuralOptions{MaxTokens: 60, OverlapTokens: 15, MinTokens: -1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// indexed indexes d alone through an Indexer with opts into a memory
// store and returns the stored document and its chunks, in order.
func indexed(t *testing.T, d load.ParsedDocument, opts ingest.IndexerOptions) (storage.Document, []storage.Chunk) {
	t.Helper()
	ctx := context.Background()
	store, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.NewIndexer(store, ragtest.HashEmbedder(t), opts).IndexDocuments(ctx, []load.ParsedDocument{d}); err != nil {
		t.Fatal(err)
	}
	doc, err := store.Documents().Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := store.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	return doc, chunks
}

// structural keeps the keys that locate a chunk and the markers set to
// true.
func structural(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v != "false" {
			out[k] = v
		}
	}
	return out
}

// TestIndexLei indexes the law through an Indexer with the extractor and
// checks what the store holds: the document's type and number, and each
// chunk's unit (followed across chunks and overlaps) and markers.
func TestIndexLei(t *testing.T) {
	ctx := context.Background()
	store, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{
		DocumentChunker: smallSections(t),
		Extractors:      []ingest.Extractor{legal.New(legal.Options{})},
	})
	d := lei(t)
	callerMeta := d.Metadata
	if _, err := ix.IndexDocuments(ctx, []load.ParsedDocument{d}); err != nil {
		t.Fatal(err)
	}
	if _, ok := callerMeta[legal.KeyDocumentType]; ok {
		t.Error("the caller's metadata map was modified")
	}
	doc, err := store.Documents().Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := map[string]string{"format": "text", "tipo_documento": "lei", "numero_documento": "1234", "ano_documento": "2020"}
	if diff := cmp.Diff(wantDoc, doc.Metadata); diff != "" {
		t.Errorf("document metadata (-want +got):\n%s", diff)
	}
	chunks, err := store.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		// Title, ementa and the first heading: no article yet.
		{"tipo": "content"},
		// Starts at the heading, takes the article that begins in it.
		{"capitulo": "I", "artigo": "1", "tipo": "caput"},
		{"capitulo": "I", "artigo": "2", "tipo": "caput"},
		// Overlaps inciso II; its own text starts at inciso III.
		{"capitulo": "I", "artigo": "2", "inciso": "III", "tipo": "inciso"},
		{"capitulo": "II", "artigo": "3", "tipo": "caput"},
		{"capitulo": "II", "artigo": "4", "tipo": "caput"},
		{"capitulo": "II", "artigo": "5", "tipo": "caput"},
		// Inside Art. 5º § 2º: no header of its own.
		{"capitulo": "II", "artigo": "5", "paragrafo": "2", "inciso": "II", "tipo": "inciso"},
		{
			"capitulo": "II", "artigo": "5", "paragrafo": "3", "tipo": "paragrafo",
			"marca_atencao": "true", "marca_crime": "true", "marca_pena": "true", "marca_acao_penal": "true", "marca_stf": "true",
			"marca_jurisprudencia": "true",
		},
		{"capitulo": "II", "artigo": "6", "tipo": "caput", "marca_concurso": "true", "banca": "CEBRASPE", "ano": "2024"},
		// A short article is a chunk of its own, not the tail of Art. 6º's.
		{"capitulo": "II", "artigo": "7", "tipo": "caput"},
	}
	var got []map[string]string
	for _, c := range chunks {
		got = append(got, structural(c.Metadata))
		if n := countMarks(c.Metadata); n != len(legal.DefaultMarkers())+1 {
			t.Errorf("chunk %d: want every marker and marca_jurisprudencia set, got %v", c.Seq, c.Metadata)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunk metadata (-want +got):\n%s", diff)
	}

	// Unchanged text and metadata: a second run writes nothing.
	st, err := ix.IndexDocuments(ctx, []load.ParsedDocument{lei(t)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 0 || st.Unchanged != 1 || st.Embedded != 0 {
		t.Errorf("reindex: %+v, want unchanged", st)
	}
	// Adding the extractor's metadata (without its sections, which
	// change the chunks) to an index built without it rewrites the
	// metadata without re-embedding.
	store2, _ := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	plain := ingest.NewIndexer(store2, ragtest.HashEmbedder(t), ingest.IndexerOptions{FileChunker: smallChunks(t)})
	if _, err := plain.IndexDocuments(ctx, []load.ParsedDocument{lei(t)}); err != nil {
		t.Fatal(err)
	}
	chunks1, _ := store2.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID})
	withLegal := ingest.NewIndexer(store2, ragtest.HashEmbedder(t), ingest.IndexerOptions{
		FileChunker: smallChunks(t), Extractors: []ingest.Extractor{ingest.ExtractorFunc(legal.New(legal.Options{}).Extract)},
	})
	st, err = withLegal.IndexDocuments(ctx, []load.ParsedDocument{lei(t)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 1 || st.Embedded != 0 {
		t.Errorf("adding the extractor: %+v, want 1 written, 0 embedded", st)
	}
	chunks2, _ := store2.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID})
	if len(chunks2) != len(chunks1) || chunks2[6].Metadata[legal.KeyArtigo] != "5" {
		t.Errorf("metadata not rewritten: %v", chunks2[6].Metadata)
	}
}

// countMarks counts the marca_* keys set to "true" or "false".
func countMarks(m map[string]string) int {
	n := 0
	for k, v := range m {
		if strings.HasPrefix(k, "marca_") && (v == "true" || v == "false") {
			n++
		}
	}
	return n
}

func TestDocumentType(t *testing.T) {
	tests := []struct {
		name, title, content string
		typ, number, year    string
	}{
		{"lei in content", "lei.txt", "\n\nLEI Nº 1.234, DE 10 DE MARÇO DE 2020\n\nDispõe…", legal.Lei, "1234", "2020"},
		{"lei complementar title", "Lei Complementar nº 123, de 14 de dezembro de 2006", "", legal.LeiComplementar, "123", "2006"},
		{"decreto-lei", "", "DECRETO-LEI No 2.848, DE 7 DE DEZEMBRO DE 1940\nCódigo Penal.", legal.DecretoLei, "2848", "1940"},
		{"decreto", "Decreto nº 10.854/2021", "", legal.Decreto, "10854", ""},
		{"portaria", "", "PORTARIA MAPA Nº 52, DE 15 DE MARÇO DE 2021", legal.Portaria, "52", "2021"},
		{"instrução normativa", "", "INSTRUÇÃO NORMATIVA SRF nº 1.700, de 14 de março de 2017", legal.InstrucaoNormativa, "1700", "2017"},
		{"resolução", "Resolução CONAMA n. 237", "", legal.Resolucao, "237", ""},
		{"medida provisória", "Medida Provisória nº 2.200-2", "", legal.MedidaProvisoria, "2200", ""},
		{"emenda", "Emenda Constitucional nº 45, de 2004", "", legal.EmendaConstitucional, "45", "2004"},
		{"constituição", "Constituição da República Federativa do Brasil de 1988", "", legal.Constituicao, "", "1988"},
		{"súmula", "Súmula 711 do STF", "", legal.Sumula, "711", ""},
		{"not an act", "Manual do pomar", "Como podar árvores.\nLei da oferta e da procura não se aplica.", "", "", ""},
		{"act named late", "notas", "a\nb\nc\nd\ne\nf\nLEI Nº 9", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, number, year := legal.DocumentType(tt.title, tt.content)
			if typ != tt.typ || number != tt.number || year != tt.year {
				t.Errorf("DocumentType = %q, %q, %q; want %q, %q, %q", typ, number, year, tt.typ, tt.number, tt.year)
			}
		})
	}
}

// extractOne runs the extractor over text as one document with one chunk.
func extractOne(t *testing.T, e *legal.Extractor, text string) map[string]string {
	t.Helper()
	doc := storage.Document{ID: "d", Content: text}
	chunks := []storage.Chunk{{Content: text}}
	if err := e.Extract(context.Background(), &doc, chunks); err != nil {
		t.Fatal(err)
	}
	return structural(chunks[0].Metadata)
}

func TestUnits(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]string
	}{
		{"article with ordinal", "Art. 5º Todos são iguais.", map[string]string{"artigo": "5", "tipo": "caput"}},
		{"article with o", "Art. 1o Esta Lei…", map[string]string{"artigo": "1", "tipo": "caput"}},
		{"article with thousands", "Art. 1.000. Fim.", map[string]string{"artigo": "1000", "tipo": "caput"}},
		{"article with letter", "Art. 5º-A. Incluído.", map[string]string{"artigo": "5-A", "tipo": "caput"}},
		{"old dash style", "Art. 1º - Esta Lei entra em vigor.", map[string]string{"artigo": "1", "tipo": "caput"}},
		{"artigo spelled out", "Artigo 12. Texto.", map[string]string{"artigo": "12", "tipo": "caput"}},
		{"parágrafo único", "Art. 3º Caput.\nParágrafo único. Texto.", map[string]string{"artigo": "3", "tipo": "caput"}},
		{"inciso en dash", "Art. 2º Considera-se:\nIV – item.", map[string]string{"artigo": "2", "tipo": "caput"}},
		{"a word of Roman letters is no inciso", "CIVIL - texto\nDIM – outro", map[string]string{"tipo": "content"}},
		{"invalid numeral", "IIII – x", map[string]string{"tipo": "content"}},
		{"heading only", "TÍTULO II\nDOS DIREITOS\nSeção I\nDisposições", map[string]string{"titulo": "II", "tipo": "heading"}},
		{"capítulo único", "CAPÍTULO ÚNICO\nArt. 1º Texto.", map[string]string{"capitulo": "ÚNICO", "artigo": "1", "tipo": "caput"}},
		{"prose", "O artigo 5 trata de igualdade.", map[string]string{"tipo": "content"}},
		{"bold article", "**Art. 7º** Vigência.", map[string]string{"artigo": "7", "tipo": "caput"}},
		{"markdown unit heading", "## CAPÍTULO IV\nArt. 9º Texto.", map[string]string{"capitulo": "IV", "artigo": "9", "tipo": "caput"}},
		{"markdown other heading", "## Notas\nTexto.", map[string]string{"tipo": "heading"}},
		{"marker is no heading", "#Atenção: texto.", map[string]string{"tipo": "content", "marca_atencao": "true"}},
	}
	e := legal.New(legal.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, extractOne(t, e, tt.text)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarkdownLaw reads the law as Markdown, cut by the structural
// splitter at its headings: "## CAPÍTULO II" is a unit, and a Markdown
// heading naming none ends the article before it.
func TestMarkdownLaw(t *testing.T) {
	data, err := os.ReadFile("testdata/lei_1234.txt")
	if err != nil {
		t.Fatal(err)
	}
	md := strings.Replace(string(data), "LEI Nº", "# LEI Nº", 1)
	md = strings.ReplaceAll(md, "CAPÍTULO", "## CAPÍTULO")
	md += "\n## Notas\n\nO regulamento desta Lei tratará das podas e das multas aplicáveis aos pomares.\n"
	d, err := load.ParseDocument("lei.md", []byte(md), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := chunk.NewStructural(chunk.StructuralOptions{MaxTokens: 60, OverlapTokens: 10, MinTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	// The extractor wrapped in an ExtractorFunc: the loader's Markdown
	// sections, not the extractor's articles, cut the law.
	ext := legal.New(legal.Options{})
	doc, chunks := indexed(t, d, ingest.IndexerOptions{DocumentChunker: s, Extractors: []ingest.Extractor{ingest.ExtractorFunc(ext.Extract)}})
	if doc.Metadata[legal.KeyDocumentType] != legal.Lei {
		t.Errorf("document metadata %v", doc.Metadata)
	}
	var got []string
	for _, c := range chunks {
		m := c.Metadata
		got = append(got, strings.Join([]string{m[legal.KeyCapitulo], m[legal.KeyArtigo], m[legal.KeyParagrafo], m[legal.KeyInciso], m[legal.KeyTipo]}, "/"))
	}
	want := []string{
		"////heading", "I/1///caput", "I/2///caput", "I/2//III/inciso", "II/3///caput", "II/4///caput",
		"II/5///caput", "II/5/2/II/inciso", "II/5/3//paragrafo", "II/6///caput", "II////heading",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("capitulo/artigo/paragrafo/inciso/tipo per chunk (-want +got):\n%s", diff)
	}
}

// TestFollowsStructure places chunks inside paragraphs, incisos and alíneas
// of one article.
func TestFollowsStructure(t *testing.T) {
	content := "Art. 5º Caput.\n§ 1º Primeiro.\n§ 2º Segundo:\nI – um;\nII – dois:\na) letra a;\nb) letra b.\nParágrafo único. Fim.\nCAPÍTULO III\nTexto solto."
	var chunks []storage.Chunk
	for _, s := range []string{"Segundo:", "dois:", "letra b.", "Fim.", "Texto solto."} {
		i := indexOf(t, content, s)
		chunks = append(chunks, storage.Chunk{Content: s, Start: i})
	}
	// A wrong Start is corrected by searching the content.
	chunks[2].Start = 0
	doc := storage.Document{ID: "d", Content: content}
	if err := legal.New(legal.Options{}).Extract(context.Background(), &doc, chunks); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"artigo": "5", "paragrafo": "2", "tipo": "paragrafo"},
		{"artigo": "5", "paragrafo": "2", "inciso": "II", "tipo": "inciso"},
		{"artigo": "5", "paragrafo": "2", "inciso": "II", "alinea": "b", "tipo": "alinea"},
		{"artigo": "5", "paragrafo": "único", "tipo": "paragrafo"},
		{"capitulo": "III", "tipo": "heading"},
	}
	for i, c := range chunks {
		if diff := cmp.Diff(want[i], structural(c.Metadata)); diff != "" {
			t.Errorf("chunk %q (-want +got):\n%s", c.Content, diff)
		}
	}
	if doc.Metadata != nil {
		t.Errorf("no act named, document metadata = %v", doc.Metadata)
	}
}

func indexOf(t *testing.T, s, sub string) int {
	t.Helper()
	for i := range len(s) - len(sub) + 1 {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	t.Fatalf("%q not in content", sub)
	return -1
}

func TestMarkers(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"#Atenção: prazo decadencial.", []string{legal.MarcaAtencao}},
		{"Conforme o Supremo Tribunal Federal.", []string{legal.MarcaSTF}},
		{"Tema 1.234 do STJ.", []string{legal.MarcaSTJ}},
		{"Superior Tribunal de Justiça, REsp 1.", []string{legal.MarcaSTJ}},
		{"Questão da FGV sobre o tema.", []string{legal.MarcaConcurso}},
		{"Constitui crime contra a ordem tributária.", []string{legal.MarcaCrime}},
		{"Pena – reclusão, de dois a cinco anos.", []string{legal.MarcaPena}},
		{"São hediondos os crimes da Lei nº 8.072.", []string{legal.MarcaCrime, legal.MarcaHediondo}},
		{"A ação penal é pública condicionada.", []string{legal.MarcaAcaoPenal}},
		{"Código Penal Militar, art. 9º.", []string{legal.MarcaMilitar}},
		{"Código Penal, art. 121.", nil},
		{"Valeu a penalidade administrativa.", nil},
	}
	e := legal.New(legal.Options{})
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := extractOne(t, e, tt.text)
			var marks []string
			for _, m := range legal.DefaultMarkers() {
				if got[m.Key] == "true" {
					marks = append(marks, m.Key)
				}
			}
			if diff := cmp.Diff(tt.want, marks); diff != "" {
				t.Errorf("markers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConsultaFilters(t *testing.T) {
	tests := []struct {
		consulta string
		n        int
		err      bool
	}{
		{legal.ConsultaArtigo, 2, false},
		{legal.ConsultaJurisprudencia, 1, false},
		{legal.ConsultaQuestao, 1, false},
		{legal.ConsultaNota, 1 + len(legal.DefaultMarkers()), false},
		{legal.ConsultaTodos, 0, false},
		{"doutrina", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.consulta, func(t *testing.T) {
			f, err := legal.ConsultaFilters(tt.consulta)
			if (err != nil) != tt.err || len(f) != tt.n {
				t.Fatalf("ConsultaFilters(%q) = %v, %v", tt.consulta, f, err)
			}
			if tt.err && !errors.Is(err, legal.ErrUnknownConsulta) {
				t.Errorf("err = %v, want ErrUnknownConsulta", err)
			}
		})
	}
}
