package load

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/hybridrag/hybridrag/rag/chunk"
)

// parseMarkdown finds the structure of a Markdown document with goldmark:
// every top-level ATX or setext heading starts a section at its line. A
// leading YAML-style front matter block ("---" lines around "key: value"
// lines) is removed from the content and returned as metadata with
// lower-cased keys. The title is the first heading's text.
func parseMarkdown(src string) (content string, sections []chunk.Section, title string, meta map[string]string) {
	content, meta = frontMatter(src)
	source := []byte(content)
	doc := goldmark.DefaultParser().Parse(text.NewReader(source))
	type stackEntry struct {
		level int
		text  string
	}
	var stack []stackEntry
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		htext := headingText(h, source)
		if htext == "" {
			continue
		}
		start := h.Pos()
		if start < 0 && h.Lines().Len() > 0 {
			start = h.Lines().At(0).Start
		}
		if start < 0 || start > len(content) {
			continue
		}
		start = strings.LastIndexByte(content[:start], '\n') + 1 // line start
		if len(sections) > 0 && start <= sections[len(sections)-1].Start {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, stackEntry{h.Level, htext})
		path := make([]string, len(stack))
		for i, e := range stack {
			path[i] = e.text
		}
		sections = append(sections, chunk.Section{Start: start, Level: h.Level, HeadingPath: path})
		if title == "" {
			title = htext
		}
	}
	closeSections(sections, len(content))
	return content, sections, title, meta
}

// closeSections sets each section's End to the next one's Start.
func closeSections(sections []chunk.Section, end int) {
	for i := range sections {
		if i+1 < len(sections) {
			sections[i].End = sections[i+1].Start
		} else {
			sections[i].End = end
		}
	}
}

// headingText returns the plain text of a heading's inline content.
func headingText(h ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// frontMatter splits a leading "---" ... "---" block of "key: value" lines
// from src. Anything else is left alone.
func frontMatter(src string) (string, map[string]string) {
	if !strings.HasPrefix(src, "---\n") {
		return src, nil
	}
	end := strings.Index(src[4:], "\n---")
	if end < 0 {
		return src, nil
	}
	block := src[4 : 4+end]
	rest := src[4+end+4:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 && strings.TrimSpace(rest[:i]) == "" {
		rest = rest[i+1:]
	} else if strings.TrimSpace(rest) != "" {
		return src, nil // "---" followed by text: not a front matter fence
	}
	meta := map[string]string{}
	for _, line := range strings.Split(block, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "- ") || line[0] == ' ' || line[0] == '\t' {
			continue // blank, comment, or nested YAML: not ours
		}
		k, v, ok := strings.Cut(t, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return src, nil // not a front matter block
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		if v != "" {
			meta[strings.ToLower(k)] = v
		}
	}
	if len(meta) == 0 {
		return src, nil
	}
	return rest, meta
}
