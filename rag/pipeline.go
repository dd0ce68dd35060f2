package rag

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/audit"
	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag/internal/quoted"
	"github.com/hybridrag/hybridrag/rag/trace"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
)

// Pipeline defaults: the last 6 turns (three exchanges) are what a
// follow-up usually refers to, and longer histories are summarized; a
// message of 2,000 characters is a long question, and each past turn is
// cut at 1,000 so history cannot crowd out the retrieved context.
const (
	defaultHistoryLimit    = 6
	defaultMaxMessageChars = 2000
	defaultMaxTurnChars    = 1000
	defaultFAQContextTurns = 2
	// defaultMaxHistoryTurns and defaultMaxHistoryChars bound the history
	// a request may bring.
	defaultMaxHistoryTurns = 50
	defaultMaxHistoryChars = 20000
	defaultSummarizeAfter  = 6
	defaultAuditPreview    = audit.DefaultPreview
	// DefaultFallbackMessage is the answer when the turn fails for a
	// reason the per-error messages do not single out
	// (llm.DefaultFallbackMessages().Error): a model error,
	// the iteration limit, every search failing. An empty answer gets
	// llm.DefaultFallbackMessages().Empty, a timeout, a rate limit or an
	// unavailable provider their own texts (PipelineOptions.FallbackMessages).
	DefaultFallbackMessage = "Ops, algo deu errado do meu lado. Tenta de novo?"
)

// Tool names of the pipeline's searches, as the audit log and the agentic
// mode's tools name them.
const (
	ToolSearchFAQs      = "searchFaqs"
	ToolSearchCatalog   = "searchCatalog"
	ToolSearchDocuments = "searchDocuments"
)

// PipelineOptions configures a Pipeline. The zero value gives the
// defaults.
type PipelineOptions struct {
	// Summarizer, when set, condenses histories longer than SummarizeAfter
	// turns before classification.
	Summarizer Summarizer
	// SummarizeAfter is the history length that triggers the summary
	// (default 6).
	SummarizeAfter int
	// UseCatalogQuery searches the catalog with the summary's
	// CatalogQuery when there is one: the summary's keywords carry a
	// follow-up's subject ("e para soja?") that the message lacks.
	UseCatalogQuery bool
	// HistoryLimit is how many recent turns enter the context
	// (CHAT_HISTORY_CONTEXT_LIMIT, default 6).
	HistoryLimit int
	// MaxMessageChars truncates the message (default 2000). The history
	// read from a request, the summarizer's input included, is the most
	// recent turns within 50 turns and 20,000 characters, each turn
	// truncated to 1,000.
	MaxMessageChars int
	// Fallback (default On) answers a failure of the answer (a model
	// error, an empty answer, every search failing) with the fallback
	// message; Off returns the error instead (wrapping ErrNoAnswer).
	Fallback Toggle
	// FallbackMessages are the fallback answers, one per failure: Timeout
	// for a deadline, RateLimit for HTTP 429, Unavailable for 502/503/504
	// and transport failures, Empty for an empty answer, Error for
	// anything else (set all five for one text). Each empty field is the
	// default pt-BR text (llm.DefaultFallbackMessages; Error is
	// DefaultFallbackMessage).
	FallbackMessages llm.FallbackMessages
	// Logger receives the audit records (tool, arguments, result count,
	// payload preview of at most 800 characters); nil logs nothing.
	Logger *slog.Logger
	// Confidence decides from the mean relevance (Evidence.Relevance) of
	// the hits put in the context whether the turn answers (zero value:
	// 0.85 / 0.70 / 0.60): below Low the level is none and the
	// turn abstains. The level of a turn that answers is calibrated on
	// whether its citations were right (see turnLevel), not read from
	// these thresholds.
	Confidence scoring.Thresholds
	// ContextTokens is the budget of the retrieved sections of the
	// context, in tokens counted by TokenCounter (default 2000, a few
	// pages: enough for the hits a turn cites, short enough to keep the
	// answer's prompt cheap and focused): hits are added in evidence order until the next one would
	// not fit. History and summary have their own caps (HistoryLimit,
	// and 1,000 characters a turn).
	ContextTokens int
	// TokenCounter counts tokens for ContextTokens and
	// Debug.ContextTokens; nil means llm.EstimateTokens (runes / 4,
	// rounded up). A chat model that counts its own tokens can be passed
	// when it implements llm.TokenCounter.
	TokenCounter llm.TokenCounter
	// FollowUp decides whether a message continues the conversation; only
	// then do the last two user turns join the FAQ query and the last one
	// the catalog and document queries. nil means DetectFollowUp.
	FollowUp func(message string, history []Turn) FollowUpDecision
	// Documents is document search in planned mode (default On). Off
	// plans no document search for any intent, follow-ups included
	// (for stores with no documents); agentic mode offers the tools named
	// in AgentOptions.Tools instead.
	Documents Toggle
	// Language is the chat's one language setting, for both modes (""
	// means pt-BR; ParseLanguage's tags are accepted): an Agent's system
	// prompt and tool descriptions, the ConfidenceText of every response
	// (unless the Answer says it is written in another language), and the
	// Language of each ClassifyRequest and AnswerRequest, which the
	// llmchat components follow over their own option. Context payloads
	// stay in pt-BR.
	Language Language
	// Tracer, when set, traces the turn's model calls (package trace):
	// the summary, the classification and the answer, and each model call
	// of an agentic turn. Searches are traced by the Searcher's
	// SearcherOptions.Tracer. nil traces nothing.
	Tracer trace.ModelTracer
}

// Defaults of PipelineOptions.
const (
	// defaultContextTokens is the context budget (PipelineOptions.ContextTokens).
	defaultContextTokens = 2000
	// defaultRelativeCut is the relevance gap below a search's best hit
	// beyond which a relevant hit is left out (the agentic mode's tool
	// results too).
	defaultRelativeCut = 0.25
	// defaultCoverageGap: when an item or FAQ holds all of the question's
	// content, hits whose coverage is more than this below are left out.
	defaultCoverageGap = 0.3
)

// Pipeline answers chat turns from the catalog, FAQs and documents: it
// summarizes long histories, classifies the intent, plans and runs the
// searches, builds the context and asks the Answerer. It is
// safe for concurrent use.
type Pipeline struct {
	searcher   *Searcher
	classifier Classifier
	answerer   Answerer
	opts       PipelineOptions
	// quoter picks the passages the context quotes (passages.go).
	quoter *quoter
}

// DefaultPipelineOptions returns the options a zero PipelineOptions stands
// for, with every default filled in; NewPipeline applies the same defaults.
func DefaultPipelineOptions() PipelineOptions {
	return PipelineOptions{}.withDefaults()
}

// withDefaults fills the unset fields of o.
func (o PipelineOptions) withDefaults() PipelineOptions {
	o.SummarizeAfter = cmp.Or(max(o.SummarizeAfter, 0), defaultSummarizeAfter)
	o.HistoryLimit = cmp.Or(max(o.HistoryLimit, 0), defaultHistoryLimit)
	o.MaxMessageChars = cmp.Or(max(o.MaxMessageChars, 0), defaultMaxMessageChars)
	def := llm.DefaultFallbackMessages()
	fm := &o.FallbackMessages
	fm.Timeout = cmp.Or(fm.Timeout, def.Timeout)
	fm.RateLimit = cmp.Or(fm.RateLimit, def.RateLimit)
	fm.Unavailable = cmp.Or(fm.Unavailable, def.Unavailable)
	fm.Empty = cmp.Or(fm.Empty, def.Empty)
	fm.Error = cmp.Or(fm.Error, DefaultFallbackMessage)
	o.ContextTokens = cmp.Or(max(o.ContextTokens, 0), defaultContextTokens)
	if o.FollowUp == nil {
		o.FollowUp = DetectFollowUp
	}
	return o
}

// NewPipeline wires a Pipeline. searcher, classifier and answerer are
// required; NewPipeline returns an error naming a missing one. It does no
// I/O.
func NewPipeline(searcher *Searcher, classifier Classifier, answerer Answerer, opts PipelineOptions) (*Pipeline, error) {
	switch {
	case searcher == nil:
		return nil, errors.New("rag: NewPipeline: nil Searcher")
	case classifier == nil:
		return nil, errors.New("rag: NewPipeline: nil Classifier")
	case answerer == nil:
		return nil, errors.New("rag: NewPipeline: nil Answerer")
	}
	o := opts.withDefaults()
	if o.Language != "" {
		lang, err := ParseLanguage(string(o.Language))
		if err != nil {
			return nil, err
		}
		o.Language = lang
	}
	return &Pipeline{searcher: searcher, classifier: classifier, answerer: answerer, opts: o,
		quoter: newQuoter(searcher.scorers[itemKind.index].Synonyms(), searcher.evidence.FrameWords)}, nil
}

// Searcher returns the pipeline's Searcher.
func (p *Pipeline) Searcher() *Searcher { return p.searcher }

// Chat answers one turn.
func (p *Pipeline) Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	return p.run(ctx, req, nil)
}

// ChatStream answers one turn like Chat, as a stream of events: intent,
// each tool call and its hits, answer tokens (streamed when the Answerer is
// a StreamAnswerer), then done, whose Response is what Chat returns — or a
// final error event, yielded with its error. When a streamed answer fails
// part-way (or ends blank), a reset event discards the tokens so far and
// the fallback message follows: the tokens after the last reset add up to
// the done event's Response.Answer, but for surrounding white space. The turn runs in the calling
// goroutine as the stream is ranged over; stopping the range early cancels
// it.
func (p *Pipeline) ChatStream(ctx context.Context, req ChatRequest) iter.Seq2[Event, error] {
	return stream(ctx, func(ctx context.Context, emit func(Event)) (*ChatResponse, error) {
		return p.run(ctx, req, emit)
	})
}

