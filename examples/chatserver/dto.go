package main

import (
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
)

// The JSON shapes of the API. Field names are snake_case, like the
// library's own JSON tags and examples/search -json; add fields, never
// rename them. Durations are milliseconds (float).

// turnJSON is one history message of a chat request.
type turnJSON struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatRequest is the body of POST /api/chat.
type chatRequest struct {
	Message string     `json:"message"`
	History []turnJSON `json:"history"`
	Limit   int        `json:"limit"`
	// Mode is planned (default: classify, plan, search, answer) or agentic
	// (the model calls the search tools itself; needs a chat model).
	Mode string `json:"mode"`
	// ConfirmationID answers the confirmation of the previous agentic
	// turn ("confirmation".id of its response): Message confirms,
	// rejects or corrects it. Agentic mode only; an unknown, used or
	// expired ID starts a new turn.
	ConfirmationID string `json:"confirmation_id"`
}

// searchRequest is the body of POST /api/rag/search and /api/faq/search.
type searchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
	// Kind is catalog (default), faq or doc; /api/faq/search forces faq.
	Kind string `json:"kind"`
	// Mode picks the retrieval legs: hybrid (default), lexical or vector.
	Mode string `json:"mode"`
	// Fusion is weighted (default), rrf, relative or simple (the seeds'
	// simple mode: vector hits first, no lexicalScore).
	Fusion string `json:"fusion"`
	// Context is recent conversation text, appended to FAQ queries.
	Context string `json:"context"`
	// Filters restrict the records searched (both legs); see filtersJSON.
	Filters *filtersJSON `json:"filters"`
	// ChunkFilters restrict the search to chunks whose metadata has every
	// key with its value (storage.ChunkFilter; normalized equality), and so to
	// the records having such a chunk: with -extract legal, a document's
	// chunks carry artigo, paragrafo, inciso, alinea, tipo, marca_*.
	ChunkFilters map[string]string `json:"chunk_filters"`
	// DocumentIDs restrict a doc search to these documents, both legs
	// (rag.Query.DocumentIDs): at most 100 non-empty IDs; other kinds
	// reject it (400 invalid_field).
	DocumentIDs []string `json:"document_ids"`
	// IncludeContext adds "context" to the response: the hits formatted
	// as a chat turn gives them to the model (rag.FormatContext).
	IncludeContext bool `json:"include_context"`
}

// filtersJSON are the typed filters of a search (storage.Filter), ANDed.
// Values compare as normalized text (case and accents ignored): category
// applies to items and FAQs, manufacturer and tag to items (an item
// matches when any tag equals the value), source to documents, and
// metadata to items and documents, each key equal to its value; metadata
// keys must be in the server's allowlist (-metadata-keys).
type filtersJSON struct {
	Category     string            `json:"category"`
	Manufacturer string            `json:"manufacturer"`
	Tag          string            `json:"tag"`
	Source       string            `json:"source"`
	Metadata     map[string]string `json:"metadata"`
}

// filterJSON is one applied filter, echoed in a search response.
type filterJSON struct {
	Field string `json:"field"`
	Key   string `json:"key,omitempty"`
	Value string `json:"value"`
}

// intentJSON is rag.Classification.
type intentJSON struct {
	Intent     string  `json:"intent"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason,omitempty"`
	Model      string  `json:"model,omitempty"`
}

