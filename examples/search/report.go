package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
)

// report is everything a search shows, printed as text or as JSON. Field
// names are part of the -json contract: add fields, never rename them.
type report struct {
	Kind           string       `json:"kind"`
	Store          string       `json:"store"` // memory | memfile | postgres
	Tenant         string       `json:"tenant"`
	Dimensions     int          `json:"dimensions"`
	Embedder       string       `json:"embedder"`
	Query          queryReport  `json:"query"`
	Mode           string       `json:"mode"`
	Legs           string       `json:"legs"`
	Fusion         string       `json:"fusion"`
	Limit          int          `json:"limit"`
	LexicalCount   int          `json:"lexical_count"`
	VectorCount    int          `json:"vector_count"`
	EmbeddingUsed  bool         `json:"embedding_used"`
	FallbackReason string       `json:"fallback_reason"`
	VectorError    string       `json:"vector_error,omitempty"`
	Index          *indexReport `json:"index,omitempty"`
	// Filters are the filters of the search (-category, -meta, ...), then
	// the chunk filters (-chunk, field "chunk") and the document IDs
	// (-doc-id, field "document_id"); absent without any.
	Filters []filterReport `json:"filters,omitempty"`
	Timings timingsReport  `json:"timings_ms"`
	Hits    []hitReport    `json:"hits"`
	// Context is the hits formatted as a chat turn's context for the
	// model (rag.FormatContext); set with -context.
	Context string `json:"context,omitempty"`
}

// indexReport describes the in-memory indexing of -catalog/-faqs/-docs.
type indexReport struct {
	Items      int     `json:"items"`
	FAQs       int     `json:"faqs"`
	Documents  int     `json:"documents"`
	Chunks     int     `json:"chunks"`
	Embedded   int     `json:"embedded"`
	Dimensions int     `json:"dimensions"`
	LoadMS     float64 `json:"load_ms"`
	IndexMS    float64 `json:"index_ms"`
}

// queryReport is how the query was understood.
type queryReport struct {
	Text     string   `json:"text"`
	Tokens   []string `json:"tokens"`
	Terms    []string `json:"terms"`
	Fallback bool     `json:"fallback"`
	// Synonyms are the mentions that added a term to the lexical leg.
	Synonyms []lexical.Mention `json:"synonyms"`
	// Cultures, Treatments and Generics are every mention of the query,
	// by category.
	Cultures   []lexical.Mention `json:"cultures"`
	Treatments []lexical.Mention `json:"treatments"`
	Generics   []lexical.Mention `json:"generics"`
}

// timingsReport is rag.Timings in milliseconds.
type timingsReport struct {
	Lexical float64 `json:"lexical"`
	Embed   float64 `json:"embed"`
	Vector  float64 `json:"vector"`
	Fetch   float64 `json:"fetch"`
	Merge   float64 `json:"merge"`
	Rerank  float64 `json:"rerank"`
	Total   float64 `json:"total"`
}