// stream turns a run reporting to emit into an event sequence.
func stream(ctx context.Context, run func(context.Context, func(Event)) (*ChatResponse, error)) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stopped := false
		emit := func(e Event) {
			if !stopped && !yield(e, nil) {
				stopped = true
				cancel()
			}
		}
		resp, err := run(ctx, emit)
		if stopped {
			return
		}
		if err != nil {
			yield(Event{Kind: EventError}, err)
			return
		}
		yield(Event{Kind: EventDone, Response: resp}, nil)
	}
}

// prepared is a validated request.
type prepared struct {
	message string
	history []Turn
}

func (p *Pipeline) prepare(req ChatRequest) (prepared, error) {
	msg := strings.TrimSpace(strings.ToValidUTF8(req.Message, "\uFFFD"))
	if textutil.IsBlank(msg) {
		return prepared{}, ErrEmptyMessage
	}
	pr := prepared{message: textutil.TruncateRunes(msg, p.opts.MaxMessageChars)}
	var hist []Turn
	// Only the most recent MaxHistoryTurns turns are read at all, newest
	// kept first within MaxHistoryChars: whatever a client sends, no
	// request (the summarizer's included) grows without bound.
	src := req.History
	if len(src) > defaultMaxHistoryTurns {
		src = src[len(src)-defaultMaxHistoryTurns:]
	}
	for _, t := range src {
		if t.Role != llm.RoleUser && t.Role != llm.RoleAssistant {
			continue
		}
		c := strings.TrimSpace(strings.ToValidUTF8(t.Content, "\uFFFD"))
		if c == "" {
			continue
		}
		hist = append(hist, Turn{Role: t.Role, Content: textutil.TruncateRunes(c, defaultMaxTurnChars)})
	}
	total := 0
	for i := len(hist) - 1; i >= 0; i-- {
		if total += utf8.RuneCountInString(hist[i].Content); total > defaultMaxHistoryChars {
			hist = hist[i+1:]
			break
		}
	}
	if len(hist) > p.opts.HistoryLimit {
		pr.history = hist[len(hist)-p.opts.HistoryLimit:]
	} else {
		pr.history = hist
	}
	if len(hist) > p.opts.SummarizeAfter {
		pr.history = hist // the summarizer sees the whole (bounded) history
	}
	return pr, nil
}

