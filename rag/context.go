package rag

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/internal/chunkagg"
	"github.com/hybridrag/hybridrag/internal/textutil"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/storage"
)

// The pt-BR sentences of the context the answerer reads: fixed, labelled
// sections it can quote from and cite.
const (
	noFAQText      = "Nenhuma FAQ relevante encontrada."
	noDocumentText = "Nenhum documento relevante encontrado."
	// contextPreamble opens the consolidated context.
	contextPreamble = "Contexto consolidado (use-o para responder; não mencione esta seção ao usuário):"
	// QuestionPrefix introduces the user's question after the context.
	QuestionPrefix = "Pergunta do usuário: "
	// hitSeparator joins hits within a section.
	hitSeparator = " || "
	// AbstainContextText replaces the retrieved sections when no hit is
	// relevant: the answerer must say so and must not invent.
	AbstainContextText = "Nenhum registro relevante foi encontrado no catálogo, nas FAQs ou nos documentos para esta pergunta. Diga claramente ao usuário que a loja não tem informação sobre isso, não cite produtos e não invente; se for útil, ofereça o atendimento da equipe técnica."
	// contextAnswerChars caps each FAQ answer in the context, so that one
	// long answer cannot take the whole budget.
	contextAnswerChars = 1200
	// contextSnippetChars caps each catalog and document hit's snippet in
	// the context: 800, the same cap as VectorOptions.SnippetMaxChars,
	// so the context carries the snippet the search made. Against 400 it
	// puts more of the expected facts before the answerer for a small
	// cost in tokens, well under the ContextTokens budget (BENCHMARKS.md,
	// "Measurements behind defaults").
	contextSnippetChars = 800
	// namedLeafletChars bounds the attached files of the one item a
	// question names that its context carries whole (formatCatalogHit).
	namedLeafletChars = 3000
)

// NoCatalogText is the empty catalog sentence for query.
func noCatalogText(query string) string {
	return fmt.Sprintf("Nenhum item do catálogo encontrado para %q.", query)
}

// FormatFAQContext is the FAQ section's body: "Q: … | A: …" joined by
// " || ", or noFAQText. A long answer is cut to the sentences that answer
// q (see question.faqAnswer); a nil q keeps its start.
func formatFAQContext(hits []Hit[storage.FAQ], q *question) string {
	if len(hits) == 0 {
		return noFAQText
	}
	parts := make([]string, len(hits))
	for i := range hits {
		parts[i] = "Q: " + textutil.OneLine(textutil.StripMarkdown(hits[i].Record.Question)) + " | A: " + q.faqAnswer(&hits[i].Record)
	}
	return strings.Join(parts, hitSeparator)
}

// FAQSection is the FAQ context section: "FAQs relevantes (N): …".
func faqSection(hits []Hit[storage.FAQ], q *question) string {
	return fmt.Sprintf("FAQs relevantes (%d): %s", len(hits), formatFAQContext(hits, q))
}

// SourceLabel is the "Fonte" of a hit: lexical, vetorial or
// vetorial+lexical.
func sourceLabel(s Source) string {
	switch s {
	case SourceVector:
		return "vetorial"
	case SourceBoth:
		return "vetorial+lexical"
	}
	return "lexical"
}