// hitJSON is one search hit with its evidence.
type hitJSON struct {
	Rank int    `json:"rank"`
	ID   string `json:"id"`
	// Kind is item, faq or document.
	Kind string `json:"kind"`
	// Name (items), Question (FAQs) or Title (documents).
	Name     string `json:"name,omitempty"`
	Question string `json:"question,omitempty"`
	Title    string `json:"title,omitempty"`
	// Item fields.
	Category     string   `json:"category,omitempty"`
	Manufacturer string   `json:"manufacturer,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Price        *float64 `json:"price,omitempty"`
	// FAQ answer.
	Answer string `json:"answer,omitempty"`
	// Document fields: its source (file, URL) and the heading path of the
	// best passage.
	DocumentSource string `json:"document_source,omitempty"`
	HeadingPath    string `json:"heading_path,omitempty"`
	// Source is the leg(s) that found the hit: lexical, vector or both.
	Source      string          `json:"source"`
	Score       float64         `json:"score"`
	Scores      scoresJSON      `json:"scores"`
	Snippet     string          `json:"snippet"`
	Explanation explanationJSON `json:"explanation"`
	// Evidence is the hit's calibrated relevance and whether it is
	// relevant to the query (rag.Evidence); a chat turn cites only
	// relevant hits.
	Evidence *evidenceJSON `json:"evidence,omitempty"`
}

// evidenceJSON is rag.Evidence.
type evidenceJSON struct {
	// Relevance in [0, 1] fuses the lexical and vector evidence; Relevant
	// is Relevance >= the threshold (0.60 by default); Reason explains
	// the decision: covered, named, vector, combined, missing-pair,
	// files-only, context-only, unknown-words, partial or no-evidence.
	Relevance float64 `json:"relevance"`
	Relevant  bool    `json:"relevant"`
	Reason    string  `json:"reason"`
	// Lexical is the lexical evidence (coverage^1.5, raised for a named
	// record); Coverage the IDF-weighted share of the query's content
	// concepts the record holds; Covered and Missing those concepts.
	Lexical  float64  `json:"lexical"`
	Coverage float64  `json:"coverage"`
	Covered  []string `json:"covered"`
	Missing  []string `json:"missing"`
	// Fields are the record fields the covered concepts were found in;
	// FilesOnly that they were found only in the item's attached files.
	Fields    []string `json:"fields,omitempty"`
	FilesOnly bool     `json:"files_only,omitempty"`
	// Named: the record's name holds the query's rarest concept.
	Named bool `json:"named,omitempty"`
	// PairAsked: the query names a culture and a treatment; Pair: the
	// record holds both.
	PairAsked bool `json:"pair_asked,omitempty"`
	Pair      bool `json:"pair,omitempty"`
	// Vector is the calibrated vector evidence in [0, 1]; VectorZ the
	// similarity in spreads above the background sample.
	Vector     float64         `json:"vector"`
	VectorZ    float64         `json:"vector_z"`
	Background *backgroundJSON `json:"background,omitempty"`
}

// backgroundJSON is rag.Background: the query's similarities to the
// store's background sample of chunks.
type backgroundJSON struct {
	Median  float64 `json:"median"`
	P95     float64 `json:"p95"`
	Scale   float64 `json:"scale"`
	Samples int     `json:"samples"`
}

// scoresJSON are the per-leg scores of a hit; absent legs are omitted.
type scoresJSON struct {
	// Lexical is the lexicalScore; LexicalRank the position in the
	// lexical list (0: scored, not returned by it); TermsMatched the
	// store's base rank.
	Lexical      *float64 `json:"lexical,omitempty"`
	LexicalRank  int      `json:"lexical_rank,omitempty"`
	TermsMatched int      `json:"terms_matched,omitempty"`
	// Vector is the aggregated similarity, VectorDistance the best
	// chunk's distance (negative inner product).
	Vector         *float64 `json:"vector,omitempty"`
	VectorDistance *float64 `json:"vector_distance,omitempty"`
	VectorRank     int      `json:"vector_rank,omitempty"`
	Chunks         int      `json:"chunks,omitempty"`
	// Rerank is the reranker's score, when reranking ran.
	Rerank *float64 `json:"rerank,omitempty"`
}

// explanationJSON is merge.Explanation plus the lexical signals.
type explanationJSON struct {
	Method   string             `json:"method"`
	Lists    []contributionJSON `json:"lists"`
	Combined *combinedJSON      `json:"combined,omitempty"`
	Lexical  *signalsJSON       `json:"lexical,omitempty"`
}

type contributionJSON struct {
	List         string  `json:"list"`
	Rank         int     `json:"rank"`
	Raw          float64 `json:"raw"`
	Normalized   float64 `json:"normalized"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

type combinedJSON struct {
	Score       float64       `json:"score"`
	Vector      componentJSON `json:"vector"`
	Lexical     componentJSON `json:"lexical"`
	Pair        componentJSON `json:"pair"`
	VectorRank  componentJSON `json:"vector_rank"`
	LexicalRank componentJSON `json:"lexical_rank"`
}

type componentJSON struct {
	Raw          float64 `json:"raw"`
	Normalized   float64 `json:"normalized"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// signalsJSON is what lexicalScore matched.
type signalsJSON struct {
	Matched      []lexical.TermMatch `json:"matched"`
	Cultures     []string            `json:"cultures,omitempty"`
	Treatments   []string            `json:"treatments,omitempty"`
	CultureInTag bool                `json:"culture_in_tag"`
	Pair         bool                `json:"pair"`
	Breakdown    breakdownJSON       `json:"breakdown"`
}

// breakdownJSON is lexical.Breakdown in the agronomy store's words: the
// library's subject and class bonuses are its culture and treatment ones.
type breakdownJSON struct {
	Fields       float64 `json:"fields"`
	Matches      float64 `json:"matches"`
	Culture      float64 `json:"culture"`
	Treatment    float64 `json:"treatment"`
	Pair         float64 `json:"pair"`
	CultureInTag float64 `json:"culture_in_tag"`
	Proximity    float64 `json:"proximity,omitempty"`
}

func newBreakdownJSON(b lexical.Breakdown) breakdownJSON {
	return breakdownJSON{Fields: b.Fields, Matches: b.Matches, Culture: b.Subject, Treatment: b.Class, Pair: b.Pair,
		CultureInTag: b.SubjectInTag, Proximity: b.Proximity}
}

// timingsJSON is rag.Timings in milliseconds.
type timingsJSON struct {
	Lexical float64 `json:"lexical"`
	Embed   float64 `json:"embed"`
	Vector  float64 `json:"vector"`
	Fetch   float64 `json:"fetch"`
	Merge   float64 `json:"merge"`
	Rerank  float64 `json:"rerank"`
	Total   float64 `json:"total"`
}

// queryJSON is how a search query was understood.
type queryJSON struct {
	Text     string            `json:"text"`
	Tokens   []string          `json:"tokens"`
	Terms    []string          `json:"terms"`
	Fallback bool              `json:"fallback,omitempty"`
	Synonyms []lexical.Mention `json:"synonyms,omitempty"`
	Mentions []lexical.Mention `json:"mentions,omitempty"`
	// Corrections are the query words typo correction replaced
	// (rag.QueryAnalysis.Corrections): from as typed, to as searched.
	Corrections []lexical.Correction `json:"corrections,omitempty"`
}

// countsJSON are the per-leg candidate counts of a search.
type countsJSON struct {
	Lexical int `json:"lexical"`
	Vector  int `json:"vector"`
	Hits    int `json:"hits"`
}

// searchResponse is the body of a search answer.
type searchResponse struct {
	Kind           string     `json:"kind"`
	Query          queryJSON  `json:"query"`
	Mode           string     `json:"mode"`
	Fusion         string     `json:"fusion"`
	Limit          int        `json:"limit"`
	Counts         countsJSON `json:"counts"`
	EmbeddingUsed  bool       `json:"embedding_used"`
	FallbackReason string     `json:"fallback_reason"`
	// Store is the backend searched: memory or postgres.
	Store string `json:"store"`
	// VectorLeg reports that the vector leg ran (the query was embedded
	// and the store's vector search answered; fallback_reason says why
	// not); PGVector that it ran on PostgreSQL's pgvector.
	VectorLeg bool `json:"vector_leg"`
	PGVector  bool `json:"pgvector"`
	// Reranker is the configured reranker (off or keyword); Reranked
	// reports that it reordered this search's hits; RerankError says that
	// it failed and the fused order was kept (the error is logged).
	Reranker    string      `json:"reranker"`
	Reranked    bool        `json:"reranked"`
	RerankError string      `json:"rerank_error,omitempty"`
	Timings     timingsJSON `json:"timings_ms"`
	// Filters are the filters applied, in the order the store got them;
	// absent without filters.
	Filters []filterJSON `json:"filters,omitempty"`
	// ChunkFilters are the chunk filters applied (field "chunk"), sorted
	// by key; absent without any.
	ChunkFilters []filterJSON `json:"chunk_filters,omitempty"`
	// DocumentIDs are the documents the search was restricted to; absent
	// without a restriction.
	DocumentIDs []string `json:"document_ids,omitempty"`
	// Context is the hits formatted as a chat turn's context for the
	// model (rag.FormatContext: preamble, the kind's section, the
	// question), with every hit returned; set with "include_context".
	Context string    `json:"context,omitempty"`
	Hits    []hitJSON `json:"hits"`
}

// toolJSON is one search a chat turn ran.
type toolJSON struct {
	Tool    string       `json:"tool"`
	Query   string       `json:"query"`
	Hits    []hitJSON    `json:"hits"`
	Timings *timingsJSON `json:"timings_ms,omitempty"`
}

// chatResponse is the body of POST /api/chat and the data of the SSE
// "done" event.
type chatResponse struct {
	Answer string     `json:"answer"`
	Intent intentJSON `json:"intent"`
	Plan   rag.Plan   `json:"plan"`
	// Tools are the searches run, each with the hits kept for the answer
	// (relevant ones, in evidence order; debug.considered counts what
	// each search returned).
	Tools []toolJSON `json:"tools"`
	// Citations are the records the answer may cite: the relevant hits
	// only; empty when Abstained.
	Citations []rag.Citation `json:"citations"`
	// Related are records the answer points to without citing them (more
	// products than it describes); never among Citations.
	Related []rag.Citation `json:"related,omitempty"`
	// Abstained reports that the store had nothing relevant: the answer
	// says so plainly and cites nothing.
	Abstained bool `json:"abstained"`
	// UnverifiedQuotes are passages the answer quotes in guillemets that
	// no source holds (a model's answer; rag.ChatResponse).
	UnverifiedQuotes []string     `json:"unverified_quotes,omitempty"`
	Confidence       string       `json:"confidence"`
	ConfidenceText   string       `json:"confidence_text,omitempty"`
	Summary          *rag.Summary `json:"summary,omitempty"`
	// Confirmation is set when the turn waits for the user to confirm a
	// tool call with a side effect (agentic mode): Answer is its
	// question; send the reply with confirmation_id = Confirmation.ID.
	Confirmation *confirmationJSON `json:"confirmation,omitempty"`
	Debug        debugJSON         `json:"debug"`
}

// debugJSON is rag.Debug with durations in milliseconds.
type debugJSON struct {
	Timings        pipelineTimingsJSON `json:"timings_ms"`
	FallbackReason string              `json:"fallback_reason"`
	ModelCalls     []modelCallJSON     `json:"model_calls"`
	CatalogQuery   string              `json:"catalog_query,omitempty"`
	FAQQuery       string              `json:"faq_query,omitempty"`
	// Errors name the steps that failed ("catalog search failed"); the
	// errors themselves, which may carry hosts, users, URLs and SQL, go
	// to the server's log only.
	Errors         []string `json:"errors,omitempty"`
	AnswerFallback bool     `json:"answer_fallback,omitempty"`
	Context        string   `json:"context,omitempty"`
	// FollowUp says whether the message was taken as a follow-up of the
	// history (only then does the history join the searches).
	FollowUp *followUpJSON `json:"follow_up,omitempty"`
	// Considered is the number of hits each search returned before only
	// the relevant ones were kept, by tool name.
	Considered map[string]int `json:"considered,omitempty"`
	// ToolCalls are the model's tool calls of an agentic turn.
	ToolCalls []toolCallJSON `json:"tool_calls,omitempty"`
	// Decision is how the reply to a confirmation was taken: confirm,
	// reject or correct (a correction asks again); absent otherwise.
	Decision string `json:"decision,omitempty"`
}

// followUpJSON is rag.FollowUpDecision.
type followUpJSON struct {
	FollowUp bool   `json:"follow_up"`
	Reason   string `json:"reason"`
}

type toolCallJSON struct {
	Iteration  int     `json:"iteration"`
	Name       string  `json:"name"`
	Arguments  string  `json:"arguments"`
	Status     string  `json:"status"`
	Results    int     `json:"results"`
	DurationMS float64 `json:"duration_ms"`
	// Attempts is how many times the search ran (2: it failed and was
	// retried once); absent for a call that ran no search.
	Attempts int `json:"attempts,omitempty"`
	// Error is "search failed" (an action's "call failed") when the call
	// failed (the error is logged).
	Error string `json:"error,omitempty"`
}

type pipelineTimingsJSON struct {
	Summarize float64 `json:"summarize"`
	Classify  float64 `json:"classify"`
	Search    float64 `json:"search"`
	Answer    float64 `json:"answer"`
	Total     float64 `json:"total"`
}

type modelCallJSON struct {
	Step       string  `json:"step"`
	Model      string  `json:"model,omitempty"`
	DurationMS float64 `json:"duration_ms"`
	Usage      any     `json:"usage,omitempty"`
	// Error is "model call failed" when the call failed (the error is
	// logged).
	Error string `json:"error,omitempty"`
}

// SSE event payloads (see sse.go).
type toolCallEventJSON struct {
	Tool  string `json:"tool"`
	Query string `json:"query"`
}

type hitsEventJSON struct {
	Tool    string         `json:"tool"`
	Count   int            `json:"count"`
	Sources []rag.Citation `json:"sources"`
}

type tokenEventJSON struct {
	Token string `json:"token"`
}

// recordFields fills the kind-specific fields of a hit.
type recordFields[T any] func(h *hitJSON, rec *T)

func itemFields(h *hitJSON, it *storage.CatalogItem) {
	h.Kind, h.Name, h.Category, h.Manufacturer, h.Tags, h.Price = string(storage.KindItem), it.Name, it.Category, it.Manufacturer, it.Tags, it.Price
}

func faqFields(h *hitJSON, f *storage.FAQ) {
	h.Kind, h.Question, h.Answer, h.Category = string(storage.KindFAQ), f.Question, f.Answer, f.Category
}

func docFields(h *hitJSON, d *storage.Document) {
	h.Kind, h.Title, h.DocumentSource = string(storage.KindDocument), d.Title, d.Source
}

// toHits converts search hits, fused by fusion.
func toHits[T any](hits []rag.Hit[T], fill recordFields[T], fusion merge.Method) []hitJSON {
	out := make([]hitJSON, 0, len(hits))
	for i := range hits {
		h := &hits[i]
		j := hitJSON{Rank: i + 1, ID: h.ID, Source: string(h.Source), Score: h.Score, Snippet: h.Snippet,
			Explanation: toExplanation(h.Explanation, fusion)}
		fill(&j, &h.Record)
		if l := h.Lexical; l != nil {
			score := l.Score
			j.Scores.Lexical, j.Scores.LexicalRank, j.Scores.TermsMatched = &score, l.Rank, l.TermsMatched
			if s := l.Signals; s != nil {
				j.Explanation.Lexical = &signalsJSON{Matched: s.Matched, Cultures: s.Subjects, Treatments: s.Classes,
					CultureInTag: s.SubjectInTag, Pair: s.Pair, Breakdown: newBreakdownJSON(s.Breakdown)}
			}
		}
		if v := h.Vector; v != nil {
			sim, dist := v.Similarity, v.Distance
			j.Scores.Vector, j.Scores.VectorDistance, j.Scores.VectorRank, j.Scores.Chunks = &sim, &dist, v.Rank, v.Chunks
			j.HeadingPath = strings.Join(v.HeadingPath, chunk.HeadingSeparator)
		}
		if r := h.Rerank; r != nil {
			s := r.Score
			j.Scores.Rerank = &s
		}
		j.Evidence = toEvidence(h.Evidence)
		out = append(out, j)
	}
	return out
}

// toEvidence converts a hit's evidence; nil stays nil.
func toEvidence(e *rag.Evidence) *evidenceJSON {
	if e == nil {
		return nil
	}
	out := &evidenceJSON{Relevance: e.Relevance, Relevant: e.Relevant, Reason: string(e.Reason), Lexical: e.Lexical,
		Coverage: e.Coverage, Covered: nonNil(e.Covered), Missing: nonNil(e.Missing), Fields: e.Fields, FilesOnly: e.FilesOnly(),
		Named: e.Named, PairAsked: e.PairAsked, Pair: e.Pair, Vector: e.Vector, VectorZ: e.VectorZ}
	if b := e.Background; b != nil {
		out.Background = &backgroundJSON{Median: b.Median, P95: b.P95, Scale: b.Scale(), Samples: b.Samples}
	}
	return out
}

func toExplanation(e merge.Explanation, fusion merge.Method) explanationJSON {
	out := explanationJSON{Method: string(fusion), Lists: make([]contributionJSON, 0, len(e.Lists))}
	for _, c := range e.Lists {
		out.Lists = append(out.Lists, contributionJSON{List: c.List, Rank: c.Rank, Raw: c.Raw, Normalized: c.Normalized,
			Weight: c.Weight, Contribution: c.Contribution})
	}
	if c := e.Combined; c != nil {
		comp := func(x scoring.Component) componentJSON {
			return componentJSON{Raw: x.Raw, Normalized: x.Normalized, Weight: x.Weight, Contribution: x.Contribution}
		}
		out.Combined = &combinedJSON{Score: c.Score, Vector: comp(c.Vector), Lexical: comp(c.Lexical), Pair: comp(c.Pair),
			VectorRank: comp(c.VectorRank), LexicalRank: comp(c.LexicalRank)}
	}
	return out
}

func toTimings(t rag.Timings) timingsJSON {
	return timingsJSON{Lexical: ms(t.Lexical), Embed: ms(t.Embed), Vector: ms(t.Vector), Fetch: ms(t.Fetch),
		Merge: ms(t.Merge), Rerank: ms(t.Rerank), Total: ms(t.Total)}
}

// toSearchResponse converts a search result.
func toSearchResponse[T any](kind string, r *rag.Result[T], fill recordFields[T]) searchResponse {
	return searchResponse{
		Kind: kind,
		Query: queryJSON{Text: r.Query.Text, Tokens: nonNil(r.Query.Tokens), Terms: nonNil(r.Query.Terms),
			Fallback: r.Query.Fallback, Synonyms: r.Query.Synonyms, Mentions: r.Query.Mentions,
			Corrections: r.Query.Corrections},
		Mode:           string(r.Legs),
		Fusion:         string(r.Fusion),
		Limit:          r.Limit,
		Counts:         countsJSON{Lexical: r.LexicalCount, Vector: r.VectorCount, Hits: len(r.Hits)},
		EmbeddingUsed:  r.EmbeddingUsed,
		FallbackReason: string(r.FallbackReason),
		VectorLeg:      r.EmbeddingUsed,
		Reranked:       reranked(r),
		RerankError:    sanitizeCallError(errText(r.RerankError), "rerank failed; fused order kept"),
		Timings:        toTimings(r.Timings),
		Hits:           toHits(r.Hits, fill, r.Fusion),
	}
}

// reranked reports whether the reranking stage reordered r's hits: it
// ran without error (a hit carries a rerank score, or the stage took time
// and may have dropped every hit under its minimum score).
func reranked[T any](r *rag.Result[T]) bool {
	if r.RerankError != nil {
		return false
	}
	for i := range r.Hits {
		if r.Hits[i].Rerank != nil {
			return true
		}
	}
	return r.Timings.Rerank > 0
}

// errText is err's text, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// toChatResponse converts a chat turn; message is the user's message (the
// document search's query), fusion the searcher's fusion method (the
// turn's searches use it).
func toChatResponse(r *rag.ChatResponse, message string, fusion merge.Method) chatResponse {
	d := &r.Debug
	out := chatResponse{
		Answer:           r.Answer,
		Intent:           toIntent(r.Intent),
		Plan:             d.Plan,
		Tools:            []toolJSON{},
		Citations:        r.Sources,
		Related:          r.Related,
		Abstained:        r.Abstained,
		UnverifiedQuotes: r.UnverifiedQuotes,
		Confidence:       r.Confidence.String(),
		ConfidenceText:   r.ConfidenceText,
		Summary:          r.Summary,
		Debug: debugJSON{
			Timings: pipelineTimingsJSON{Summarize: ms(d.Timings.Summarize), Classify: ms(d.Timings.Classify),
				Search: ms(d.Timings.Search), Answer: ms(d.Timings.Answer), Total: ms(d.Timings.Total)},
			FallbackReason: string(d.FallbackReason),
			ModelCalls:     make([]modelCallJSON, 0, len(d.ModelCalls)),
			CatalogQuery:   d.CatalogQuery,
			FAQQuery:       d.FAQQuery,
			Errors:         sanitizeDebugErrors(d.Errors),
			AnswerFallback: d.AnswerFallback,
			Context:        d.Context,
			Considered:     d.Considered,
			Decision:       string(d.Decision),
		},
		Confirmation: toConfirmation(r.Confirmation),
	}
	if d.FollowUp != nil {
		out.Debug.FollowUp = &followUpJSON{FollowUp: d.FollowUp.FollowUp, Reason: d.FollowUp.Reason}
	}
	if out.Citations == nil || r.Abstained {
		out.Citations = []rag.Citation{}
	}
	for _, c := range d.ToolCalls {
		failed := "search failed"
		if _, ok := searchTools[c.Name]; !ok {
			failed = "call failed"
		}
		out.Debug.ToolCalls = append(out.Debug.ToolCalls, toolCallJSON{Iteration: c.Iteration, Name: c.Name, Arguments: c.Arguments,
			Status: string(c.Status), Results: c.Results, DurationMS: ms(c.Duration), Attempts: c.Attempts, Error: sanitizeCallError(c.Error, failed)})
	}
	for _, c := range d.ModelCalls {
		mc := modelCallJSON{Step: c.Step, Model: c.Model, DurationMS: ms(c.Duration), Error: sanitizeCallError(c.Error, "model call failed")}
		if c.Usage.TotalTokens > 0 {
			mc.Usage = c.Usage
		}
		out.Debug.ModelCalls = append(out.Debug.ModelCalls, mc)
	}
	tool := func(name, query string, hits []hitJSON) {
		t := toolJSON{Tool: name, Query: query, Hits: hits}
		if tm, ok := d.SearchTimings[name]; ok {
			j := toTimings(tm)
			t.Timings = &j
		}
		out.Tools = append(out.Tools, t)
	}
	if d.Plan.FAQ {
		tool(rag.ToolSearchFAQs, d.FAQQuery, toHits(r.FAQs, faqFields, fusion))
	}
	if d.Plan.Catalog {
		tool(rag.ToolSearchCatalog, d.CatalogQuery, toHits(r.Catalog, itemFields, fusion))
	}
	if d.Plan.Documents {
		tool(rag.ToolSearchDocuments, strings.TrimSpace(message), toHits(r.Documents, docFields, fusion))
	}
	return out
}

// sanitizeDebugErrors is rag.Debug.Errors as the client sees them: which
// step failed, not the error text (logged by the handlers).
func sanitizeDebugErrors(errs []string) []string {
	if len(errs) == 0 {
		return nil
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = sanitizeDebugError(e)
	}
	return out
}

// sanitizeCallError is msg when a call failed (errText not empty), else "".
func sanitizeCallError(errText, msg string) string {
	if errText == "" {
		return ""
	}
	return msg
}

func toIntent(c rag.Classification) intentJSON {
	return intentJSON{Intent: string(c.Intent), Confidence: c.Confidence, Reason: c.Reason, Model: c.Model}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