func (p *Pipeline) run(ctx context.Context, req ChatRequest, emit func(Event)) (*ChatResponse, error) {
	start := time.Now()
	pr, err := p.prepare(req)
	if err != nil {
		return nil, err
	}
	resp := &ChatResponse{}
	dbg := &resp.Debug
	recent := pr.history
	if len(recent) > p.opts.HistoryLimit {
		recent = recent[len(recent)-p.opts.HistoryLimit:]
	}

	// 1. Optional summary of a long history.
	var summary Summary
	if p.opts.Summarizer != nil && len(pr.history) > p.opts.SummarizeAfter {
		t := time.Now()
		sctx, end := p.modelStart(ctx, stepSummarize, func() int { return p.turnTokens(pr.history) })
		s, err := p.opts.Summarizer.Summarize(sctx, pr.history)
		if end != nil {
			end(trace.ModelEndData{Err: err})
		}
		dbg.Timings.Summarize = time.Since(t)
		call := ModelCall{Step: "summarize", Duration: dbg.Timings.Summarize}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			call.Error = err.Error()
			dbg.Errors = append(dbg.Errors, "summary: "+err.Error())
		} else {
			summary = s
			resp.Summary = &s
		}
		dbg.ModelCalls = append(dbg.ModelCalls, call)
	}

	// 2. Intent.
	t := time.Now()
	cctx, end := p.modelStart(ctx, stepClassify, func() int {
		return p.countTokens(pr.message) + p.countTokens(summary.Text) + p.turnTokens(recent)
	})
	cls, err := p.classifier.Classify(cctx, ClassifyRequest{Message: pr.message, Summary: summary.Text, History: recent, Language: p.opts.Language})
	if end != nil {
		end(trace.ModelEndData{Model: cls.Model, Err: err})
	}
	dbg.Timings.Classify = time.Since(t)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dbg.Errors = append(dbg.Errors, "classify: "+err.Error())
		cls = Classification{Intent: IntentOther, Reason: "classifier failed: every search runs"}
	}
	if !cls.Intent.Valid() {
		cls.Intent = IntentOther
	}
	dbg.ModelCalls = append(dbg.ModelCalls, ModelCall{Step: "classify", Model: cls.Model, Duration: dbg.Timings.Classify})
	resp.Intent = cls
	if emit != nil {
		c := cls
		emit(Event{Kind: EventIntent, Intent: &c})
	}

	// 3. Plan and run the searches. The history joins the queries only
	// when the message is a follow-up.
	plan := planSearches(cls.Intent)
	fu := p.opts.FollowUp(pr.message, recent)
	dbg.FollowUp = &fu
	if fu.FollowUp && plan.any() {
		// A follow-up's intent is judged on a fragment ("e por que isso
		// ajuda?"): every search runs and the evidence decides.
		plan = Plan{FAQ: true, Catalog: true, Documents: true}
	}
	// The store's documents are its knowledge base: a turn whose intent
	// does not search them (a catalog question) searches them after its
	// other searches and keeps those that answer better than its items and
	// FAQs, rather than abstain on, or answer only with a product, what a
	// manual or a policy answers (runSearches, documentsKept).
	fallbackDocs := plan.any() && !plan.Documents && p.opts.Documents != Off
	if p.opts.Documents == Off {
		plan.Documents = false
	}
	dbg.Plan = plan
	var faqContext, lastTurn string
	if fu.FollowUp {
		faqContext = recentUserText(recent, defaultFAQContextTurns)
		lastTurn = p.followUpContext(recent)
		// The products the last answer named are what "os mesmos", "o
		// segundo" refer to. Measured on the development sets: blind
		// recall 0.827 → 0.846 and facts 0.737 → 0.763, blind2 recall
		// 0.852 → 0.870, chat_eval held-out facts 0.925 → 0.900 (a
		// comparison over the named products, "qual desses tem a menor
		// carência?", now leads with another of them); the rest unchanged.
		// A crop-only follow-up ("e de milho?" after the soybean seeds)
		// asks the same question for another crop: the names the answer
		// gave belong to the old crop.
		if names := p.searcher.catalogNames(ctx, lastAssistant(recent)); len(names) > 0 && fu.Reason != "crop-only" {
			lastTurn += " " + strings.Join(names, " ")
		}
	}
	cq := searchText{text: pr.message, context: lastTurn}
	if p.opts.UseCatalogQuery && strings.TrimSpace(summary.CatalogQuery) != "" {
		cq = searchText{text: strings.TrimSpace(summary.CatalogQuery)}
	}
	catalogQuery := combineQueryWithContext(cq.text, cq.context, p.searcher.opts.Limits.MaxQueryChars)
	dbg.CatalogQuery = catalogQuery
	dbg.FAQQuery = combineQueryWithContext(pr.message, faqContext, p.searcher.opts.Limits.MaxFAQQueryChars)

	t = time.Now()
	// Likewise a question about the store (support) searches the catalog
	// when its FAQs and documents hold nothing relevant. Measured on the
	// chat sets, all seen: blind5 .885/.816/.867/.806 → .886/.829/.878/.833,
	// blind6 .833/.803/.878/.839 → .835/.816/.889/.871, blind7
	// .885/.831/.900/.861 → .886/.844/.911/.889, blind precision .878 →
	// .844 (a follow-up that abstained now cites products); -cross and
	// AGROFIT unchanged.
	fallbackCatalog := plan.any() && !plan.Catalog
	planned := plan // the plan before the searches' fallbacks change it
	sr := p.runSearches(ctx, plan, fallbackDocs, fallbackCatalog, pr.message, cq, searchText{text: pr.message, context: lastTurn}, faqContext, req.Limit, emit)
	dbg.Timings.Search = time.Since(t)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// adopt takes a round of searches as the turn's.
	adopt := func(sr *searchResults) {
		resp.Catalog, resp.FAQs, resp.Documents = sr.catalog, sr.faqs, sr.docs
		if sr.fallbackRan {
			// Searched; the context has a documents section only when
			// some were kept.
			dbg.Plan.Documents = true
			plan.Documents = len(sr.docs) > 0
		}
		if sr.catalogFallbackRan {
			plan.Catalog, dbg.Plan.Catalog = true, true
		}
		dbg.SearchTimings = sr.timings
		dbg.FallbackReason = sr.fallback
		dbg.Errors = append(dbg.Errors, sr.errors...)
		dbg.Considered = sr.considered
	}
	adopt(sr)

	// 4. Confidence from the evidence of what is cited; none abstains
	// rather than answer from context that does not hold the answer.
	resp.Confidence = p.turnLevel(sr)
	resp.ConfidenceText = resp.Confidence.Message()
	resp.Abstained = plan.any() && !resp.Confidence.Augment() && !sr.allFailed
	if resp.Abstained && !fu.FollowUp {
		// A message telling its story before it asks ("devolvi o pedido
		// semana passada, o estorno no cartão cai quando?") is searched
		// again by the clause that asks, the story its context
		// (clauseRetry), with the plan as the intent made it.
		t := time.Now()
		csr, clause, rest := p.clauseRetry(ctx, planned, fallbackDocs, fallbackCatalog, pr.message, req.Limit, emit)
		dbg.Timings.Search += time.Since(t)
		if csr != nil {
			sr = csr
			adopt(sr)
			dbg.CatalogQuery = combineQueryWithContext(clause, rest, p.searcher.opts.Limits.MaxQueryChars)
			dbg.FAQQuery = combineQueryWithContext(clause, rest, p.searcher.opts.Limits.MaxFAQQueryChars)
			resp.Confidence = min(p.turnLevel(sr), scoring.LevelLow)
			resp.ConfidenceText = resp.Confidence.Message()
			resp.Abstained = false
		}
	}
	priceOrdered := 0 // the order of a price-order follow-up's items
	if fu.FollowUp && fu.Reason != "crop-only" && !sr.allFailed {
		// "qual desses é mais barato?": the items the last answer named,
		// by price (priceOrderHits). Not "e o mais barato pro milho?":
		// another crop's question, searched as such.
		if hits, order := p.priceOrderHits(ctx, pr.message, recent); hits != nil {
			priceOrdered = order
			sr.catalog, resp.Catalog = hits, hits
			sr.faqs, sr.docs, resp.FAQs, resp.Documents = nil, nil, nil, nil
			plan.Catalog, dbg.Plan.Catalog = true, true
			resp.Abstained = false
			resp.Confidence = scoring.LevelMedium
			resp.ConfidenceText = resp.Confidence.Message()
		}
	}
	if sr.allFailed {
		// Nothing could be searched: the fallback message, not "we have
		// nothing on that".
		if p.opts.Fallback == Off {
			return nil, fmt.Errorf("%w: every search failed: %s", ErrNoAnswer, strings.Join(sr.errors, "; "))
		}
		resp.Answer, dbg.AnswerFallback, resp.Sources = p.fallbackText(errSearchesFailed), true, []Citation{}
		if emit != nil {
			emit(Event{Kind: EventToken, Token: resp.Answer})
		}
		dbg.Timings.Total = time.Since(start)
		return resp, nil
	}
	var related []Citation
	if resp.Abstained {
		// What the store has of what was asked, for another crop: shown
		// apart, never cited ("semente de girassol": the seeds it sells).
		related = catalogCitations(sr.nearMisses, sr.catalogQ, p.quoter)
		resp.Catalog, resp.FAQs, resp.Documents = nil, nil, nil
		sr.catalog, sr.faqs, sr.docs = nil, nil, nil
		// Inactive items are never searched: a turn that names one (its
		// whole name, or the words before its concentration when they
		// name no other item) answers that it is discontinued (and its
		// substitute).
		if hits := p.discontinuedHits(ctx, pr.message); hits != nil {
			sr.catalog, resp.Catalog = hits, hits
			plan.Catalog = true
			resp.Abstained = false
			resp.Confidence = p.turnLevel(sr)
			resp.ConfidenceText = resp.Confidence.Message()
		}
	}

	// Context.
	var sections []ContextSection
	if len(recent) > 0 {
		sections = append(sections, ContextSection{Name: "history", Text: historySection(recent)})
	}
	if summary.Text != "" {
		sections = append(sections, ContextSection{Name: "summary", Text: "Resumo da conversa: " + textutil.OneLine(summary.Text)})
	}
	if plan.FAQ && !resp.Abstained {
		sections = append(sections, ContextSection{Name: "faqs", Text: faqSection(sr.faqs, sr.faqQ)})
	}
	if plan.Catalog && !resp.Abstained {
		sections = append(sections, ContextSection{Name: "catalog", Text: catalogPayload(catalogQuery, sr.catalog, sr.catalogQ)})
		if priceOrdered != 0 {
			sections = append(sections, ContextSection{Name: "price-order", Text: priceOrderText(priceOrdered)})
		}
	}
	if plan.Documents && !resp.Abstained {
		sections = append(sections, ContextSection{Name: "documents", Text: documentSection(sr.docs, sr.docQ)})
	}
	if resp.Abstained {
		sections = append(sections, ContextSection{Name: "abstain", Text: AbstainContextText})
		if len(related) > 0 && len(sr.nearMisses) > 0 {
			near := &sr.nearMisses[0]
			if what, problem := notCarried(pr.message, near.Evidence, near.Record.Category); what != "" {
				// "pulgão na alface" is a problem the store has no
				// product for, not an item it lacks.
				lacks := "Não temos"
				if syn := p.searcher.scorers[itemKind.index].Synonyms(); problem && isTreatment(&near.Record, syn) && pestWord(strings.Fields(what)[0], syn) {
					lacks = "Não temos produtos para"
				}
				sections = append(sections, ContextSection{Name: "not-carried", Text: lacks + " \"" + what + "\" no catálogo: diga isso claramente, sem citar produtos; os itens relacionados são mostrados à parte."})
			}
		}
	}
	contextText := BuildContext(sections, pr.message)
	dbg.Context = contextText
	dbg.ContextTokens = p.countTokens(contextText)
	resp.Sources = p.citations(sr)
	if resp.Sources == nil {
		resp.Sources = []Citation{}
	}

	// 5. Answer.
	areq := AnswerRequest{
		Message: pr.message, Intent: cls.Intent, History: recent, Summary: summary.Text,
		Sections: sections, Catalog: sr.catalog, FAQs: sr.faqs, Documents: sr.docs,
		Confidence: resp.Confidence, Abstained: resp.Abstained, Language: p.opts.Language,
	}
	t = time.Now()
	var (
		ans Answer
		// streamed: tokens of the model's answer were emitted, so a
		// fallback must be preceded by EventReset.
		streamed bool
	)
	actx, end := p.modelStart(ctx, stepAnswer, func() int { return dbg.ContextTokens })
	actx = quoted.With(actx, sr.quoted())
	if sa, ok := p.answerer.(StreamAnswerer); ok && emit != nil {
		ans, err = sa.StreamAnswer(actx, areq, func(tok string) {
			if tok != "" {
				streamed = true
				emit(Event{Kind: EventToken, Token: tok})
			}
		})
	} else {
		ans, err = p.answerer.Answer(actx, areq)
		if err == nil && emit != nil && ans.Text != "" {
			emit(Event{Kind: EventToken, Token: ans.Text})
		}
	}
	if end != nil {
		end(trace.ModelEndData{Model: ans.Model, Usage: ans.Usage, Err: err})
	}
	dbg.Timings.Answer = time.Since(t)
	call := ModelCall{Step: "answer", Model: ans.Model, Duration: dbg.Timings.Answer, Usage: ans.Usage}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		call.Error = err.Error()
	}
	dbg.ModelCalls = append(dbg.ModelCalls, call)
	switch {
	case err != nil && p.opts.Fallback == Off:
		return nil, fmt.Errorf("%w: %w", ErrNoAnswer, err)
	case err != nil || strings.TrimSpace(ans.Text) == "":
		if err != nil {
			dbg.Errors = append(dbg.Errors, "answer: "+err.Error())
		}
		ans.Text = p.fallbackText(err)
		dbg.AnswerFallback = true
		if emit != nil {
			if streamed {
				// The model's partial answer is not the answer.
				emit(Event{Kind: EventReset})
			}
			emit(Event{Kind: EventToken, Token: ans.Text})
		}
	}
	resp.Answer = ans.Text
	if !dbg.AnswerFallback {
		resp.UnverifiedQuotes = unverifiedQuotes(ans.Text, contextText, sr)
	}
	if cmp.Or(ans.Language, p.opts.Language) == LanguageEnglish && !dbg.AnswerFallback {
		resp.ConfidenceText = confidenceMessage(resp.Confidence, LanguageEnglish)
	}
	if !plan.any() {
		// Small talk searches nothing: no level to explain ("[SEM RAG]
		// Não encontrei…" under "oi, bom dia" reads as a failure).
		resp.ConfidenceText = ""
	}
	if !dbg.AnswerFallback && len(ans.Related) > 0 {
		for _, c := range resp.Sources {
			if slices.Contains(ans.Related, storage.OwnerRef{Kind: c.Kind, ID: c.ID}) {
				resp.Related = append(resp.Related, c)
			}
		}
	}
	if resp.Abstained && len(related) > 0 && !dbg.AnswerFallback {
		resp.Related = related
	}
	if ans.Cited != nil && !dbg.AnswerFallback {
		resp.Sources = slices.DeleteFunc(resp.Sources, func(c Citation) bool {
			return !slices.Contains(ans.Cited, storage.OwnerRef{Kind: c.Kind, ID: c.ID})
		})
	}
	dbg.Timings.Total = time.Since(start)
	return resp, nil
}

// errSearchesFailed stands for a turn whose searches all failed, for
// fallbackText.
var errSearchesFailed = errors.New("rag: every search failed")

// fallbackText is the answer for a failed turn: the FallbackMessages text
// for err (Empty for a nil err, an answer that came back blank).
func (p *Pipeline) fallbackText(err error) string {
	if err == nil {
		return p.opts.FallbackMessages.Empty
	}
	return p.opts.FallbackMessages.For(err)
}

// recentUserText joins the last n user turns, oldest first.
func recentUserText(history []Turn, n int) string {
	var parts []string
	for i := len(history) - 1; i >= 0 && len(parts) < n; i-- {
		if history[i].Role == llm.RoleUser {
			parts = append(parts, history[i].Content)
		}
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, " ")
}

