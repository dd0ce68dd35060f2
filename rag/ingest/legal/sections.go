package legal

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/load"
)

// DocumentSections implements ingest.Sectioner: an Indexer running this
// Extractor chunks a statute at its articles: one section per article, from its
// "Art. 5º" line to the next article or heading (see the package doc). It returns
// nil, leaving the loader's sections, for a document that is no statute.
func (e *Extractor) DocumentSections(_ context.Context, d *load.ParsedDocument) ([]chunk.Section, error) {
	return sections(d.Title, d.Content, d.Sections), nil
}

// sections returns the sections a statute is chunked by, so that no chunk
// spans two articles: one section per article, from its "Art. 5º" line to
// the next article, Título, Capítulo, Seção or Markdown heading. Headings
// right before an article (a "CAPÍTULO II" line and the chapter's name)
// open the article's section instead of being a chunk of their own;
// text before the first unit (the act's name, the ementa) stays an
// untitled section. Each of these sections has Level 1, so a
// chunk.Structural splitter (BreakLevel at least 1, the default 2) starts
// a chunk at each, never merges two, and cuts a long article within it,
// where the Extractor then labels each piece with its paragraph, inciso
// or alínea.
//
// The loader's sections (Markdown or Word headings, given as loader) are
// kept, with their level, between those boundaries. A section's
// HeadingPath is the loader's path at its start followed by the units in
// effect that begin inside that loader section ("CAPÍTULO II", "Art. 3º"
// for a plain-text law; "Art. 3º" under the loader's "## CAPÍTULO II").
// Articles are labelled canonically: "Art. 5º", "Art. 10", "Art. 1.000",
// "Art. 5º-A"; headings by their line.
//
// A document is a statute when its text has an article line and
// documentType names an act in its title or first lines, or when it has at
// least two article lines; sections returns nil for any other.
func sections(title, content string, loader []chunk.Section) []chunk.Section {
	events := parse(content)
	arts := 0
	for _, e := range events {
		if e.lv == lvArtigo {
			arts++
		}
	}
	if arts == 0 {
		return nil
	}
	if arts < 2 {
		if typ, _, _ := documentType(title, content); typ == "" {
			return nil
		}
	}

	// labels[i] are the units in effect, título to artigo, once events[i]
	// is applied.
	type label struct {
		off  int
		text string
	}
	labels := make([][lvArtigo + 1]label, len(events))
	var cur [lvArtigo + 1]label
	for i, e := range events {
		switch {
		case e.lv <= lvArtigo:
			text := "Art. " + articleNumber(e.value)
			if e.lv < lvArtigo {
				text = headingLine(content, e.off)
			}
			cur[e.lv] = label{e.off, text}
			for l := e.lv + 1; l <= lvArtigo; l++ {
				cur[l] = label{}
			}
		case e.lv == lvOther:
			cur[lvArtigo] = label{}
		}
		labels[i] = cur
	}

	// Boundaries: each article, or the first of the headings right
	// before it; each heading that no article follows; each Markdown
	// heading naming no unit. at is the event whose units name the
	// section.
	type bound struct {
		off, level, at int
	}
	var bounds []bound
	heads := false // bounds ends with a heading no article has followed yet
	for i, e := range events {
		switch {
		case e.lv <= lvArtigo: // a heading, or the article it opens
			if heads {
				bounds[len(bounds)-1].at = i
			} else {
				bounds = append(bounds, bound{e.off, 1, i})
			}
			heads = e.lv < lvArtigo
		case e.lv == lvOther:
			bounds = append(bounds, bound{e.off, 1, i})
			heads = false
		}
	}
	// The loader's sections between them.
	for _, s := range loader {
		i := sort.Search(len(bounds), func(i int) bool { return bounds[i].off >= s.Start })
		if i < len(bounds) && bounds[i].off == s.Start {
			continue
		}
		at := sort.Search(len(events), func(i int) bool { return events[i].off > s.Start }) - 1
		bounds = slices.Insert(bounds, i, bound{s.Start, s.Level, at})
	}

	// sub[j] reports that loader[j]'s heading names a unit inside an
	// article ("### § 1º"): the next article ends it.
	sub := make([]bool, len(loader))
	for j, s := range loader {
		if s.Start < len(content) {
			ev, ok := classify(strings.TrimLeft(content[s.Start:], " \t\r\u00a0"))
			sub[j] = ok && ev.lv >= lvParagrafo && ev.lv < numLevels
		}
	}

	out := make([]chunk.Section, len(bounds))
	for i, b := range bounds {
		end := len(content)
		if i+1 < len(bounds) {
			end = bounds[i+1].off
		}
		// The path of the loader's section enclosing b that is no unit
		// inside an article, then the units begun after that section's
		// heading, then b's own heading when it names such a unit.
		j := sort.Search(len(loader), func(j int) bool { return loader[j].Start > b.off })
		var own string
		if j > 0 && loader[j-1].Start == b.off && sub[j-1] && len(loader[j-1].HeadingPath) > 0 {
			own = loader[j-1].HeadingPath[len(loader[j-1].HeadingPath)-1]
		}
		for j > 0 && sub[j-1] {
			j--
		}
		var path []string
		ls := -1
		if j > 0 {
			path = slices.Clone(loader[j-1].HeadingPath)
			ls = loader[j-1].Start
		}
		if b.at >= 0 {
			for _, l := range labels[b.at] {
				if l.text != "" && l.off > ls {
					path = append(path, l.text)
				}
			}
		}
		if own != "" {
			path = append(path, own)
		}
		out[i] = chunk.Section{Start: b.off, End: end, Level: b.level, HeadingPath: path}
	}
	return out
}

// articleNumber writes an article's value as a statute does: ordinal up
// to the ninth ("5º", "5º-A"), cardinal after ("10"), thousands separated
// by a dot ("1.000").
func articleNumber(v string) string {
	num, suffix, _ := strings.Cut(v, "-")
	if suffix != "" {
		suffix = "-" + suffix
	}
	n, err := strconv.Atoi(num)
	switch {
	case err != nil:
		return v
	case n < 10:
		return num + "º" + suffix
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "." + s[i:]
	}
	return s + suffix
}

// headingLine returns the line at off without Markdown heading marker,
// emphasis or surrounding space: "CAPÍTULO II".
func headingLine(content string, off int) string {
	line := content[off:]
	if n := strings.IndexByte(line, '\n'); n >= 0 {
		line = line[:n]
	}
	line = strings.TrimLeft(line, " \t\r\u00a0")
	if loc := mdHeadingRE.FindStringIndex(line); loc != nil {
		line = line[loc[1]:]
	}
	return strings.Trim(line, "*_> \t\r\u00a0")
}
