package load

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/chunk"
)

// parseDocx extracts the text of a Word .docx (OOXML) file: paragraphs in
// order, separated by blank lines; each table as one block with a line per
// row and " | " between cells. Paragraphs whose style (or outline level) is
// a heading become sections: Title → level 0, Heading N / Título N → level
// N. The style of a paragraph is resolved through word/styles.xml when
// present (built-in names "heading N" and "Title", outline levels, basedOn
// chains), otherwise from the style ID ("Heading1", "Ttulo1", "Título1",
// "Title", ...). The title is the first heading's text.
func parseDocx(data []byte, limit int64, cl cleaner) (string, []chunk.Section, string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", nil, "", fmt.Errorf("%w: not a zip archive: %v", ErrInvalidDocx, err)
	}
	var docFile, stylesFile *zip.File
	for _, f := range zr.File {
		switch strings.ToLower(f.Name) {
		case "word/document.xml":
			docFile = f
		case "word/styles.xml":
			stylesFile = f
		}
	}
	if docFile == nil {
		return "", nil, "", fmt.Errorf("%w: no word/document.xml", ErrInvalidDocx)
	}
	styles := map[string]docxStyle{}
	if stylesFile != nil {
		// Styles only refine heading detection; a broken styles part is
		// not fatal.
		if s, err := readDocxStyles(stylesFile, limit); err == nil {
			styles = s
		}
	}
	rc, err := docFile.Open()
	if err != nil {
		return "", nil, "", fmt.Errorf("%w: %v", ErrInvalidDocx, err)
	}
	defer rc.Close()
	w := &docxWriter{styles: styles, cl: cl}
	if err := w.parse(newLimitedReader(rc, limit)); err != nil {
		if errors.Is(err, ErrFileTooLarge) {
			return "", nil, "", err
		}
		return "", nil, "", fmt.Errorf("%w: word/document.xml: %v", ErrInvalidDocx, err)
	}
	closeSections(w.sections, w.b.Len())
	return w.b.String(), w.sections, w.title, nil
}

// limitedReader fails with ErrFileTooLarge after left bytes, so a zip bomb
// cannot exhaust memory.
type limitedReader struct {
	r           io.Reader
	left, limit int64
}

func newLimitedReader(r io.Reader, limit int64) *limitedReader {
	return &limitedReader{r: r, left: limit, limit: limit}
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%w: unzipped part over %d bytes", ErrFileTooLarge, l.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// docxStyle is what heading detection needs from a paragraph style.
type docxStyle struct {
	name    string // built-in name, e.g. "heading 1"
	basedOn string
	outline int // outline level + 1, or 0 when unset
}

func attr(se xml.StartElement, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

func readDocxStyles(f *zip.File, limit int64) (map[string]docxStyle, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	dec := xml.NewDecoder(newLimitedReader(rc, limit))
	styles := map[string]docxStyle{}
	var id string
	var cur docxStyle
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return styles, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				id, _ = attr(t, "styleId")
				cur = docxStyle{}
			case "name":
				cur.name, _ = attr(t, "val")
			case "basedOn":
				cur.basedOn, _ = attr(t, "val")
			case "outlineLvl":
				if v, ok := attr(t, "val"); ok {
					if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 9 {
						cur.outline = n + 1
					}
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" && id != "" {
				styles[id] = cur
				id = ""
			}
		}
	}
}

