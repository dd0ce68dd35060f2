package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/lexical"
)

// labelWidth aligns the labels of the human report.
const labelWidth = 12

// maxTags is how many tags a hit shows without -explain.
const maxTags = 8

// printer writes the human report.
type printer struct {
	w       *bufio.Writer
	color   bool
	explain bool
	snippet int
}

// ANSI styles, used only when stdout is a terminal.
const (
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
	ansiCyan  = "\x1b[36m"
	ansiReset = "\x1b[0m"
)

func (p *printer) style(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// line writes one "label  value" line with the given indent.
func (p *printer) line(indent int, label, format string, args ...any) {
	pad := strings.Repeat(" ", indent)
	lbl := fmt.Sprintf("%-*s", labelWidth, label)
	fmt.Fprintf(p.w, "%s%s%s\n", pad, p.style(ansiDim, lbl), fmt.Sprintf(format, args...))
}

// cont writes a continuation line aligned with the values.
func (p *printer) cont(indent int, format string, args ...any) {
	fmt.Fprintf(p.w, "%s%s\n", strings.Repeat(" ", indent+labelWidth), fmt.Sprintf(format, args...))
}

// printReport writes rep in human form: explain adds the full score
// breakdowns, color ANSI styles, and snippets are cut to snippet characters.
func printReport(w io.Writer, rep *report, explain, color bool, snippet int) error {
	p := &printer{w: bufio.NewWriter(w), color: color, explain: explain, snippet: snippet}
	p.header(rep)
	for i := range rep.Hits {
		p.hit(&rep.Hits[i])
	}
	if rep.Context != "" {
		fmt.Fprintf(p.w, "\ncontext:\n%s\n", rep.Context)
	}
	return p.w.Flush()
}

func (p *printer) header(rep *report) {
	q := &rep.Query
	p.line(0, "query", "%s", strconv.Quote(q.Text))
	p.line(0, "tokens", "%s", list(q.Tokens))
	p.line(0, "terms", "%s", list(q.Terms))
	p.line(0, "synonyms", "%s", mentions(q.Synonyms, true))
	p.line(0, "cultures", "%s", mentions(q.Cultures, false))
	p.line(0, "treatments", "%s", mentions(q.Treatments, false))
	if len(q.Generics) > 0 {
		p.line(0, "generics", "%s", mentions(q.Generics, false))
	}
	p.line(0, "fallback", "%s", yesNo(q.Fallback, "yes (no token survived: the whole normalized query is the term)", "no"))
	p.line(0, "search", "kind=%s store=%s tenant=%s dims=%d embedder=%s", rep.Kind, rep.Store, rep.Tenant, rep.Dimensions, rep.Embedder)
	p.cont(0, "mode=%s legs=%s fusion=%s limit=%d", rep.Mode, rep.Legs, rep.Fusion, rep.Limit)
	if len(rep.Filters) > 0 {
		p.line(0, "filters", "%s", filterText(rep.Filters))
	}
	p.line(0, "counts", "lexical=%d vector=%d", rep.LexicalCount, rep.VectorCount)
	reason := rep.FallbackReason
	if reason == "" {
		reason = "-"
	}
	p.line(0, "embedding", "embedding_used=%t fallback_reason=%s", rep.EmbeddingUsed, reason)
	if rep.VectorError != "" {
		p.cont(0, "vector error: %s", rep.VectorError)
	}
	t := rep.Timings
	p.line(0, "timings", "lexical %s · embed %s · vector %s · fetch %s · merge %s · rerank %s · total %s",
		msStr(t.Lexical), msStr(t.Embed), msStr(t.Vector), msStr(t.Fetch), msStr(t.Merge), msStr(t.Rerank), msStr(t.Total))
	if ix := rep.Index; ix != nil {
		p.line(0, "index", "items=%d faqs=%d documents=%d chunks=%d embedded=%d load %s · index %s",
			ix.Items, ix.FAQs, ix.Documents, ix.Chunks, ix.Embedded, msStr(ix.LoadMS), msStr(ix.IndexMS))
	}
	fmt.Fprintln(p.w)
	switch len(rep.Hits) {
	case 0:
		fmt.Fprintln(p.w, "no hits")
	case 1:
		fmt.Fprintln(p.w, "1 hit")
	default:
		fmt.Fprintf(p.w, "%d hits\n", len(rep.Hits))
	}
}

const hitIndent = 4

func (p *printer) hit(h *hitReport) {
	fmt.Fprintln(p.w)
	rank := fmt.Sprintf("%2d.", h.Rank)
	fmt.Fprintf(p.w, "%s %s  %s\n", p.style(ansiBold, rank), p.style(ansiCyan, h.ID), p.style(ansiBold, oneLine(h.Title, 100)))
	p.line(hitIndent, "score", "%s  source=%s", fnum(h.Score), h.Source)
	if h.Category != "" || h.Manufacturer != "" {
		p.line(hitIndent, "category", "%s", joinNonEmpty(" · ", h.Category, h.Manufacturer))
	}
	if len(h.Tags) > 0 {
		p.line(hitIndent, "tags", "%s", p.tags(h.Tags))
	}
	if len(h.Keywords) > 0 {
		p.line(hitIndent, "keywords", "%s", strings.Join(h.Keywords, ", "))
	}
	if h.DocSource != "" {
		p.line(hitIndent, "doc source", "%s", h.DocSource)
	}
	p.fused(h)
	p.lexical(h.Lexical)
	if v := h.Vector; v != nil {
		p.line(hitIndent, "vector", "rank %d · distance %.4f · similarity %.4f · chunks %d", v.Rank, v.Distance, v.Similarity, v.Chunks)
	} else {
		p.line(hitIndent, "vector", "-")
	}
	if h.Snippet != "" {
		p.line(hitIndent, "snippet", "%s", oneLine(h.Snippet, p.snippet))
	}
}

func (p *printer) tags(tags []string) string {
	if p.explain || len(tags) <= maxTags {
		return strings.Join(tags, ", ")
	}
	return strings.Join(tags[:maxTags], ", ") + fmt.Sprintf(", … (+%d)", len(tags)-maxTags)
}

// fused writes the fused score's explanation.
func (p *printer) fused(h *hitReport) {
	e := &h.Explanation
	if c := e.Combined; c != nil {
		parts := []string{
			fmt.Sprintf("vector %s×%s=%s", fnum(c.Vector.Normalized), fnum(c.Vector.Weight), fnum(c.Vector.Contribution)),
			fmt.Sprintf("lexical %s×%s=%s", fnum(c.Lexical.Normalized), fnum(c.Lexical.Weight), fnum(c.Lexical.Contribution)),
			fmt.Sprintf("pair %s", fnum(c.Pair.Contribution)),
			fmt.Sprintf("ranks %s+%s", fnum(c.VectorRank.Contribution), fnum(c.LexicalRank.Contribution)),
		}
		p.line(hitIndent, "fused", "%s: %s = %s", e.Method, strings.Join(parts, " + "), fnum(c.Score))
	} else {
		parts := make([]string, 0, len(e.Lists))
		for _, c := range e.Lists {
			if c.Rank == 0 {
				parts = append(parts, c.List+" -")
				continue
			}
			parts = append(parts, fmt.Sprintf("%s #%d %s×%s=%s", c.List, c.Rank, fnum(c.Normalized), fnum(c.Weight), fnum(c.Contribution)))
		}
		p.line(hitIndent, "fused", "%s: %s = %s", e.Method, strings.Join(parts, " + "), fnum(h.Score))
	}
	if !p.explain {
		return
	}
	p.line(hitIndent, "explain", "%-8s %5s %10s %10s %7s %12s", "list", "rank", "raw", "normalized", "weight", "contribution")
	for _, c := range e.Lists {
		rank := "-"
		if c.Rank > 0 {
			rank = strconv.Itoa(c.Rank)
		}
		p.cont(hitIndent, "%-8s %5s %10s %10s %7s %12s", c.List, rank, fnum(c.Raw), fnum(c.Normalized), fnum(c.Weight), fnum(c.Contribution))
	}
	if c := e.Combined; c != nil {
		p.cont(hitIndent, "%-12s %10s %10s %7s %12s", "component", "raw", "normalized", "weight", "contribution")
		for _, r := range []struct {
			name string
			c    componentReport
		}{{"vector", c.Vector}, {"lexical", c.Lexical}, {"pair", c.Pair}, {"vector_rank", c.VectorRank}, {"lexical_rank", c.LexicalRank}} {
			p.cont(hitIndent, "%-12s %10s %10s %7s %12s", r.name, fnum(r.c.Raw), fnum(r.c.Normalized), fnum(r.c.Weight), fnum(r.c.Contribution))
		}
		p.cont(hitIndent, "%-12s %41s", "combined", fnum(c.Score))
	}
}

// lexical writes the lexical signals.
func (p *printer) lexical(l *lexicalReport) {
	if l == nil {
		p.line(hitIndent, "lexical", "-")
		return
	}
	rank := "vector-only, scored for fusion"
	if l.Rank > 0 {
		rank = fmt.Sprintf("rank %d · %d term(s) matched", l.Rank, l.TermsMatched)
	}
	p.line(hitIndent, "lexical", "%s · score %s", rank, fnum(l.Score))
	if len(l.Matched) > 0 {
		ms := make([]string, len(l.Matched))
		for i, m := range l.Matched {
			t := m.Term
			if m.Synonym {
				t += "*"
			}
			ms[i] = t + "→" + strings.Join(m.Fields, ",")
		}
		p.line(hitIndent, "matched", "%s", strings.Join(ms, "  "))
	}
	var sig []string
	if len(l.Cultures) > 0 {
		c := "cultures " + strings.Join(l.Cultures, ",")
		if l.CultureInTag {
			c += " (in tag)"
		}
		sig = append(sig, c)
	}
	if len(l.Treatments) > 0 {
		sig = append(sig, "treatments "+strings.Join(l.Treatments, ","))
	}
	if l.Pair {
		sig = append(sig, "culture+treatment pair")
	}
	if len(sig) > 0 {
		p.line(hitIndent, "signals", "%s", strings.Join(sig, " · "))
	}
	if b := l.Breakdown; b != nil && p.explain {
		p.line(hitIndent, "breakdown", "fields %s + matches %s + culture %s + treatment %s + pair %s + culture_in_tag %s = %s",
			fnum(b.Fields), fnum(b.Matches), fnum(b.Subject), fnum(b.Class), fnum(b.Pair), fnum(b.SubjectInTag), fnum(b.Total()))
		for _, m := range l.Matched {
			syn := ""
			if m.Synonym {
				syn = " (synonym)"
			}
			p.cont(hitIndent, "%s%s → %s (idf %s)", m.Term, syn, strings.Join(m.Fields, ", "), fnum(m.IDF))
		}
	}
}

// list joins words for display.
func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, " · ")
}