// searchResults are the outcome of a turn's searches: the hits kept for
// the context (relevant, in evidence order, within the budget).
type searchResults struct {
	catalog  []Hit[storage.CatalogItem]
	faqs     []Hit[storage.FAQ]
	docs     []Hit[storage.Document]
	timings  map[string]Timings
	fallback FallbackReason
	errors   []string
	// considered is the number of hits each search returned before
	// selection, by tool.
	considered map[string]int
	// allFailed: every planned search failed (a store outage), which is
	// not the same as finding nothing; the documents' search of a
	// fallback counts only when its hits are kept.
	allFailed bool
	// fallbackRan: the documents were searched for a turn whose intent
	// leaves them out (documentsKept decides which are kept).
	fallbackRan bool
	// catalogFallbackRan: the catalog was searched as the fallback of a
	// turn whose intent leaves it out.
	catalogFallbackRan bool
	// The questions each kind's passages answer: the catalog search's
	// text, the FAQ search's and the documents search's (with the
	// previous turn for a follow-up).
	catalogQ, faqQ, docQ *question
	// nearMisses are the catalog hits holding what was asked but its
	// subject (Evidence.otherSubject), best first: listed as related
	// when the turn abstains.
	nearMisses []Hit[storage.CatalogItem]
}

// Calibrated confidence of a turn that answers: chosen on the tune half of
// chat_eval.jsonl and the cross-domain stores (testdata, IRPF, FaQuAD;
// examples/eval -cross), where a turn citing exactly one record whose
// relevance is at least highRelevance cited the right record 60 of 67
// times, and any other answering turn 54 of 146 times; requiring that
// record's lexical evidence to be at least highLexical too (the question's
// words found in it, not only a close vector: "quanto custa um carro
// usado?" against "Quanto custa o frete?") took those turns from 80 right
// of 96 to 80 of 87 at 100 questions a cross-domain set. highLexical was
// 0.3 until a hit's vector alone stopped making it relevant below
// minVectorCoverage: that cap leaves one lexical hit where there were
// several, and at 0.3 the cross-domain turns at high fell from 56 right of
// 61 to 58 of 68 (off-topic FAQs holding two of the question's words);
// at the relevance threshold, 0.6 (the record holds the question's words
// as well as a relevant record must), they are 55 of 59 (0.932), and
// 54 of 57 without the cap.
const (
	highRelevance = 0.8
	highLexical   = 0.6
)

// turnLevel is the confidence of a turn: none, and the turn abstains, when
// the mean relevance of its kept hits is below the Low threshold of
// PipelineOptions.Confidence; otherwise high when it cites one record of
// relevance ≥ highRelevance and lexical evidence ≥ highLexical that is not
// an item only mentioning the treatment asked (Evidence.mentionsOnly: a
// bean seed "suscetível ao mofo-branco" for "o que vocês vendem pra
// mofo-branco no feijão?") nor relevant only by its name or a described
// problem (ReasonNamed, a farmer's account around the crop and pest),
// medium when every record it cites has that relevance, low otherwise.
// The last condition was added on the chat sets' reliability tables
// (fewer high turns, every one right: blind8 12 of 13 → 10 of 10; the
// cross-domain table unchanged at 56 of 61).
func (p *Pipeline) turnLevel(r *searchResults) scoring.Level {
	l := p.opts.Confidence.Level(r.meanRelevance())
	if !l.Augment() {
		return l
	}
	n, low, lex := 0, 1.0, 1.0
	notHigh := false // a record only mentioning, named or described
	r.eachEvidence(func(e *Evidence) {
		n++
		if e == nil {
			low, lex = 0, 0
		} else {
			low, lex = min(low, e.Relevance), min(lex, e.Lexical)
			// A record relevant only because it is named or holds the
			// described problem's pair (its lexical evidence lifted to
			// the threshold while much of the question is missing: "o
			// Fungiprot serve pra uva? tenho parreira no quintal") is no
			// record holding the question's words.
			notHigh = notHigh || e.mentionsOnly || e.Reason == ReasonNamed || e.described
		}
	})
	switch {
	case n == 1 && low >= highRelevance && lex >= highLexical && !notHigh:
		return scoring.LevelHigh
	case n > 0 && low >= highRelevance:
		return scoring.LevelMedium
	}
	return scoring.LevelLow
}

// eachEvidence calls f with the evidence of every kept hit (nil for a hit
// without one): items, FAQs, documents.
func (r *searchResults) eachEvidence(f func(*Evidence)) {
	for i := range r.catalog {
		f(r.catalog[i].Evidence)
	}
	for i := range r.faqs {
		f(r.faqs[i].Evidence)
	}
	for i := range r.docs {
		f(r.docs[i].Evidence)
	}
}

// meanRelevance is the mean relevance of the kept hits; 0 when none.
func (r *searchResults) meanRelevance() float64 {
	var rel []float64
	r.eachEvidence(func(e *Evidence) {
		if e != nil {
			rel = append(rel, e.Relevance)
		}
	})
	return mean(rel)
}

// runSearches runs the planned searches concurrently, then keeps the
// relevant hits of each (selectRelevant) within the context budget. A
// failed search is reported in errors and yields no hits; the turn goes
// on. cq searches the catalog, dq the documents, and message plus
// faqContext the FAQs. With fallbackDocs (a turn whose plan leaves the
// documents out) the documents are searched after the others, unless an
// item or FAQ is fully relevant, and their hits kept only when they answer
// better (documentsKept); with fallbackCatalog the catalog is searched
// last when no search kept a hit.
func (p *Pipeline) runSearches(ctx context.Context, plan Plan, fallbackDocs, fallbackCatalog bool, message string, cq, dq searchText, faqContext string, reqLimit int, emit func(Event)) *searchResults {
	catalogQuery := combineQueryWithContext(cq.text, cq.context, p.searcher.opts.Limits.MaxQueryChars)
	query := combineQueryWithContext(dq.text, dq.context, p.searcher.opts.Limits.MaxQueryChars)
	faqQuery := combineQueryWithContext(message, faqContext, p.searcher.opts.Limits.MaxFAQQueryChars)
	res := &searchResults{timings: map[string]Timings{}, considered: map[string]int{},
		catalogQ: p.quoter.prepareTurn(cq.text, cq.context), faqQ: p.quoter.prepareTurn(message, faqContext), docQ: p.quoter.prepareTurn(dq.text, dq.context)}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
		// failed: the searches that failed, by tool.
		failed = map[string]bool{}
	)
	type call struct {
		tool, query string
	}
	var calls []call
	if plan.FAQ {
		calls = append(calls, call{ToolSearchFAQs, faqQuery})
	}
	if plan.Catalog {
		calls = append(calls, call{ToolSearchCatalog, catalogQuery})
	}
	if plan.Documents {
		calls = append(calls, call{ToolSearchDocuments, query})
	}
	if emit != nil {
		for _, c := range calls {
			emit(Event{Kind: EventToolCall, Tool: c.tool, Query: c.query})
		}
	}
	limit := max(reqLimit, 0)
	done := func(tool string) func(int, Timings, FallbackReason, error) {
		return func(n int, tm Timings, fb FallbackReason, err error) {
			mu.Lock()
			defer mu.Unlock()
			res.timings[tool] = tm
			res.considered[tool] = n
			if fb != FallbackNone && res.fallback == FallbackNone {
				res.fallback = fb
			}
			if err != nil {
				failed[tool] = true
				res.errors = append(res.errors, tool+": "+err.Error())
			}
		}
	}
	cut := defaultRelativeCut
	if plan.FAQ {
		wg.Go(func() {
			searchLeg(func() (*Result[storage.FAQ], error) {
				return p.searcher.SearchFAQs(ctx, Query{Text: message, Context: faqContext, Limit: limit})
			}, &res.faqs, func(f *storage.FAQ) int { return f.Priority }, cut, done(ToolSearchFAQs))
		})
	}
	searchCatalog := func() {
		searchLeg(func() (*Result[storage.CatalogItem], error) {
			r, err := p.searcher.SearchCatalog(ctx, Query{Text: cq.text, Context: cq.context, Limit: limit})
			if err == nil && r != nil {
				p.lookForIdentity(ctx, r, cq, limit)
				p.lookForNamed(ctx, r, cq, limit)
			}
			if r != nil {
				res.nearMisses = nearMisses(r.Hits)
			}
			return r, err
		}, &res.catalog, nil, cut, done(ToolSearchCatalog))
	}
	if plan.Catalog {
		wg.Go(searchCatalog)
	}
	searchDocs := func() {
		searchLeg(func() (*Result[storage.Document], error) {
			return p.searcher.SearchDocuments(ctx, Query{Text: dq.text, Context: dq.context, Limit: limit})
		}, &res.docs, nil, cut, done(ToolSearchDocuments))
	}
	if plan.Documents {
		wg.Go(searchDocs)
	}
	wg.Wait()
	// The documents of a turn whose plan leaves them out are searched
	// after the others, and only when a document could still be kept
	// (documentsKept: more relevant than every kept item and FAQ), so a
	// turn its catalog answers fully pays nothing for them.
	if best := res.bestItemOrFAQ(func(e *Evidence) float64 { return e.Relevance }); fallbackDocs && best < 1 && ctx.Err() == nil {
		res.fallbackRan = true
		calls = append(calls, call{ToolSearchDocuments, query})
		if emit != nil {
			emit(Event{Kind: EventToolCall, Tool: ToolSearchDocuments, Query: query})
		}
		searchDocs()
		res.docs = documentsKept(res, best)
	}
	if fallbackCatalog && len(res.catalog)+len(res.faqs)+len(res.docs) == 0 && res.considered[ToolSearchFAQs]+res.considered[ToolSearchDocuments] > 0 && ctx.Err() == nil {
		// A question about the store whose FAQs and documents had
		// candidates but none relevant may be about a product ("o filtro
		// daquele respirador de vocês dura quanto tempo? de quanto em
		// quanto troca": "troca" made it a support question). Not in a
		// store without FAQs or documents, where the classifier's route
		// leads nowhere: over AGROFIT (a catalog only, held out) the
		// fallback answered four more tax questions (.945 → .917).
		res.catalogFallbackRan = true
		calls = append(calls, call{ToolSearchCatalog, catalogQuery})
		if emit != nil {
			emit(Event{Kind: EventToolCall, Tool: ToolSearchCatalog, Query: catalogQuery})
		}
		searchCatalog()
	}
	// The turn could not be searched when every search it asked for
	// failed; the documents' search of a fallback counts only when its
	// hits are kept, so an outage of the catalog and the FAQs is not
	// reported as "nothing on that".
	asked, down := 0, 0
	for _, c := range calls {
		if fallbackDocs && c.tool == ToolSearchDocuments && len(res.docs) == 0 ||
			fallbackCatalog && c.tool == ToolSearchCatalog && len(res.catalog) == 0 {
			continue
		}
		asked++
		if failed[c.tool] {
			down++
		}
	}
	res.allFailed = asked > 0 && down == asked
	focusOnNamed(res)
	focusOnCovered(res, defaultCoverageGap)
	focusOnTreatment(res)
	focusOnRegistered(res)
	focusOnOwnEvidence(res)
	focusOnIdentity(res)
	focusOnValue(res)
	focusAcrossKinds(res, defaultRelativeCut)
	p.fitBudget(res, catalogQuery)
	// Abstention is decided here, before the hits events, so a turn that
	// abstains never streams sources.
	if !p.opts.Confidence.Level(res.meanRelevance()).Augment() {
		res.catalog, res.faqs, res.docs = nil, nil, nil
	}

	// Audit records and hits events in plan order, from the calling
	// goroutine.
	for _, c := range calls {
		var (
			n       int
			payload string
			cites   []Citation
		)
		switch c.tool {
		case ToolSearchFAQs:
			n, payload, cites = len(res.faqs), formatFAQContext(res.faqs, res.faqQ), faqCitations(res.faqs, res.faqQ, p.quoter)
		case ToolSearchCatalog:
			n, payload, cites = len(res.catalog), catalogPayload(catalogQuery, res.catalog, res.catalogQ), catalogCitations(res.catalog, res.catalogQ, p.quoter)
		case ToolSearchDocuments:
			n, payload, cites = len(res.docs), documentSection(res.docs, res.docQ), documentCitations(res.docs, res.docQ, p.quoter)
		}
		p.audit(ctx, c.tool, c.query, limit, n, payload)
		if emit != nil {
			emit(Event{Kind: EventHits, Tool: c.tool, Sources: cites})
		}
	}
	return res
}

