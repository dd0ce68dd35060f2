package load

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/rag/chunk"
)

// docxBuilder writes a real .docx (an OOXML zip) with archive/zip and
// encoding/xml, the way Word lays it out: w:-prefixed elements in
// word/document.xml, optional word/styles.xml.
type docxBuilder struct {
	body   bytes.Buffer
	enc    *xml.Encoder
	styles []docxTestStyle
}

type docxTestStyle struct{ id, name, basedOn string }

func newDocx() *docxBuilder {
	b := &docxBuilder{}
	b.enc = xml.NewEncoder(&b.body)
	return b
}

func w(local string) xml.Name { return xml.Name{Local: "w:" + local} }

func (b *docxBuilder) start(local string, attrs ...string) {
	se := xml.StartElement{Name: w(local)}
	for i := 0; i+1 < len(attrs); i += 2 {
		se.Attr = append(se.Attr, xml.Attr{Name: w(attrs[i]), Value: attrs[i+1]})
	}
	_ = b.enc.EncodeToken(se)
}

func (b *docxBuilder) end(local string) { _ = b.enc.EncodeToken(xml.EndElement{Name: w(local)}) }

func (b *docxBuilder) empty(local string, attrs ...string) {
	b.start(local, attrs...)
	b.end(local)
}

// run writes a run; "\t" and "\n" become w:tab and w:br.
func (b *docxBuilder) run(text string) {
	b.start("r")
	for i, part := range strings.Split(text, "\n") {
		if i > 0 {
			b.empty("br")
		}
		for j, seg := range strings.Split(part, "\t") {
			if j > 0 {
				b.empty("tab")
			}
			if seg != "" {
				b.start("t", "space", "preserve") // rendered w:space; harmless
				_ = b.enc.EncodeToken(xml.CharData(seg))
				b.end("t")
			}
		}
	}
	b.end("r")
}

// para writes a paragraph with an optional style ID and its runs.
func (b *docxBuilder) para(style string, runs ...string) *docxBuilder {
	b.start("p")
	if style != "" {
		b.start("pPr")
		b.empty("pStyle", "val", style)
		b.end("pPr")
	}
	for _, r := range runs {
		b.run(r)
	}
	b.end("p")
	return b
}

func (b *docxBuilder) table(rows ...[]string) *docxBuilder {
	b.start("tbl")
	for _, row := range rows {
		b.start("tr")
		for _, cell := range row {
			b.start("tc")
			for _, p := range strings.Split(cell, "¶") {
				b.para("", p)
			}
			b.end("tc")
		}
		b.end("tr")
	}
	b.end("tbl")
	return b
}

func (b *docxBuilder) raw(s string) *docxBuilder {
	_ = b.enc.Flush()
	b.body.WriteString(s)
	return b
}

func (b *docxBuilder) style(id, name, basedOn string) *docxBuilder {
	b.styles = append(b.styles, docxTestStyle{id, name, basedOn})
	return b
}

const wordNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