// FormatCatalogHit formats one catalog hit for the context: name, category,
// manufacturer, price, tags, source, scores and snippet of hit i
// (0-based). When q finds passages of the item that answer it, they
// replace the snippet ("Trechos: …", best first) after the start of the
// description.
func formatCatalogHit(h Hit[storage.CatalogItem], i int, q *question) string {
	it := &h.Record
	var b strings.Builder
	fmt.Fprintf(&b, "%d. %s", i+1, textutil.OneLine(it.Name))
	if it.Category != "" {
		fmt.Fprintf(&b, " | Categoria: %s", textutil.OneLine(it.Category))
	}
	if it.Manufacturer != "" {
		fmt.Fprintf(&b, " | Fabricante: %s", textutil.OneLine(it.Manufacturer))
	}
	fmt.Fprintf(&b, " | Preço: %s", textutil.FormatPrice(it.Price))
	if !it.Status.Active() {
		// Only the discontinued-product lookup cites an inactive item.
		b.WriteString(" | Situação: descontinuado, fora de venda")
	}
	if len(it.Tags) > 0 {
		fmt.Fprintf(&b, " | Tags: %s", textutil.OneLine(strings.Join(it.Tags, ", ")))
	}
	fmt.Fprintf(&b, " | Fonte: %s", sourceLabel(h.Source))
	var scores []string
	if h.Vector != nil {
		scores = append(scores, fmt.Sprintf("vec:%.3f", h.Vector.Similarity))
	}
	if h.Lexical != nil && h.Lexical.Score > 0 {
		scores = append(scores, fmt.Sprintf("lex:%.2f", h.Lexical.Score))
	}
	if len(scores) > 0 {
		fmt.Fprintf(&b, " | Score: %s", strings.Join(scores, " "))
	}
	if ps := q.itemPassages(it); len(ps) > 0 {
		desc := textutil.OneLine(textutil.StripMarkdown(it.Description))
		if desc != "" && !slices.ContainsFunc(ps, func(p string) bool { return strings.HasPrefix(desc, strings.TrimSuffix(p, "…")) }) {
			fmt.Fprintf(&b, " | Descrição: %s", chunkagg.Truncate(desc, descriptionChars))
		}
		fmt.Fprintf(&b, " | Trechos: %s", quotePassages(ps))
		return b.String()
	}
	snippet := h.Snippet
	if snippet == "" {
		snippet = it.Description
	}
	if snippet = textutil.OneLine(textutil.StripMarkdown(snippet)); snippet != "" {
		fmt.Fprintf(&b, " | Snippet: %s", chunkagg.Truncate(snippet, contextSnippetChars))
	}
	return b.String()
}

// CatalogPayload is the catalog section: a header naming the
// query and the hits joined by " || ", or NoCatalogText.
func catalogPayload(query string, hits []Hit[storage.CatalogItem], q *question) string {
	if len(hits) == 0 {
		return noCatalogText(query)
	}
	// The one item the question names ("qual a carência do Tebucor?")
	// brings its leaflet whole: the passages picked for the question's
	// words miss what it asks in other words ("como guardo ele?" for
	// "Armazenamento", "frasco vazio" for "tríplice lavagem").
	named := -1
	for i := range hits {
		if e := hits[i].Evidence; e != nil && e.Named {
			if named >= 0 {
				named = -1
				break
			}
			named = i
		}
	}
	parts := make([]string, len(hits))
	for i, h := range hits {
		parts[i] = formatCatalogHit(h, i, q)
		if i == named {
			parts[i] += leafletText(&h.Record)
		}
	}
	return fmt.Sprintf("Busca híbrida no catálogo para %q (%d itens): %s", query, len(hits), strings.Join(parts, hitSeparator))
}