// searchLeg runs one planned search and stores its relevant hits in dst
// (selectRelevant), reporting the number of hits returned, the timings,
// the fallback and the error to done. A failed search leaves dst empty.
func searchLeg[T any](run func() (*Result[T], error), dst *[]Hit[T], tie func(*T) int, cut float64, done func(int, Timings, FallbackReason, error)) {
	r, err := run()
	var (
		tm Timings
		fb FallbackReason
		n  int
	)
	if r != nil {
		n, tm, fb = len(r.Hits), r.Timings, r.FallbackReason
		*dst = selectRelevant(r.Hits, tie, cut)
	}
	done(n, tm, fb, err)
}

// selectRelevant keeps the hits whose Evidence is Relevant, in evidence
// order (byEvidence: relevance, then the concepts the record holds in its
// name, category, tags or metadata, then tie — FAQ priority — then search
// order), and
// drops those more than cut below the best one (cut < 0 keeps all).
func selectRelevant[T any](hits []Hit[T], tie func(*T) int, cut float64) []Hit[T] {
	var rel []Hit[T]
	for _, h := range hits {
		if h.Evidence != nil && h.Evidence.Relevant {
			rel = append(rel, h)
		}
	}
	if len(rel) == 0 {
		return nil
	}
	rel = byEvidence(rel, tie)
	if cut >= 0 {
		best := rel[0].Evidence.Relevance
		n := 0
		for _, h := range rel {
			if h.Evidence.Relevance >= best-cut-1e-9 {
				rel[n] = h
				n++
			}
		}
		rel = rel[:n]
	}
	return rel
}

// fitBudget drops the least relevant hits, across searches, until the
// retrieved sections fit ContextTokens, counted by the TokenCounter over
// the sections' texts joined (by default about 4 characters a token). The
// best hit of the turn is always kept.
func (p *Pipeline) fitBudget(r *searchResults, catalogQuery string) {
	size := func() int {
		var b strings.Builder
		if len(r.faqs) > 0 {
			b.WriteString(faqSection(r.faqs, r.faqQ))
		}
		if len(r.catalog) > 0 {
			b.WriteString(catalogPayload(catalogQuery, r.catalog, r.catalogQ))
		}
		if len(r.docs) > 0 {
			b.WriteString(documentSection(r.docs, r.docQ))
		}
		return p.countTokens(b.String())
	}
	for size() > p.opts.ContextTokens && len(r.faqs)+len(r.catalog)+len(r.docs) > 1 {
		// Drop the last hit of the search whose last hit is least relevant.
		worst, which := 2.0, -1
		consider := func(e *Evidence, i int) {
			if e != nil && e.Relevance < worst {
				worst, which = e.Relevance, i
			} else if e == nil && which < 0 {
				which = i
			}
		}
		if n := len(r.faqs); n > 0 {
			consider(r.faqs[n-1].Evidence, 0)
		}
		if n := len(r.catalog); n > 0 {
			consider(r.catalog[n-1].Evidence, 1)
		}
		if n := len(r.docs); n > 0 {
			consider(r.docs[n-1].Evidence, 2)
		}
		switch which {
		case 0:
			r.faqs = r.faqs[:len(r.faqs)-1]
		case 1:
			r.catalog = r.catalog[:len(r.catalog)-1]
		case 2:
			r.docs = r.docs[:len(r.docs)-1]
		default:
			return
		}
	}
}

func catalogCitations(hits []Hit[storage.CatalogItem], qs *question, q *quoter) []Citation {
	out := make([]Citation, len(hits))
	for i := range hits {
		h := &hits[i]
		out[i] = Citation{Kind: storage.KindItem, ID: h.ID, Title: h.Record.Name, Score: h.Score, Quote: qs.itemQuote(&h.Record, q)}
	}
	return out
}

func faqCitations(hits []Hit[storage.FAQ], qs *question, q *quoter) []Citation {
	out := make([]Citation, len(hits))
	for i := range hits {
		h := &hits[i]
		out[i] = Citation{Kind: storage.KindFAQ, ID: h.ID, Title: h.Record.Question, Score: h.Score, Quote: qs.faqQuote(&h.Record, q)}
	}
	return out
}

func documentCitations(hits []Hit[storage.Document], qs *question, q *quoter) []Citation {
	out := make([]Citation, len(hits))
	for i := range hits {
		h := &hits[i]
		_, cite := qs.documentPassages(h) // the section the passages come from
		out[i] = Citation{Kind: storage.KindDocument, ID: h.ID, Title: cite, Score: h.Score, Quote: qs.documentQuote(h, q)}
	}
	return out
}

func (p *Pipeline) citations(r *searchResults) []Citation {
	out := faqCitations(r.faqs, r.faqQ, p.quoter)
	out = append(out, catalogCitations(r.catalog, r.catalogQ, p.quoter)...)
	return append(out, documentCitations(r.docs, r.docQ, p.quoter)...)
}

// audit logs what a search gave the answerer: tool name, arguments JSON, result
// count and a payload preview, through the configured logger only.
func (p *Pipeline) audit(ctx context.Context, tool, query string, limit, count int, payload string) {
	if p.opts.Logger == nil {
		return
	}
	args, _ := json.Marshal(map[string]any{"query": query, "limit": limit})
	preview := payload
	if utf8.RuneCountInString(preview) > defaultAuditPreview {
		preview = textutil.TruncateRunes(preview, defaultAuditPreview-1) + "…"
	}
	p.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "rag tool payload",
		slog.String("tool", tool),
		slog.String("arguments", string(args)),
		slog.Int("results", count),
		slog.String("payload", preview))
}

// searchText is a search's own text and the conversation context that
// joins it (follow-ups only).
type searchText struct {
	text, context string
}