// mentions shows synonym mentions as "text → canonical (category)".
func mentions(ms []lexical.Mention, withCategory bool) string {
	if len(ms) == 0 {
		return "-"
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		s := m.Canonical
		if m.Text != "" && m.Text != m.Term {
			s = m.Text + " → " + m.Canonical
		}
		if withCategory {
			s += " (" + categoryLabel(m.Category) + ")"
		}
		out[i] = s
	}
	return strings.Join(out, " · ")
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// fnum formats a score compactly: up to 4 decimals, trailing zeros cut.
func fnum(f float64) string {
	s := strconv.FormatFloat(f, 'f', 4, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// msStr formats milliseconds.
func msStr(ms float64) string {
	switch {
	case ms == 0:
		return "0"
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64) + "ms"
	default:
		return strconv.FormatFloat(ms, 'f', 1, 64) + "ms"
	}
}

// oneLine collapses white space and cuts s to n characters with "…".
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return strings.TrimSpace(s[:j]) + "…"
		}
		i++
	}
	return s
}

// categoryLabel names a synonym category as the agronomy store speaks of
// it: the library's generic subject and class are its cultures and
// treatments.
func categoryLabel(c lexical.Category) string {
	switch c {
	case lexical.CategorySubject:
		return "culture"
	case lexical.CategoryClass:
		return "treatment"
	}
	return string(c)
}