// leafletText is " | Bula: …", the item's attached files on one line, up
// to namedLeafletChars; "" when it has none.
func leafletText(it *storage.CatalogItem) string {
	var texts []string
	for _, f := range it.Files {
		if t := textutil.OneLine(textutil.StripMarkdown(f.Text)); t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return " | Bula: " + chunkagg.Truncate(strings.Join(texts, " "), namedLeafletChars)
}

// DocumentCitation is "title › heading path" of a document hit, from its
// best chunk's metadata.
func DocumentCitation(h *Hit[storage.Document]) string {
	if h.Vector != nil {
		if p := strings.Join(h.Vector.HeadingPath, chunk.HeadingSeparator); p != "" {
			if h.Record.Title != "" && !strings.HasPrefix(p, h.Record.Title) {
				return h.Record.Title + chunk.HeadingSeparator + p
			}
			return p
		}
	}
	return h.Record.Title
}

// DocumentSection is the documents context section: "Documentos
// relevantes (N): [1] citation: snippet || …", or noDocumentText. When q
// finds passages of a document that answer it, they replace the snippet
// and the citation names their section.
func documentSection(hits []Hit[storage.Document], q *question) string {
	if len(hits) == 0 {
		return noDocumentText
	}
	parts := make([]string, len(hits))
	for i := range hits {
		if ps, cite := q.documentPassages(&hits[i]); len(ps) > 0 {
			parts[i] = fmt.Sprintf("[%d] %s: %s", i+1, cite, quotePassages(ps))
			continue
		}
		snippet := hits[i].Snippet
		parts[i] = fmt.Sprintf("[%d] %s: %s", i+1, DocumentCitation(&hits[i]), chunkagg.Truncate(textutil.OneLine(textutil.StripMarkdown(snippet)), contextSnippetChars))
	}
	return fmt.Sprintf("Documentos relevantes (%d): %s", len(hits), strings.Join(parts, hitSeparator))
}

// HistorySection renders the recent history: "Histórico recente:" then
// one "Usuário: …" or "Assistente: …" line per turn.
func historySection(history []Turn) string {
	var b strings.Builder
	b.WriteString("Histórico recente:")
	for _, t := range history {
		switch t.Role {
		case llm.RoleUser:
			b.WriteString("\nUsuário: ")
		case llm.RoleAssistant:
			b.WriteString("\nAssistente: ")
		default:
			continue
		}
		b.WriteString(textutil.OneLine(t.Content))
	}
	return b.String()
}

// FormatContext returns the context the Pipeline gives its answerer for
// the hits of one search and the user's message: the preamble, the kind's
// section, then "Pergunta do usuário: " and message, as BuildContext
// joins them. The section is the one the Pipeline writes:
// for catalog items "Busca híbrida no catálogo para <message> (N itens):
// …" with each hit's fields, source, scores and snippet; for FAQs "FAQs
// relevantes (N): Q: … | A: …"; for documents "Documentos relevantes
// (N): [i] title › heading: snippet"; with no hits the kind's "nothing
// found" sentence. Search APIs use it to show what a chat turn would give
// the model for a search's results.
//
// The text equals the Pipeline's Debug.Context for the same hits when the
// turn has no history or summary and plans only that search; the Pipeline
// passes the hits it keeps (the relevant ones, within its relative cut
// and token budget) and abstains instead (AbstainContextText) when none is
// relevant, and its catalog header names the catalog search's text
// (message and, for a follow-up, the previous turn). FormatContext formats
// exactly the hits given, none dropped. It is pure and safe for
// concurrent use.
func FormatContext[T storage.CatalogItem | storage.FAQ | storage.Document](message string, hits []Hit[T]) string {
	var sec ContextSection
	q := defaultQuoter.prepare(message)
	switch h := any(hits).(type) {
	case []Hit[storage.CatalogItem]:
		sec = ContextSection{Name: "catalog", Text: catalogPayload(message, h, q)}
	case []Hit[storage.FAQ]:
		sec = ContextSection{Name: "faqs", Text: faqSection(h, q)}
	case []Hit[storage.Document]:
		sec = ContextSection{Name: "documents", Text: documentSection(h, q)}
	}
	return BuildContext([]ContextSection{sec}, message)
}

// BuildContext joins the sections into the answer payload:
// the preamble, the sections separated by blank lines, and the question.
func BuildContext(sections []ContextSection, message string) string {
	parts := make([]string, 0, len(sections)+2)
	parts = append(parts, contextPreamble)
	for _, s := range sections {
		parts = append(parts, s.Text)
	}
	parts = append(parts, QuestionPrefix+message)
	return strings.Join(parts, "\n\n")
}