// focusOnNamed: when the question names a catalog item (a relevant item
// hit with Evidence.Named), FAQs and documents that lack the name are
// general material about the topic, not the answer ("Tebucor no trigo,
// quantos dias de carência?" is answered by Tebucor's leaflet, not by the
// FAQ on what carência is); they are left out.
func focusOnNamed(r *searchResults) {
	var names []string
	for i := range r.catalog {
		if e := r.catalog[i].Evidence; e != nil && e.Named && e.Name != "" {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	lacks := func(e *Evidence) bool {
		if e == nil {
			return true
		}
		for _, m := range e.Missing {
			for _, n := range names {
				if strings.HasPrefix(n, m) || strings.HasPrefix(m, n) {
					return true
				}
			}
		}
		return false
	}
	r.faqs = slices.DeleteFunc(r.faqs, func(h Hit[storage.FAQ]) bool { return lacks(h.Evidence) })
	r.docs = slices.DeleteFunc(r.docs, func(h Hit[storage.Document]) bool { return lacks(h.Evidence) })
}

// focusAcrossKinds applies the relative cut across kinds: the FAQs and
// documents more than cut below the turn's most relevant hit, of any kind,
// are left out, as each search leaves out its own (selectRelevant).
// Catalog items keep their search's cut: a product question keeps its
// products beside a FAQ that answers it better. "vcs tem bomba costal?"
// cites the two sprayers (relevance 1.0), not the calibration FAQ (0.61).
// Measured on the fifteen chat sets (BENCHMARKS.md, eleventh pass): nine
// turns fixed, none lost; -cross unchanged.
func focusAcrossKinds(r *searchResults, cut float64) {
	best := -1.0
	r.eachEvidence(func(e *Evidence) {
		if e != nil {
			best = max(best, e.Relevance)
		}
	})
	below := func(e *Evidence) bool { return e == nil || e.Relevance < best-cut-1e-9 }
	r.faqs = slices.DeleteFunc(r.faqs, func(h Hit[storage.FAQ]) bool { return below(h.Evidence) })
	r.docs = slices.DeleteFunc(r.docs, func(h Hit[storage.Document]) bool { return below(h.Evidence) })
}

// focusOnValue: when the question asks for a kind of value (a duration,
// a time of day, a stage) and a relevant FAQ or document holds one beside
// the question's words, the FAQs and documents holding none at all are
// left out: "o vazio sanitário da soja é de quantos dias?" is answered by
// the section stating "pelo menos 60 dias", not by a FAQ telling to
// respect it. Catalog items are not judged so (a leaflet holds durations of every
// kind). Measured on the thirteen seen chat sets (BENCHMARKS.md, tenth
// pass): eight turns lost a record that did not answer, none lost an
// answer; -cross unchanged.
func focusOnValue(r *searchResults) {
	held := slices.ContainsFunc(r.faqs, func(h Hit[storage.FAQ]) bool { return h.Evidence != nil && h.Evidence.valueHeld }) ||
		slices.ContainsFunc(r.docs, func(h Hit[storage.Document]) bool { return h.Evidence != nil && h.Evidence.valueHeld })
	if !held {
		return
	}
	lacks := func(e *Evidence) bool { return e != nil && e.valueAsked && !e.valueAnywhere }
	r.faqs = slices.DeleteFunc(r.faqs, func(h Hit[storage.FAQ]) bool { return lacks(h.Evidence) })
	r.docs = slices.DeleteFunc(r.docs, func(h Hit[storage.Document]) bool { return lacks(h.Evidence) })
}

// documentsKept returns the documents a turn whose plan left them out (a
// catalog question) keeps: when its items and FAQs kept nothing, all of
// them if the question asks more than one thing (asksMoreThanOneThing);
// else those more relevant than best, the most relevant kept item or FAQ.
// A question phrased as a purchase may be answered by the store's
// knowledge base ("pra comprar adubo foliar precisa de receita do
// agrônomo?": the prescription guide, not only a fertilizer whose leaflet
// mentions an agronomist). Measured on the chat sets, all seen
// (BENCHMARKS.md, tenth pass): source recall up on eight of thirteen,
// precision down on seven; -cross unchanged. Searching them only when
// nothing else was kept (before) lost those answers.
func documentsKept(r *searchResults, best float64) []Hit[storage.Document] {
	if len(r.catalog)+len(r.faqs) == 0 {
		if asksMoreThanOneThing(r.docs) {
			return r.docs
		}
		return nil
	}
	return slices.DeleteFunc(r.docs, func(h Hit[storage.Document]) bool { return h.Evidence == nil || h.Evidence.Relevance <= best })
}

// bestItemOrFAQ returns the largest f over the evidence of the turn's kept
// items and FAQs; 0 when there is none.
func (r *searchResults) bestItemOrFAQ(f func(*Evidence) float64) float64 {
	best := 0.0
	for i := range r.catalog {
		if e := r.catalog[i].Evidence; e != nil {
			best = max(best, f(e))
		}
	}
	for i := range r.faqs {
		if e := r.faqs[i].Evidence; e != nil {
			best = max(best, f(e))
		}
	}
	return best
}

// asksMoreThanOneThing reports whether the question, as the evidence of
// its hits analyzed it, has more than one content concept (no function
// word: "used" in "can I buy a used tractor?"): "vocês vendem trator?"
// asks for one thing, which a manual mentioning tractors does not sell;
// "quantas sementes um pé de buva produz?" asks about something.
func asksMoreThanOneThing(hits []Hit[storage.Document]) bool {
	for _, h := range hits {
		if e := h.Evidence; e != nil {
			return e.content > 1
		}
	}
	return false
}

// focusOnCovered: when an item or FAQ of the turn holds all of the
// question's content (coverage 1), hits of any search whose coverage is
// more than gap below it lack part of what was asked and are left out
// (gap < 0 keeps them). Chosen on the tune half of the chat evaluation:
// source precision 0.803 → 0.812, recall and facts unchanged; letting
// documents set the bar too gave 0.873 but lost the FAQ of a paraphrase
// to long documents that hold every word.
func focusOnCovered(r *searchResults, gap float64) {
	if gap < 0 {
		return
	}
	// Documents are long: holding every word of the question is common
	// for them, so only items and FAQs set the bar.
	best := r.bestItemOrFAQ(func(e *Evidence) float64 { return e.Coverage })
	if best < 0.999 {
		return
	}
	low := func(e *Evidence) bool { return e == nil || e.Coverage < best-gap }
	r.catalog = slices.DeleteFunc(r.catalog, func(h Hit[storage.CatalogItem]) bool { return low(h.Evidence) })
	r.faqs = slices.DeleteFunc(r.faqs, func(h Hit[storage.FAQ]) bool { return low(h.Evidence) })
	r.docs = slices.DeleteFunc(r.docs, func(h Hit[storage.Document]) bool { return low(h.Evidence) })
}

// focusOnOwnEvidence leaves out the hits relevant only as the answer to
// a described problem (Evidence.described) when another hit of the turn,
// of any search, is relevant on its own evidence: "qual volume de calda
// usar no fungicida pra ferrugem da soja?" is answered by the
// application guide, not by every soybean fungicide. Counting documents
// too was chosen on testdata/chat_eval.jsonl (tune precision 0.763 →
// 0.806 against items and FAQs only; every other set equal).
func focusOnOwnEvidence(r *searchResults) {
	own := false
	r.eachEvidence(func(e *Evidence) {
		if e != nil && e.Relevant && !e.described {
			own = true
		}
	})
	if !own {
		return
	}
	described := func(e *Evidence) bool { return e != nil && e.described }
	r.catalog = slices.DeleteFunc(r.catalog, func(h Hit[storage.CatalogItem]) bool { return described(h.Evidence) })
	r.faqs = slices.DeleteFunc(r.faqs, func(h Hit[storage.FAQ]) bool { return described(h.Evidence) })
	r.docs = slices.DeleteFunc(r.docs, func(h Hit[storage.Document]) bool { return described(h.Evidence) })
}

// notCarried returns what the message asks that the store does not carry
// for its subject, in the message's own words, from a near miss's
// evidence (Evidence.otherSubject: it holds what is asked, Covered, but
// not the crop, Missing) and category (what it is: "Inseticida", so "tem
// inseticida pra fumo?" is quoted though the evidence covers only the pest):
// the words from a covered one to the last missing one after it
// ("semente de girassol", "fungicida pra girassol", "semente de girassol ou
// de sorgo"), or the two when the crop comes just before ("sunflower
// seeds"), within one clause — no comma, colon, semicolon, question or
// exclamation mark between, unless a preposition follows it ("semente, de
// girassol") — so "o fumo ta com pulgao, tem inseticida pra fumo?" quotes
// "inseticida pra fumo", not "pulgao, tem inseticida pra fumo"; of several
// such spans, the one ending last, from its first covered word ("fungicida
// pra ferrugem na aveia", not "ferrugem na aveia"); joined by single spaces
// (no punctuation of the message); "" when there is none.
func notCarried(message string, e *Evidence, category string) (what string, problem bool) {
	if e == nil || len(e.Covered) == 0 || len(e.Missing) == 0 {
		return "", false
	}
	type word struct {
		start, end int
		norm       string
		// broken: a clause break comes before the word.
		broken bool
	}
	var words []word
	start, prevEnd := -1, 0
	for i, r := range message + " " {
		letter := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-'
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			norm := lexical.Normalize(message[start:i])
			broken := len(words) > 0 && strings.ContainsAny(message[prevEnd:start], ",:;?!") && !linkWords[norm]
			words = append(words, word{start, i, norm, broken})
			start, prevEnd = -1, i
		}
	}
	var kinds []string // the category's words
	for _, w := range textutil.NormWords(category) {
		if len(w) >= 4 && !lexical.DefaultStopwords().Contains(w) {
			kinds = append(kinds, w)
		}
	}
	covered := slices.Concat(e.Covered, kinds)
	matches := func(w string, labels []string) bool {
		return slices.ContainsFunc(labels, func(l string) bool {
			return l != "" && (strings.HasPrefix(w, l) || strings.HasPrefix(l, w) && len(w) >= 4)
		})
	}
	// oneClause reports whether no clause break falls within words[from..to].
	oneClause := func(from, to int) bool {
		for k := from + 1; k <= to; k++ {
			if words[k].broken {
				return false
			}
		}
		return true
	}
	from, to := -1, -1
	for i, c := range words {
		if !matches(c.norm, covered) {
			continue
		}
		for j, m := range words {
			if !matches(m.norm, e.Missing) {
				continue
			}
			a, b := i, j
			switch {
			case i < j && j-i < maxNotCarriedWords:
			case j == i-1:
				a, b = j, i // "sunflower seeds"
			default:
				continue
			}
			if oneClause(a, b) && (b > to || b == to && a < from) {
				from, to = a, b
			}
		}
	}
	if from < 0 {
		return "", false
	}
	span := make([]string, 0, to-from+1)
	for _, w := range words[from : to+1] {
		span = append(span, message[w.start:w.end])
	}
	// A span opening with what the item is ("fungicida pra quiabo") names
	// an item; one opening with the pest or disease asked ("pulgão na
	// alface") names a problem.
	problem = matches(words[from].norm, e.Covered) && !matches(words[from].norm, kinds) && !matches(words[from].norm, e.Missing)
	return strings.Join(span, " "), problem
}

// pestWord reports whether word names a pest or disease of the synonym
// table ("pulgão", "ferrugem", "aphids"): a variant of a class that is no
// class word itself ("fungicida", "insecticide": a product kind).
func pestWord(word string, syn *lexical.Synonyms) bool {
	n := lexical.Normalize(word)
	for _, suf := range []string{"cida", "cidas", "cide", "cides"} {
		if strings.HasSuffix(n, suf) {
			return false
		}
	}
	return slices.ContainsFunc(syn.Detect(word), func(m lexical.Mention) bool { return m.Category == lexical.CategoryClass })
}

// linkWords are prepositions that carry a phrase across a comma or a
// question mark ("semente, de girassol", "tem fungicida? pro quiabo").
var linkWords = map[string]bool{"de": true, "do": true, "da": true, "dos": true, "das": true, "pra": true, "pro": true,
	"para": true, "no": true, "na": true, "for": true, "of": true}

// maxNotCarriedWords bounds the words notCarried quotes of a message.
const maxNotCarriedWords = 6

// maxNearMisses is the number of items an abstaining turn lists as
// related.
const maxNearMisses = 3

// nearMisses returns up to maxNearMisses hits that hold what the query
// asks but its subject (Evidence.otherSubject), by relevance.
func nearMisses(hits []Hit[storage.CatalogItem]) []Hit[storage.CatalogItem] {
	var out []Hit[storage.CatalogItem]
	for _, h := range hits {
		if h.Evidence != nil && h.Evidence.otherSubject && !h.Evidence.Relevant {
			out = append(out, h)
		}
	}
	out = byEvidence(out, nil)
	return out[:min(len(out), maxNearMisses)]
}

// focusOnIdentity: for a question asking one thing ("vocês vendem
// glifosato?"), when some relevant catalog item holds it in its name,
// category, tags or metadata (what the item is: its active ingredient),
// the relevant items that only mention it in their text (a soybean seed
// "tolerante ao glifosato", a herbicide "parceiro do glifosato") are left
// out, as items holding it only in their leaflets are (ReasonFilesOnly).
// Every chat set unchanged but the agro store's own precision in -cross
// (0.771 → 0.780).
func focusOnIdentity(r *searchResults) {
	one, best := false, 0
	for i := range r.catalog {
		if e := r.catalog[i].Evidence; e != nil {
			one = one || len(e.Covered)+len(e.Missing) == 1
			best = max(best, e.identity)
		}
	}
	if !one || best == 0 {
		return
	}
	r.catalog = slices.DeleteFunc(r.catalog, func(h Hit[storage.CatalogItem]) bool { return h.Evidence == nil || h.Evidence.identity == 0 })
}

// focusOnTreatment: for a treatment asked (a class, or a pest, disease or
// weed the synonym table files under one), when some relevant catalog
// item is of that class (an insecticide for "lagarta no cartucho do
// milho", "inseticidas pra lagarta"), the items that only mention the problem and are not what
// the question asks for (a Bt seed "com proteção contra lagartas"; not
// for "semente de capim", where the seed is what is asked) are left out.
// It runs before focusOnOwnEvidence, so such an item, relevant on its
// own words ("cigarrinha", "milho"), does not in turn leave out the
// insecticides answering the described problem. A class asked by name
// counts too. Chosen on the chat sets (BENCHMARKS.md, the sixth pass).
func focusOnTreatment(r *searchResults) {
	var treated []string // what relevant items treat
	for _, h := range r.catalog {
		if e := h.Evidence; e != nil && e.Relevant {
			treated = append(treated, e.treated...)
		}
	}
	if len(treated) == 0 {
		return
	}
	// An item only mentioning a treatment asked goes when every treatment
	// it mentions is treated by a relevant item ("lagarta e ferrugem na
	// soja": a fungicide does not leave out the Bt seed when no
	// insecticide is relevant).
	r.catalog = slices.DeleteFunc(r.catalog, func(h Hit[storage.CatalogItem]) bool {
		e := h.Evidence
		return e != nil && e.mentionsOnly && !slices.ContainsFunc(e.mentioned, func(m string) bool { return !slices.Contains(treated, m) })
	})
}

// focusOnRegistered: for a problem asked on a crop, when some relevant
// catalog item holds them on one line (the leaflet row registering it:
// "Feijão: mosca-branca — 0,5 L/ha"), the items holding them only apart
// (registered for the pest on other crops, Evidence.apart) are left out;
// an item that is itself what the question asks for ("fosfito", "semente
// de capim") is never apart. A line is a sentence or a list item of a
// leaflet written as prose (sentences). Chosen on the chat sets and the
// cross-domain evaluation (BENCHMARKS.md, the sixth pass).
func focusOnRegistered(r *searchResults) {
	if !slices.ContainsFunc(r.catalog, func(h Hit[storage.CatalogItem]) bool {
		return h.Evidence != nil && h.Evidence.Relevant && h.Evidence.problem && h.Evidence.Pair && !h.Evidence.apart
	}) {
		return
	}
	r.catalog = slices.DeleteFunc(r.catalog, func(h Hit[storage.CatalogItem]) bool { return h.Evidence != nil && h.Evidence.apart })
}

// identityLookLimit is how many items a one-thing question's second look
// reads (lookForIdentity).
const identityLookLimit = 20

// lookForIdentity: a question asking one thing ("vocês vendem glifosato?")
// whose hits all only mention it (a seed "tolerante ao glifosato", a
// herbicide "parceiro do glifosato") searches again, deeper, for items
// that are it (its name, category, tags or metadata: Glifovale, whose
// active ingredient it is, ranked sixth); those found replace r's hits.
func (p *Pipeline) lookForIdentity(ctx context.Context, r *Result[storage.CatalogItem], cq searchText, limit int) {
	one := false
	for _, h := range r.Hits {
		if e := h.Evidence; e != nil {
			if e.identity > 0 && e.Relevant {
				return
			}
			one = one || len(e.Covered)+len(e.Missing) == 1
		}
	}
	if !one || len(r.Hits) == 0 {
		return
	}
	found := p.lookDeeper(ctx, cq, limit, func(e *Evidence) bool { return e.identity > 0 })
	if len(found) == 0 {
		return
	}
	// The items only mentioning it go now (focusOnIdentity would leave
	// them out after the relative cut), so they do not cut an item that is
	// it ("tem glifozato?": Glifovale, held through the typo's correction,
	// is less relevant than the items mentioning glifosato in full).
	r.Hits = found
}

// lookDeeper searches the catalog again, identityLookLimit deep (or limit
// when larger), and returns the relevant hits keep accepts; nil when the
// search fails.
func (p *Pipeline) lookDeeper(ctx context.Context, cq searchText, limit int, keep func(*Evidence) bool) []Hit[storage.CatalogItem] {
	deep, err := p.searcher.SearchCatalog(ctx, Query{Text: cq.text, Context: cq.context, Limit: max(limit, identityLookLimit)})
	if err != nil {
		return nil
	}
	var found []Hit[storage.CatalogItem]
	for _, h := range deep.Hits {
		if e := h.Evidence; e != nil && e.Relevant && keep(e) {
			found = append(found, h)
		}
	}
	return found
}

// lookForNamed: a question naming an item by a rare word no dictionary
// knows (its name or, in its metadata, its active ingredient) none of
// whose relevant hits it names searches again, deeper, for the items it
// names (Evidence.Named by that word); those found go first. "o cletox
// age como? qual o mecanismo dele": Cletox 240 EC ranked eighth, behind
// leaflets holding "mecanismo", and the turn abstained. Measured on the
// fifteen development sets (BENCHMARKS.md, thirteenth pass): that turn
// answered, nothing else moved, -cross unchanged; a review's 100 probes:
// eleven "o X age como?" turns answered with X, one naming two products
// answered about the one found.
func (p *Pipeline) lookForNamed(ctx context.Context, r *Result[storage.CatalogItem], cq searchText, limit int) {
	asked := ""
	for _, h := range r.Hits {
		if e := h.Evidence; e != nil {
			if e.Relevant && e.Named {
				return
			}
			if asked == "" {
				asked = e.nameAsked
			}
		}
	}
	if asked == "" {
		return
	}
	found := p.lookDeeper(ctx, cq, limit, func(e *Evidence) bool { return e.Named && e.Name == asked })
	if len(found) == 0 {
		return
	}
	r.Hits = append(found, slices.DeleteFunc(r.Hits, func(h Hit[storage.CatalogItem]) bool {
		return slices.ContainsFunc(found, func(f Hit[storage.CatalogItem]) bool { return f.ID == h.ID })
	})...)
}

// followUpContext is the conversation a follow-up continues: the last
// user turn, and the ones before it while each is itself a follow-up
// ("qual a dose do Tebucor?" → "e no café?" → "e o preço?"), at most
// three turns.
func (p *Pipeline) followUpContext(history []Turn) string {
	var parts []string
	for len(parts) < 3 {
		i := len(history) - 1
		for i >= 0 && history[i].Role != llm.RoleUser {
			i--
		}
		if i < 0 {
			break
		}
		parts = append([]string{history[i].Content}, parts...)
		earlier := history[:i]
		if !p.opts.FollowUp(history[i].Content, earlier).FollowUp {
			break
		}
		history = earlier
	}
	return strings.Join(parts, " ")
}

// lastAssistant returns the assistant's answer to the last user turn of
// history, "" when there is none.
func lastAssistant(history []Turn) string {
	for i := len(history) - 1; i >= 0; i-- {
		switch history[i].Role {
		case llm.RoleAssistant:
			return history[i].Content
		case llm.RoleUser:
			return ""
		}
	}
	return ""
}

// clauseRetry searches again, for a planned turn that found nothing
// relevant, by the clause of message that asks (askingClause), with the
// rest of the message as its context: the words of the story then weigh
// contextWeight, as an earlier turn's do in a follow-up, instead of
// outweighing what is asked ("devolvi o pedido semana passada, o estorno
// no cartão cai quando?" → the refund FAQ). It returns the new results when
// they are relevant (the turn answers at low confidence at most: only
// part of the message was found), else nil; nothing is searched when the
// story is another domain's (storyKnown). Measured on the fifteen chat
// sets, all seen (BENCHMARKS.md, eleventh pass): six turns answered right,
// two that abstained answer wrongly; the cross-domain stores unchanged. The clause alone, without its context, answered more and
// cost the cross-domain abstention.
func (p *Pipeline) clauseRetry(ctx context.Context, plan Plan, fallbackDocs, fallbackCatalog bool, message string, limit int, emit func(Event)) (sr *searchResults, clause, rest string) {
	clause, rest = askingClause(message)
	if clause == "" || !p.searcher.storyKnown(ctx, rest) {
		return nil, "", ""
	}
	// The round's events reach the caller only when its results are kept:
	// a retry that finds nothing streams nothing.
	var events []Event
	var buffer func(Event)
	if emit != nil {
		buffer = func(e Event) { events = append(events, e) }
	}
	q := searchText{text: clause, context: rest}
	sr = p.runSearches(ctx, plan, fallbackDocs, fallbackCatalog, clause, q, q, rest, limit, buffer)
	if sr.allFailed || !p.turnLevel(sr).Augment() {
		return nil, "", ""
	}
	for _, e := range events {
		emit(e)
	}
	return sr, clause, rest
}

// askingClause splits a message of several clauses (ended by ".", ",",
// ";", "!", "?" before a space or the end, or a line break) into the
// clause that asks, the last one ending in a question mark (else the last
// one), and the rest. It returns "" when the message is one clause or the
// asking clause is a single word ("agora??").
func askingClause(message string) (clause, rest string) {
	type span struct{ start, end int }
	var clauses []span
	start := 0
	for i := 0; i < len(message); i++ {
		switch message[i] {
		case '.', ',':
			if i+1 < len(message) && message[i+1] != ' ' && message[i+1] != '\n' {
				continue // "2.000", "2,4-D", "1,5"
			}
		case ';', '!', '?', '\n':
		default:
			continue
		}
		if strings.TrimFunc(message[start:i+1], func(r rune) bool { return strings.ContainsRune(".,;!?\n ", r) }) != "" {
			clauses = append(clauses, span{start, i + 1})
		}
		start = i + 1
	}
	if strings.TrimSpace(message[start:]) != "" {
		clauses = append(clauses, span{start, len(message)})
	}
	if len(clauses) < 2 {
		return "", ""
	}
	ask := clauses[len(clauses)-1]
	for i := len(clauses) - 1; i >= 0; i-- {
		if strings.HasSuffix(strings.TrimRight(message[clauses[i].start:clauses[i].end], " \n"), "?") {
			ask = clauses[i]
			break
		}
	}
	clause = strings.TrimSpace(message[ask.start:ask.end])
	if len(strings.Fields(strings.TrimRight(clause, "?!. "))) < 2 {
		return "", ""
	}
	return clause, strings.TrimSpace(message[:ask.start] + " " + message[ask.end:])
}

// priceOrderHits answers a follow-up asking which of the items the last
// answer named is the cheapest or the dearest ("qual desses é mais
// barato?", "which one is cheaper?"): those items (Searcher.namedItems),
// active, of the kind most of them are (a seed answer that also named a
// herbicide compares seeds; "Acaricida/Inseticida" and "Inseticida",
// pesticides of one class, are compared together), priced ones cheapest first (dearest
// first for "mais caro"), then those without a price, as named hits, and
// the order (1 or -1); nil when the message asks no price order, asks
// anything beside it ("…pro milho?", "…por hectare?", "o frete mais
// barato?", "tem algum mais barato?": another question, searched as such)
// or the last answer named fewer than two such items or none with a price. Relevance
// searches cannot answer it: the message names nothing but the price, and
// the prices are in the records.
func (p *Pipeline) priceOrderHits(ctx context.Context, message string, recent []Turn) ([]Hit[storage.CatalogItem], int) {
	order := priceOrder(message)
	if order == 0 || !onlyPriceOrder(message) {
		return nil, 0
	}
	items, _ := p.searcher.namedItems(ctx, lastAssistant(recent))
	items = slices.DeleteFunc(items, func(it storage.CatalogItem) bool { return !it.Status.Active() })
	count := map[string]int{}
	category := ""
	for _, it := range items {
		count[it.Category]++
		if category == "" || count[it.Category] > count[category] {
			category = it.Category
		}
	}
	// A pesticide of the majority's class is compared too
	// ("Acaricida/Inseticida" beside "Inseticida"); anything else only of
	// the very category ("EPI", "Sementes").
	syn := p.searcher.scorers[itemKind.index].Synonyms()
	kind := categoryClasses(category, syn)
	items = slices.DeleteFunc(items, func(it storage.CatalogItem) bool {
		if len(kind) == 0 {
			return it.Category != category
		}
		return !slices.ContainsFunc(categoryClasses(it.Category, syn), func(c string) bool { return slices.Contains(kind, c) })
	})
	priced := 0
	for _, it := range items {
		if it.Price != nil {
			priced++
		}
	}
	if priced == 0 || len(items) < 2 {
		return nil, 0
	}
	slices.SortStableFunc(items, func(a, b storage.CatalogItem) int {
		if a.Price == nil || b.Price == nil {
			return boolInt(a.Price == nil) - boolInt(b.Price == nil)
		}
		return order * cmp.Compare(*a.Price, *b.Price)
	})
	hits := make([]Hit[storage.CatalogItem], len(items))
	for i, it := range items {
		hits[i] = Hit[storage.CatalogItem]{ID: it.ID, Record: it, Source: SourceLexical, Snippet: it.Description,
			Evidence: &Evidence{Relevance: 1, Relevant: true, Reason: ReasonNamed, Coverage: 1, Named: true, Name: it.Name}}
	}
	return hits, order
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// priceOrderText is the "price-order" context section: what the order of
// the catalog section means.
func priceOrderText(order int) string {
	if order < 0 {
		return "Os produtos acima estão do mais caro ao mais barato (preço de cada embalagem); os sem preço vêm por último."
	}
	return "Os produtos acima estão do mais barato ao mais caro (preço de cada embalagem); os sem preço vêm por último."
}

// priceOrder reports whether message asks for the cheapest (1) or the
// dearest (-1) of some items; 0 when it asks neither.
func priceOrder(message string) int {
	n := textutil.PaddedWords(message)
	switch {
	case cheapestCue.MatchString(n):
		return 1
	case dearestCue.MatchString(n):
		return -1
	}
	return 0
}

// onlyPriceOrder reports whether message asks nothing but the price order
// of items already named: beside the cue, only words that point back at
// them or frame the question ("qual desses é mais barato?", "e o mais
// caro?", "which one is cheaper?").
func onlyPriceOrder(message string) bool {
	n := cheapestCue.ReplaceAllString(dearestCue.ReplaceAllString(textutil.PaddedWords(message), " "), " ")
	for _, w := range strings.Fields(n) {
		if !priceOrderFrame[w] {
			return false
		}
	}
	return true
}

// priceOrderFrame are the words a bare price-order question holds beside
// its cue (normalized).
var priceOrderFrame = map[string]bool{
	"e": true, "qual": true, "quais": true, "o": true, "a": true, "os": true, "as": true, "eh": true,
	"desses": true, "dessas": true, "destes": true, "destas": true, "deles": true, "delas": true, "entre": true,
	"eles": true, "elas": true, "ai": true, "que": true, "sai": true, "fica": true, "seria": true, "mesmo": true,
	"tem": true, "quanto": true, "custa": true, "cost": true, "costs": true,
	"which": true, "one": true, "ones": true, "is": true, "the": true, "of": true, "them": true, "and": true, "what": true, "s": true,
}

// cheapestCue and dearestCue ask for the lowest and the highest price
// (normalized text).
var (
	cheapestCue = regexp.MustCompile(` (mais (barat[oa]s?|em conta|economic[oa]s?)|menor (preco|valor)|(the )?(cheapest|cheaper|least expensive|lowest price)) `)
	dearestCue  = regexp.MustCompile(` (mais car[oa]s?|maior (preco|valor)|(the )?(most expensive|more expensive|dearest|highest price)) `)
)