func (b *docxBuilder) bytes(t *testing.T) []byte {
	t.Helper()
	if err := b.enc.Flush(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	add := func(name, content string) {
		f, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	add("[Content_Types].xml", xml.Header+`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`+
		`<Default Extension="xml" ContentType="application/xml"/>`+
		`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	add("word/document.xml", xml.Header+`<w:document xmlns:w="`+wordNS+`"><w:body>`+b.body.String()+`</w:body></w:document>`)
	if len(b.styles) > 0 {
		var s bytes.Buffer
		s.WriteString(xml.Header + `<w:styles xmlns:w="` + wordNS + `">`)
		for _, st := range b.styles {
			s.WriteString(`<w:style w:type="paragraph" w:styleId="` + st.id + `"><w:name w:val="` + st.name + `"/>`)
			if st.basedOn != "" {
				s.WriteString(`<w:basedOn w:val="` + st.basedOn + `"/>`)
			}
			s.WriteString(`</w:style>`)
		}
		s.WriteString(`</w:styles>`)
		add("word/styles.xml", s.String())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestParseDocumentDocx(t *testing.T) {
	data := newDocx().
		para("Title", "Manual de ", "Pragas").
		para("", "Introdução geral & <resumo>.").
		para("Heading1", "Soja").
		para("", "Ferrugem asiática:\tusar fungicida.").
		table([]string{"Praga", "Dose"}, []string{"Ferrugem", "0,5 L/ha¶antes da floração"}, []string{"", ""}).
		para("Heading2", "Doses").
		para("", "Linha 1\nLinha 2").
		para("Título1", "Milho").
		para("Ttulo2", "Cigarrinha").
		para("", "Controle químico.").
		para("", "   ").
		bytes(t)
	d, err := ParseDocument("manuais/pragas.docx", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantContent := "Manual de Pragas\n\n" +
		"Introdução geral & <resumo>.\n\n" +
		"Soja\n\n" +
		"Ferrugem asiática:\tusar fungicida.\n\n" +
		"Praga | Dose\nFerrugem | 0,5 L/ha antes da floração\n\n" +
		"Doses\n\n" +
		"Linha 1\nLinha 2\n\n" +
		"Milho\n\n" +
		"Cigarrinha\n\n" +
		"Controle químico."
	if d.Content != wantContent {
		t.Errorf("content:\n%s\nwant:\n%s", d.Content, wantContent)
	}
	if d.ID != "manuais/pragas.docx" || d.Source != "manuais/pragas.docx" || d.Title != "Manual de Pragas" || d.Metadata["format"] != formatDocx {
		t.Errorf("id %q source %q title %q metadata %v", d.ID, d.Source, d.Title, d.Metadata)
	}
	type sec struct {
		Level int
		Path  string
		Text  string
	}
	var got []sec
	for _, s := range d.Sections {
		first, _, _ := strings.Cut(d.Content[s.Start:s.End], "\n")
		got = append(got, sec{s.Level, strings.Join(s.HeadingPath, " › "), first})
	}
	want := []sec{
		{0, "Manual de Pragas", "Manual de Pragas"},
		{1, "Manual de Pragas › Soja", "Soja"},
		{2, "Manual de Pragas › Soja › Doses", "Doses"},
		{1, "Manual de Pragas › Milho", "Milho"},
		{2, "Manual de Pragas › Milho › Cigarrinha", "Cigarrinha"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if last := d.Sections[len(d.Sections)-1]; last.End != len(d.Content) {
		t.Errorf("last section ends at %d, want %d", last.End, len(d.Content))
	}
	// The structural splitter accepts the sections and keeps the paths.
	st, err := chunk.NewStructural(chunk.StructuralOptions{MaxTokens: 10, OverlapTokens: -1, MinTokens: -1})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := st.Split(d.Content, d.Sections)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(chunks[len(chunks)-1].HeadingPath, chunk.HeadingSeparator); got != "Manual de Pragas › Milho › Cigarrinha" {
		t.Errorf("last chunk heading = %q", got)
	}
}

func TestParseDocumentDocxStyles(t *testing.T) {
	tests := []struct {
		name      string
		doc       *docxBuilder
		wantLevel []int
	}{
		{"localized style IDs resolved by built-in names",
			newDocx().style("Ttulo1", "heading 1", "Normal").style("Ttulo", "Title", "").style("Corpo", "Body Text", "Normal").
				para("Ttulo", "T").para("Ttulo1", "A").para("Corpo", "texto"),
			[]int{0, 1}},
		{"custom style based on a heading",
			newDocx().style("MeuTitulo", "Meu Título", "Heading2").style("Heading2", "heading 2", "").
				para("MeuTitulo", "A").para("", "x"),
			[]int{2}},
		{"paragraph outline level",
			newDocx().raw(`<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>A</w:t></w:r></w:p>`).para("", "x"),
			[]int{3}},
		{"subtitle and normal are not headings",
			newDocx().para("Subtitle", "S").para("Normal", "N").para("Heading9", "H9"),
			[]int{9}},
		{"empty heading paragraph ignored",
			newDocx().para("Heading1", "").para("Heading1", "A").para("", "x"),
			[]int{1}},
		{"heading inside a table is cell text",
			newDocx().raw(`<w:tbl><w:tr><w:tc><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>célula</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`),
			nil},
		{"mc:Fallback content not duplicated",
			newDocx().raw(`<w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:txbxContent><w:p><w:r><w:t>caixa</w:t></w:r></w:p></w:txbxContent></mc:Choice><mc:Fallback><w:txbxContent><w:p><w:r><w:t>caixa</w:t></w:r></w:p></w:txbxContent></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>fim</w:t></w:r></w:p>`),
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDocument("a.docx", tt.doc.bytes(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			var levels []int
			for _, s := range d.Sections {
				levels = append(levels, s.Level)
			}
			if diff := cmp.Diff(tt.wantLevel, levels); diff != "" {
				t.Errorf("levels (-want +got):\n%s\ncontent %q", diff, d.Content)
			}
			if strings.Count(d.Content, "caixa") > 1 {
				t.Errorf("text box duplicated: %q", d.Content)
			}
		})
	}
}

func TestHeadingLevelOfName(t *testing.T) {
	tests := map[string]int{
		"Heading1": 1, "heading 2": 2, "Título1": 1, "Titulo 3": 3, "Ttulo4": 4, "Title": 0, "Título": 0,
		"Ttulo": 0, "Subtitle": -1, "Normal": -1, "Heading": -1, "Heading10": -1, "Title1": -1, "": -1,
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := headingLevelOfName(in); got != want {
				t.Errorf("headingLevelOfName(%q) = %d, want %d", in, got, want)
			}
		})
	}
}

func TestParseDocumentDocxInvalid(t *testing.T) {
	noDoc := func() []byte {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		f, _ := zw.Create("word/other.xml")
		f.Write([]byte("<x/>"))
		zw.Close()
		return b.Bytes()
	}()
	badXML := newDocx().raw("<w:p><w:r><w:t>aberto").bytes(t)
	tests := []struct {
		name   string
		data   []byte
		opts   *Options
		target error
	}{
		{"not a zip", []byte("this is plain text, not a zip"), nil, ErrInvalidDocx},
		{"empty file", nil, nil, ErrInvalidDocx},
		{"zip without word/document.xml", noDoc, nil, ErrInvalidDocx},
		{"malformed XML", badXML, nil, ErrInvalidDocx},
		{"unzipped part too large", newDocx().para("", strings.Repeat("a", 5000)).bytes(t), &Options{MaxFileBytes: 4000}, ErrFileTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDocument("dir/bad.docx", tt.data, tt.opts)
			var re *RecordError
			if !errors.As(err, &re) || re.File != "dir/bad.docx" {
				t.Fatalf("err = %v, want a *RecordError naming the file", err)
			}
			if !errors.Is(err, tt.target) {
				t.Errorf("err = %v, want %v", err, tt.target)
			}
		})
	}
}