// headingLevelOfName maps a style name or ID to a heading level: 0 for a
// title, N for "heading N" / "título N" (also Word's pt-BR style ID
// "Ttulo1"), -1 otherwise.
func headingLevelOfName(s string) int {
	k := strings.ReplaceAll(lexical.Normalize(s), " ", "")
	i := len(k)
	for i > 0 && k[i-1] >= '0' && k[i-1] <= '9' {
		i--
	}
	prefix, digits := k[:i], k[i:]
	switch prefix {
	case "title", "titulo", "ttulo":
		if digits == "" {
			return 0
		}
		if prefix == "title" {
			return -1
		}
	case "heading", "cabecalho":
		if digits == "" {
			return -1
		}
	default:
		return -1
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > 9 {
		return -1
	}
	return n
}

// styleLevel resolves the heading level of a style ID, or -1.
func (w *docxWriter) styleLevel(id string) int {
	for depth := 0; id != "" && depth < 10; depth++ {
		st, ok := w.styles[id]
		if ok {
			if st.name != "" {
				if l := headingLevelOfName(st.name); l >= 0 {
					return l
				}
			}
			if st.outline > 0 {
				return st.outline
			}
		}
		if l := headingLevelOfName(id); l >= 0 {
			return l
		}
		if !ok {
			return -1
		}
		id = st.basedOn
	}
	return -1
}

// docxWriter accumulates the text and sections of document.xml.
type docxWriter struct {
	styles   map[string]docxStyle
	cl       cleaner
	b        strings.Builder
	sections []chunk.Section
	title    string
	stack    []string // heading path
	levels   []int
}

// docxPara is a paragraph being read.
type docxPara struct {
	text    strings.Builder
	style   string
	outline int // paragraph outline level + 1, or 0
}

// docxTable is a table being read.
type docxTable struct {
	rows  []string
	cells []string
	cell  []string // paragraphs of the current cell
}

func (w *docxWriter) parse(r io.Reader) error {
	dec := xml.NewDecoder(r)
	var paras []*docxPara
	var tables []*docxTable
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			var p *docxPara
			if len(paras) > 0 {
				p = paras[len(paras)-1]
			}
			switch t.Name.Local {
			case "Fallback": // mc:Fallback repeats mc:Choice's content
				if err := dec.Skip(); err != nil {
					return err
				}
			case "p":
				paras = append(paras, &docxPara{})
			case "pStyle":
				if p != nil {
					p.style, _ = attr(t, "val")
				}
			case "outlineLvl":
				if p != nil {
					if v, ok := attr(t, "val"); ok {
						if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 9 {
							p.outline = n + 1
						}
					}
				}
			case "t":
				inText = true
			case "tab":
				if p != nil {
					p.text.WriteByte('\t')
				}
			case "br", "cr":
				if p != nil {
					p.text.WriteByte('\n')
				}
			case "noBreakHyphen":
				if p != nil {
					p.text.WriteByte('-')
				}
			case "tbl":
				tables = append(tables, &docxTable{})
			case "tc":
				if n := len(tables); n > 0 {
					tables[n-1].cell = nil
				}
			}
		case xml.CharData:
			if inText && len(paras) > 0 {
				paras[len(paras)-1].text.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if len(paras) == 0 {
					continue
				}
				p := paras[len(paras)-1]
				paras = paras[:len(paras)-1]
				text := w.cl.field(p.text.String())
				switch {
				case text == "":
				case len(paras) > 0: // a text box inside a paragraph
					parent := paras[len(paras)-1]
					parent.text.WriteString(" " + text)
				case len(tables) > 0:
					tb := tables[len(tables)-1]
					tb.cell = append(tb.cell, text)
				default:
					w.paragraph(p, text)
				}
			case "tc":
				if n := len(tables); n > 0 {
					tb := tables[n-1]
					tb.cells = append(tb.cells, strings.Join(tb.cell, " "))
					tb.cell = nil
				}
			case "tr":
				if n := len(tables); n > 0 {
					tb := tables[n-1]
					if row := strings.Join(tb.cells, " | "); strings.Trim(row, " |") != "" {
						tb.rows = append(tb.rows, row)
					}
					tb.cells = nil
				}
			case "tbl":
				if n := len(tables); n > 0 {
					tb := tables[n-1]
					tables = tables[:n-1]
					text := strings.Join(tb.rows, "\n")
					switch {
					case text == "":
					case len(tables) > 0: // nested table: text of the outer cell
						outer := tables[len(tables)-1]
						outer.cell = append(outer.cell, strings.ReplaceAll(text, "\n", "; "))
					default:
						w.block(text)
					}
				}
			}
		}
	}
}

// block appends a block of text, separated from the previous by a blank
// line, and returns its offset.
func (w *docxWriter) block(text string) int {
	if w.b.Len() > 0 {
		w.b.WriteString("\n\n")
	}
	off := w.b.Len()
	w.b.WriteString(text)
	return off
}

func (w *docxWriter) paragraph(p *docxPara, text string) {
	level := -1
	if p.outline > 0 {
		level = p.outline
	}
	if l := w.styleLevel(p.style); l >= 0 && (level < 0 || l == 0) {
		level = l
	}
	off := w.block(text)
	if level < 0 {
		return
	}
	heading := strings.Join(strings.Fields(text), " ")
	for len(w.levels) > 0 && w.levels[len(w.levels)-1] >= level {
		w.levels = w.levels[:len(w.levels)-1]
		w.stack = w.stack[:len(w.stack)-1]
	}
	w.levels = append(w.levels, level)
	w.stack = append(w.stack, heading)
	w.sections = append(w.sections, chunk.Section{Start: off, Level: level, HeadingPath: append([]string(nil), w.stack...)})
	if w.title == "" {
		w.title = heading
	}
}