// hitReport is one hit.
type hitReport struct {
	Rank int    `json:"rank"`
	ID   string `json:"id"`
	// Title is the item name, FAQ question or document title.
	Title        string   `json:"title"`
	Category     string   `json:"category,omitempty"`
	Manufacturer string   `json:"manufacturer,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Keywords     []string `json:"keywords,omitempty"`
	Price        *float64 `json:"price,omitempty"`
	// DocSource is a document's source (file name, URL).
	DocSource string `json:"doc_source,omitempty"`
	// Source is the leg(s) that found the hit: lexical, vector or both.
	Source      string            `json:"source"`
	Score       float64           `json:"score"`
	Explanation explanationReport `json:"explanation"`
	Lexical     *lexicalReport    `json:"lexical,omitempty"`
	Vector      *vectorReport     `json:"vector,omitempty"`
	Snippet     string            `json:"snippet"`
}

// explanationReport is merge.Explanation.
type explanationReport struct {
	Method   string               `json:"method"`
	Lists    []contributionReport `json:"lists"`
	Combined *combinedReport      `json:"combined,omitempty"`
}

// contributionReport is merge.Contribution.
type contributionReport struct {
	List         string  `json:"list"`
	Rank         int     `json:"rank"`
	Raw          float64 `json:"raw"`
	Normalized   float64 `json:"normalized"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// combinedReport is scoring.Combined (weighted fusion).
type combinedReport struct {
	Score       float64         `json:"score"`
	Vector      componentReport `json:"vector"`
	Lexical     componentReport `json:"lexical"`
	Pair        componentReport `json:"pair"`
	VectorRank  componentReport `json:"vector_rank"`
	LexicalRank componentReport `json:"lexical_rank"`
}

// componentReport is scoring.Component.
type componentReport struct {
	Raw          float64 `json:"raw"`
	Normalized   float64 `json:"normalized"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// lexicalReport is rag.LexicalEvidence with its signals.
type lexicalReport struct {
	// Rank is the position in the lexical list; 0 for a vector-only hit
	// scored for consistency.
	Rank         int                 `json:"rank"`
	TermsMatched int                 `json:"terms_matched"`
	Score        float64             `json:"score"`
	Matched      []lexical.TermMatch `json:"matched"`
	Cultures     []string            `json:"cultures"`
	Treatments   []string            `json:"treatments"`
	CultureInTag bool                `json:"culture_in_tag"`
	Pair         bool                `json:"pair"`
	Breakdown    *lexical.Breakdown  `json:"breakdown,omitempty"`
}

// vectorReport is rag.VectorEvidence.
type vectorReport struct {
	Rank       int     `json:"rank"`
	Distance   float64 `json:"distance"`
	Similarity float64 `json:"similarity"`
	Chunks     int     `json:"chunks"`
}

// recordInfo is what a report shows of a record.
type recordInfo struct {
	title, category, manufacturer, docSource string
	tags, keywords                           []string
	price                                    *float64
}

func itemInfo(it *storage.CatalogItem) recordInfo {
	return recordInfo{title: it.Name, category: it.Category, manufacturer: it.Manufacturer, tags: it.Tags, price: it.Price}
}

func faqInfo(f *storage.FAQ) recordInfo {
	return recordInfo{title: f.Question, category: f.Category, keywords: f.Keywords}
}

func docInfo(d *storage.Document) recordInfo {
	return recordInfo{title: d.Title, docSource: d.Source}
}

// execute opens the source, runs the search and builds the report.
func execute(ctx context.Context, cfg *config, stderr io.Writer) (*report, error) {
	src, err := openSource(ctx, cfg, stderr)
	if err != nil {
		return nil, err
	}
	defer src.close()

	s := rag.NewSearcher(src.store, src.embedder, rag.SearcherOptions{})
	q := rag.Query{Text: cfg.query, Limit: cfg.limit, Legs: cfg.legs, Fusion: cfg.fusion, Filters: cfg.filters, ChunkFilters: cfg.chunkFilters, DocumentIDs: cfg.docIDs}
	if cfg.seedMode == seedSimple {
		q.Fusion = merge.MethodSimple
	}
	if !math.IsNaN(cfg.threshold) {
		t := cfg.threshold
		q.VectorThreshold = &t
	}

	var rep *report
	switch cfg.kind {
	case kindFAQ:
		res, err := s.SearchFAQs(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("search FAQs: %w", err)
		}
		rep = buildReport(res, faqInfo)
		if cfg.context {
			rep.Context = rag.FormatContext(q.Text, res.Hits)
		}
	case kindDoc:
		res, err := s.SearchDocuments(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("search documents: %w", err)
		}
		rep = buildReport(res, docInfo)
		if cfg.context {
			rep.Context = rag.FormatContext(q.Text, res.Hits)
		}
	default:
		res, err := s.SearchCatalog(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("search catalog: %w", err)
		}
		rep = buildReport(res, itemInfo)
		if cfg.context {
			rep.Context = rag.FormatContext(q.Text, res.Hits)
		}
	}
	rep.Kind = cfg.kind
	rep.Tenant = cfg.tenant
	rep.Dimensions = src.dims
	rep.Embedder = cfg.embedder
	rep.Index = src.index
	rep.Filters = slices.Concat(filterReports(cfg.filters), chunkFilterReports(cfg.chunkFilters), docIDReports(cfg.docIDs))
	switch {
	case cfg.memfile != "":
		rep.Store = "memfile"
	case cfg.db != "":
		rep.Store = "postgres"
	default:
		rep.Store = "memory"
	}
	return rep, nil
}

// buildReport converts a search result.
func buildReport[T any](res *rag.Result[T], info func(*T) recordInfo) *report {
	rep := &report{
		Query: queryReport{
			Text: res.Query.Text, Tokens: nonNil(res.Query.Tokens), Terms: nonNil(res.Query.Terms),
			Fallback: res.Query.Fallback, Synonyms: nonNil(res.Query.Synonyms),
			Cultures: []lexical.Mention{}, Treatments: []lexical.Mention{}, Generics: []lexical.Mention{},
		},
		Mode: seedModeOf(res.Fusion), Legs: string(res.Legs), Fusion: string(res.Fusion), Limit: res.Limit,
		LexicalCount: res.LexicalCount, VectorCount: res.VectorCount,
		EmbeddingUsed: res.EmbeddingUsed, FallbackReason: string(res.FallbackReason),
		Timings: timingsReport{
			Lexical: ms(res.Timings.Lexical), Embed: ms(res.Timings.Embed), Vector: ms(res.Timings.Vector),
			Fetch: ms(res.Timings.Fetch), Merge: ms(res.Timings.Merge), Rerank: ms(res.Timings.Rerank),
			Total: ms(res.Timings.Total),
		},
		Hits: make([]hitReport, 0, len(res.Hits)),
	}
	if res.VectorError != nil {
		rep.VectorError = res.VectorError.Error()
	}
	for _, m := range res.Query.Mentions {
		switch m.Category {
		case lexical.CategorySubject:
			rep.Query.Cultures = append(rep.Query.Cultures, m)
		case lexical.CategoryClass:
			rep.Query.Treatments = append(rep.Query.Treatments, m)
		default:
			rep.Query.Generics = append(rep.Query.Generics, m)
		}
	}
	for i := range res.Hits {
		h := &res.Hits[i]
		ri := info(&h.Record)
		hr := hitReport{
			Rank: i + 1, ID: h.ID, Title: ri.title, Category: ri.category, Manufacturer: ri.manufacturer,
			Tags: ri.tags, Keywords: ri.keywords, Price: ri.price, DocSource: ri.docSource,
			Source: string(h.Source), Score: finite(h.Score),
			Explanation: explanation(h.Explanation, res.Fusion), Snippet: h.Snippet,
		}
		if l := h.Lexical; l != nil {
			lr := &lexicalReport{
				Rank: l.Rank, TermsMatched: l.TermsMatched, Score: finite(l.Score),
				Matched: []lexical.TermMatch{}, Cultures: []string{}, Treatments: []string{},
			}
			if sig := l.Signals; sig != nil {
				lr.Matched = nonNil(sig.Matched)
				lr.Cultures, lr.Treatments = nonNil(sig.Subjects), nonNil(sig.Classes)
				lr.CultureInTag, lr.Pair = sig.SubjectInTag, sig.Pair
				b := sig.Breakdown
				lr.Breakdown = &b
			}
			hr.Lexical = lr
		}
		if v := h.Vector; v != nil {
			hr.Vector = &vectorReport{Rank: v.Rank, Distance: finite(v.Distance), Similarity: finite(v.Similarity), Chunks: v.Chunks}
		}
		rep.Hits = append(rep.Hits, hr)
	}
	return rep
}

func explanation(e merge.Explanation, fusion merge.Method) explanationReport {
	er := explanationReport{Method: string(fusion), Lists: make([]contributionReport, 0, len(e.Lists))}
	for _, c := range e.Lists {
		er.Lists = append(er.Lists, contributionReport{
			List: c.List, Rank: c.Rank, Raw: finite(c.Raw), Normalized: finite(c.Normalized),
			Weight: finite(c.Weight), Contribution: finite(c.Contribution),
		})
	}
	if c := e.Combined; c != nil {
		er.Combined = &combinedReport{
			Score: finite(c.Score), Vector: component(c.Vector), Lexical: component(c.Lexical),
			Pair: component(c.Pair), VectorRank: component(c.VectorRank), LexicalRank: component(c.LexicalRank),
		}
	}
	return er
}

func component(c scoring.Component) componentReport {
	return componentReport{Raw: finite(c.Raw), Normalized: finite(c.Normalized), Weight: finite(c.Weight), Contribution: finite(c.Contribution)}
}

// ms converts a duration to fractional milliseconds, rounded to µs.
func ms(d time.Duration) float64 { return math.Round(float64(d.Microseconds())) / 1000 }

// finite maps NaN and ±Inf (which JSON cannot carry) to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// nonNil makes nil slices encode as [] rather than null.
func nonNil[E any](s []E) []E {
	if s == nil {
		return []E{}
	}
	return s
}

// seedModeOf names the seeds' search mode a fusion method stands for:
// simple for the simple method, enhanced for the others.
func seedModeOf(f merge.Method) string {
	if f == merge.MethodSimple {
		return seedSimple
	}
	return seedEnhanced
}
