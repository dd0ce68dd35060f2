package rag

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hybridrag/hybridrag/internal/audit"
	"github.com/hybridrag/hybridrag/internal/prompt"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/storage"
)

// MaxToolLimit is the largest "limit" a model may pass to a search tool.
const maxToolLimit = 20

// AgentOptions configures an Agent. The zero value offers the three
// search tools and allows llm.DefaultMaxIterations (5) model calls; the
// prompts are in the Pipeline's language (PipelineOptions.Language).
type AgentOptions struct {
	// Model is the model name sent with each request; "" leaves the
	// ChatModel's default.
	Model string
	// FallbackModel, when not empty, is the model name each model call
	// is retried with when it fails with a retryable or server error
	// (llm.WithFallbackModel on the same ChatModel). Debug.ModelCalls
	// name the model that answered.
	FallbackModel string
	// MaxIterations is the most model calls of a turn (default 5,
	// llm.DefaultMaxIterations: a few searches and the answer). A model still asking for tools after that ends the turn with
	// *llm.MaxIterationsExceededError, or the fallback message.
	MaxIterations int
	// Tools names the search tools offered (ToolSearchCatalog,
	// ToolSearchFAQs, ToolSearchDocuments); nil offers all three.
	Tools []string
	// SystemPrompt replaces the built-in instructions.
	SystemPrompt string
	// ToolTimeout bounds each search; 0 means only ctx bounds it.
	ToolTimeout time.Duration
	// Actions are tools offered besides the searches, typically with a
	// side effect (an llm.Tool, e.g. from llm.NewTypedTool; the demo
	// server offers a quote request).
	// One with RequiresConfirmation is not executed when the model calls
	// it: the turn ends with ChatResponse.Confirmation and an
	// EventConfirm, and the next turn, given it back in
	// ChatRequest.Confirmation, confirms, rejects or corrects it. Their
	// names must differ from the searches'.
	Actions []llm.Tool
	// Decide reads the user's reply to a pending confirmation; nil means
	// llm.KeywordDecision (offline, pt-BR and English keywords). To ask a
	// model instead, which understands replies no word list holds:
	//
	//	Decide: func(ctx context.Context, p *llm.PendingConfirmation, reply string) (llm.Decision, error) {
	//		return llm.DetectDecision(ctx, model, p, reply)
	//	}
	//
	// A DecisionCorrect is never executed with patched arguments: the
	// reply goes to the model, which calls the tool again, and the user is
	// asked again, so nothing runs that the user has not confirmed as
	// it will run. An error keeps the confirmation pending:
	// the turn answers with the fallback message and returns the same
	// Confirmation.
	Decide func(ctx context.Context, pending *llm.PendingConfirmation, reply string) (llm.Decision, error)
	// ConfirmationTTL is how long a pending confirmation stays valid; 0
	// means llm.DefaultConfirmationTTL (5 minutes), a
	// negative value never expires.
	ConfirmationTTL time.Duration
}

// ToolCallRecord is one tool call of an agentic turn, for Debug.ToolCalls.
type ToolCallRecord struct {
	// Iteration is the model call that asked for the tool (from 1).
	Iteration int `json:"iteration"`
	// ID, Name and Arguments are the call as the model made it.
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Status is the outcome: ok, failed, invalid_arguments, unknown_tool.
	Status llm.ToolStatus `json:"status"`
	// Results is the number of hits returned to the model.
	Results int `json:"results"`
	// Duration is the search's run time, retry included.
	Duration time.Duration `json:"duration"`
	// Attempts is how many times the search ran: a failed search is
	// retried once before the model is told (a store failure is often
	// transient, and a model told of it answers without the search), so 2 means
	// it was retried (and Error says it failed again when set). 0 for a
	// call that ran no search (invalid arguments, an unknown tool).
	Attempts int `json:"attempts,omitempty"`
	// Error is the failure, as logged (the model gets a shorter text).
	Error string `json:"error,omitempty"`
}

// Schemas of the search tools: no SQL reaches the store, filters become
// storage.Filter values sent as bound parameters.
var (
	catalogToolSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500},
    "limit": {"type": "integer", "minimum": 1, "maximum": 20},
    "category": {"type": "string", "maxLength": 256},
    "manufacturer": {"type": "string", "maxLength": 256},
    "tag": {"type": "string", "maxLength": 256}
  },
  "required": ["query"],
  "additionalProperties": false
}`)
	searchToolSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500},
    "limit": {"type": "integer", "minimum": 1, "maximum": 20}
  },
  "required": ["query"],
  "additionalProperties": false
}`)
	catalogToolExamples = []json.RawMessage{
		json.RawMessage(`{"query":"fungicida para uva","limit":5}`),
		json.RawMessage(`{"query":"herbicida pós-emergente","category":"Herbicida","tag":"Soja"}`),
	}
	faqToolExamples      = []json.RawMessage{json.RawMessage(`{"query":"prazo de entrega"}`)}
	documentToolExamples = []json.RawMessage{json.RawMessage(`{"query":"intervalo de segurança fungicida","limit":3}`)}
)

// toolArgs are the arguments of the search tools.
type toolArgs struct {
	Query        string `json:"query"`
	Limit        int    `json:"limit"`
	Category     string `json:"category"`
	Manufacturer string `json:"manufacturer"`
	Tag          string `json:"tag"`
}

// Errors of agentic searches as the model sees them.
var (
	errToolEmptyQuery = errors.New("the query is empty: say what to search for")
	errToolFailed     = errors.New("the search failed; try again later or answer without it")
)

// Agent answers chat turns in agentic mode: the model gets
// searchCatalog, searchFaqs and searchDocuments as function tools over the
// Pipeline's Searcher and calls them until it answers, at most
// AgentOptions.MaxIterations model calls. There is no classification,
// summary or planned search: the model decides. It shares the Pipeline's
// Searcher, history limits, relevance cuts, fallback messages, audit
// logger, tracer and language. Like the Pipeline it is configured once
// (NewAgent) and is safe for concurrent use when its model is.
type Agent struct {
	p *Pipeline
	// model is the ChatModel with the fallback model name and the
	// Pipeline's tracer applied.
	model   llm.ChatModel
	opts    AgentOptions
	enabled Plan
	maxIter int
	system  string
	// confirmed names the actions that wait for the user.
	confirmed map[string]bool
}

// NewAgent returns an Agent answering with model over p's Searcher. It
// fails for a nil Pipeline or model, an unknown name in opts.Tools, an
// action named like a search tool, or an unsupported
// PipelineOptions.Language. It does no I/O.
func NewAgent(p *Pipeline, model llm.ChatModel, opts AgentOptions) (*Agent, error) {
	switch {
	case p == nil:
		return nil, errors.New("rag: NewAgent: nil Pipeline")
	case model == nil:
		return nil, errors.New("rag: agentic: nil model")
	}
	enabled, err := agentTools(opts.Tools)
	if err != nil {
		return nil, err
	}
	a := &Agent{p: p, opts: opts, enabled: enabled, confirmed: map[string]bool{}}
	a.opts.Tools = slices.Clone(opts.Tools)
	a.opts.Actions = slices.Clone(opts.Actions)
	a.maxIter = cmp.Or(max(opts.MaxIterations, 0), llm.DefaultMaxIterations)
	a.system = opts.SystemPrompt
	if strings.TrimSpace(a.system) == "" {
		a.system, err = prompt.Render(prompt.Agentic, p.lang(), agenticPromptData{
			Catalog: enabled.Catalog, FAQs: enabled.FAQ, Documents: enabled.Documents, MaxIterations: a.maxIter,
			Actions: len(opts.Actions) > 0,
			Confirm: slices.ContainsFunc(opts.Actions, func(t llm.Tool) bool { return t.RequiresConfirmation }),
		})
		if err != nil {
			return nil, err
		}
	}
	// The search tools are built per turn (their handlers collect the
	// turn's hits); building them once here checks their prompts.
	tools, err := (&agentRun{p: p}).tools(p.lang(), enabled)
	if err != nil {
		return nil, err
	}
	for _, act := range opts.Actions {
		if slices.ContainsFunc(tools, func(t llm.Tool) bool { return t.Name == act.Name }) {
			return nil, fmt.Errorf("rag: agentic: action %q has the name of a search tool", act.Name)
		}
		if act.RequiresConfirmation {
			a.confirmed[act.Name] = true
		}
	}
	if opts.FallbackModel != "" {
		model = llm.WithFallbackModel(model, opts.FallbackModel)
	}
	if p.opts.Tracer != nil {
		model = tracedModel{ChatModel: model, tracer: p.opts.Tracer, count: p.countTokens}
	}
	a.model = model
	return a, nil
}

// Chat answers one turn in agentic mode.
//
// Each tool returns its hits formatted as the Pipeline's context (see
// FormatContext: pt-BR labels, the passages that answer), is audited like
// the planned searches, and adds its hits
// to the response. A search that fails is run once more
// (ToolCallRecord.Attempts); invalid arguments, an empty query and a search
// that failed twice go back to the model as error results (storage
// details are not shown to it). The response carries the hits, sources,
// confidence and Debug with a ModelCall per iteration ("tools" or
// "answer") and every tool call. Tools with a side effect
// (AgentOptions.Actions) may end the turn waiting for the user's
// confirmation: see ChatResponse.Confirmation and ChatRequest.Confirmation.
//
// When the loop ends without an answer — *llm.MaxIterationsExceededError,
// a model error, an empty answer — the answer is the Pipeline's fallback
// message with Debug.AnswerFallback set, or, with PipelineOptions.Fallback
// Off, an error wrapping ErrNoAnswer and the cause (errors.As finds the
// *llm.MaxIterationsExceededError). A done ctx returns ctx.Err().
func (a *Agent) Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	return a.run(ctx, req, nil)
}

// ChatStream is Chat as a stream of events, like Pipeline.ChatStream: a
// tool_call event when the model asks for a search, a hits event when it
// has run, token events as the model writes (text written before a tool
// call included), then done — or a final error event, yielded with its
// error. Stopping the range early cancels the turn.
func (a *Agent) ChatStream(ctx context.Context, req ChatRequest) iter.Seq2[Event, error] {
	return stream(ctx, func(ctx context.Context, emit func(Event)) (*ChatResponse, error) {
		return a.run(ctx, req, emit)
	})
}

// agenticPromptData is the data of the agentic template.
type agenticPromptData struct {
	Catalog, FAQs, Documents bool
	MaxIterations            int
	// Actions: AgentOptions.Actions offers tools besides the searches;
	// Confirm: one of them requires confirmation.
	Actions, Confirm bool
}

// toolOutcome is what one search tool call produced.
type toolOutcome struct {
	catalog []Hit[storage.CatalogItem]
	faqs    []Hit[storage.FAQ]
	docs    []Hit[storage.Document]
	query   string
	count   int
	cites   []Citation
	timings Timings
	reason  FallbackReason
	took    time.Duration
	err     error
	// attempts is how many times the search ran (2 after a retry).
	attempts int
	// nearMisses are the catalog search's items holding what was asked
	// but its crop (see nearMisses): related when the turn abstains.
	nearMisses []Hit[storage.CatalogItem]
}

// agentRun collects the outcomes of one agentic turn's tool calls, keyed
// by tool name and arguments (identical calls give identical results).
type agentRun struct {
	p     *Pipeline
	limit int
	mu    sync.Mutex
	out   map[string]*toolOutcome
}

func toolKey(name, args string) string {
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	return name + "\x00" + args
}

func (r *agentRun) outcome(name, args string) *toolOutcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out[toolKey(name, args)]
}

func (r *agentRun) store(name string, args json.RawMessage, o *toolOutcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out[toolKey(name, string(args))] = o
}

// searchTool runs one search for a tool call and renders its payload.
func searchTool[T any](ctx context.Context, r *agentRun, name string, args json.RawMessage,
	search func(context.Context, Query) (*Result[T], error), filters func(toolArgs) []storage.Filter,
	set func(*toolOutcome, []Hit[T]), payload func(string, []Hit[T]) (model, audit string), cites func(string, []Hit[T]) []Citation,
) (string, error) {
	var a toolArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return "", fmt.Errorf("invalid arguments: %w", err)
	}
	o := &toolOutcome{query: strings.TrimSpace(a.Query)}
	defer r.store(name, args, o)
	if o.query == "" {
		o.err = errToolEmptyQuery
		return "", errToolEmptyQuery
	}
	limit := r.limit
	if a.Limit > 0 {
		limit = min(a.Limit, maxToolLimit)
	}
	q := Query{Text: o.query, Limit: limit}
	if filters != nil {
		q.Filters = filters(a)
	}
	start := time.Now()
	var (
		res *Result[T]
		err error
	)
	// A failed search is tried once more before the model is told; a bad
	// query or a done ctx is not.
	for o.attempts < 2 {
		o.attempts++
		res, err = search(ctx, q)
		if err == nil || ctx.Err() != nil || errors.Is(err, ErrEmptyQuery) || errors.Is(err, ErrInvalidQuery) {
			break
		}
	}
	o.took = time.Since(start)
	if err != nil {
		o.err = err
		switch {
		case ctx.Err() != nil:
			return "", ctx.Err()
		case errors.Is(err, ErrEmptyQuery):
			return "", errToolEmptyQuery
		case errors.Is(err, ErrInvalidQuery):
			return "", err
		}
		return "", errToolFailed
	}
	// The model sees the relevant hits only, as the planned pipeline's
	// context does; none gives the "nothing found" payload.
	hits := selectRelevant(res.Hits, nil, defaultRelativeCut)
	set(o, hits)
	if all, ok := any(res.Hits).([]Hit[storage.CatalogItem]); ok {
		o.nearMisses = nearMisses(all)
	}
	o.count, o.cites = len(hits), cites(o.query, hits)
	o.timings, o.reason = res.Timings, res.FallbackReason
	text, audited := payload(o.query, hits)
	var compact bytes.Buffer
	if json.Compact(&compact, args) != nil {
		compact.Reset()
		compact.Write(args)
	}
	audit.LogToolPayload(ctx, r.p.opts.Logger, defaultAuditPreview, name, compact.String(), o.count, audited)
	return text, nil
}

// catalogFilters maps the catalog tool's filter arguments to store filters.
func catalogFilters(a toolArgs) []storage.Filter {
	var fs []storage.Filter
	for _, f := range []struct {
		field storage.FilterField
		value string
	}{{storage.FieldCategory, a.Category}, {storage.FieldManufacturer, a.Manufacturer}, {storage.FieldTag, a.Tag}} {
		if v := strings.TrimSpace(f.value); v != "" {
			fs = append(fs, storage.Filter{Field: f.field, Value: v})
		}
	}
	return fs
}

// tools returns the search tools offered to the model.
func (r *agentRun) tools(lang Language, enabled Plan) ([]llm.Tool, error) {
	s := r.p.searcher
	var tools []llm.Tool
	add := func(name, promptName string, schema json.RawMessage, examples []json.RawMessage, h llm.ToolHandler) error {
		desc, err := prompt.Render(promptName, lang, nil)
		if err != nil {
			return err
		}
		tools = append(tools, llm.Tool{ToolDefinition: llm.ToolDefinition{Name: name, Description: desc, Parameters: schema, InputExamples: examples}, Handler: h})
		return nil
	}
	if enabled.Catalog {
		err := add(ToolSearchCatalog, prompt.ToolCatalog, catalogToolSchema, catalogToolExamples, func(ctx context.Context, args json.RawMessage) (string, error) {
			return searchTool(ctx, r, ToolSearchCatalog, args, s.SearchCatalog, catalogFilters,
				func(o *toolOutcome, h []Hit[storage.CatalogItem]) { o.catalog = h },
				func(q string, h []Hit[storage.CatalogItem]) (string, string) {
					p := catalogPayload(q, h, r.p.quoter.prepare(q))
					return p, p
				}, func(q string, h []Hit[storage.CatalogItem]) []Citation {
					return catalogCitations(h, r.p.quoter.prepare(q), r.p.quoter)
				})
		})
		if err != nil {
			return nil, err
		}
	}
	if enabled.FAQ {
		err := add(ToolSearchFAQs, prompt.ToolFAQs, searchToolSchema, faqToolExamples, func(ctx context.Context, args json.RawMessage) (string, error) {
			return searchTool(ctx, r, ToolSearchFAQs, args, s.SearchFAQs, nil,
				func(o *toolOutcome, h []Hit[storage.FAQ]) { o.faqs = h },
				func(q string, h []Hit[storage.FAQ]) (string, string) {
					qs := r.p.quoter.prepare(q)
					return faqSection(h, qs), formatFAQContext(h, qs)
				},
				func(q string, h []Hit[storage.FAQ]) []Citation {
					return faqCitations(h, r.p.quoter.prepare(q), r.p.quoter)
				})
		})
		if err != nil {
			return nil, err
		}
	}
	if enabled.Documents {
		err := add(ToolSearchDocuments, prompt.ToolDocuments, searchToolSchema, documentToolExamples, func(ctx context.Context, args json.RawMessage) (string, error) {
			return searchTool(ctx, r, ToolSearchDocuments, args, s.SearchDocuments, nil,
				func(o *toolOutcome, h []Hit[storage.Document]) { o.docs = h },
				func(q string, h []Hit[storage.Document]) (string, string) {
					p := documentSection(h, r.p.quoter.prepare(q))
					return p, p
				}, func(q string, h []Hit[storage.Document]) []Citation {
					return documentCitations(h, r.p.quoter.prepare(q), r.p.quoter)
				})
		})
		if err != nil {
			return nil, err
		}
	}
	return tools, nil
}

// agentTools resolves AgentOptions.Tools.
func agentTools(names []string) (Plan, error) {
	if names == nil {
		return Plan{FAQ: true, Catalog: true, Documents: true}, nil
	}
	var p Plan
	for _, n := range names {
		switch n {
		case ToolSearchCatalog:
			p.Catalog = true
		case ToolSearchFAQs:
			p.FAQ = true
		case ToolSearchDocuments:
			p.Documents = true
		default:
			return p, fmt.Errorf("rag: agentic: unknown tool %q (want %s, %s or %s)", n, ToolSearchCatalog, ToolSearchFAQs, ToolSearchDocuments)
		}
	}
	if !p.any() {
		return p, errors.New("rag: agentic: no tool offered")
	}
	return p, nil
}

// toolQuery extracts the query argument of a call, for events.
func toolQuery(args string) string {
	var a struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal([]byte(args), &a) // best effort: invalid arguments have no query
	return strings.TrimSpace(a.Query)
}

func (a *Agent) run(ctx context.Context, req ChatRequest, emit func(Event)) (*ChatResponse, error) {
	start := time.Now()
	p, opts, model, maxIter, confirmed := a.p, a.opts, a.model, a.maxIter, a.confirmed
	pr, err := p.prepare(req)
	if err != nil {
		return nil, err
	}
	run := &agentRun{p: p, limit: max(req.Limit, 0), out: map[string]*toolOutcome{}}
	tools, err := run.tools(p.lang(), a.enabled)
	if err != nil {
		return nil, err
	}
	tools = append(tools, opts.Actions...)
	recent := pr.history
	if len(recent) > p.opts.HistoryLimit {
		recent = recent[len(recent)-p.opts.HistoryLimit:]
	}
	msgs := []llm.Message{llm.SystemMessage(a.system)}
	for _, t := range recent {
		msgs = append(msgs, llm.Message{Role: t.Role, Content: t.Content})
	}
	msgs = append(msgs, llm.UserMessage(pr.message))

	runOpts := &llm.RunOptions{
		MaxIterations: maxIter, ToolTimeout: opts.ToolTimeout,
		Stream: emit != nil, ConfirmationTTL: opts.ConfirmationTTL,
	}
	// streamed: model text was emitted, so the question of a pending
	// confirmation must be preceded by EventReset.
	streamed := false
	if emit != nil {
		runOpts.OnEvent = func(ev llm.Event) {
			switch ev.Kind {
			case llm.EventTextDelta:
				streamed = streamed || ev.Text != ""
				emit(Event{Kind: EventToken, Token: ev.Text})
			case llm.EventModelResponse:
				if ev.Iteration >= maxIter {
					return // the loop stops; these calls never run
				}
				for _, c := range ev.Response.Message.ToolCalls {
					if !confirmed[c.Name] { // those wait for the user
						emit(Event{Kind: EventToolCall, Tool: c.Name, Query: toolQuery(c.Arguments)})
					}
				}
			case llm.EventToolResult:
				if s := ev.Tool.Status; s == llm.ToolPendingConfirmation || s == llm.ToolRejected {
					return // nothing ran
				}
				e := Event{Kind: EventHits, Tool: ev.Tool.Call.Name, Query: toolQuery(ev.Tool.Call.Arguments)}
				if o := run.outcome(ev.Tool.Call.Name, ev.Tool.Call.Arguments); o != nil {
					e.Sources = o.cites
				}
				emit(e)
			}
		}
	}
	resp := &ChatResponse{Intent: Classification{Intent: IntentOther, Reason: "agentic mode: the model chose the searches"}}
	dbg := &resp.Debug
	fresh := func() (*llm.RunResult, error) {
		return llm.RunTools(ctx, model, llm.Request{
			Model: opts.Model, Messages: msgs,
		}, tools, runOpts)
	}
	var (
		result *llm.RunResult
		runErr error
	)
	if pend := req.Confirmation; pend != nil {
		if pend.ExpiresAt.IsZero() || time.Now().Before(pend.ExpiresAt) {
			var decided bool
			result, decided, runErr = resume(ctx, pend, pr.message, model, tools, runOpts, opts.Decide, dbg, emit)
			if !decided {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				// The decision could not be read: the confirmation stays
				// pending and the user is asked to try again.
				if p.opts.Fallback == Off {
					return nil, fmt.Errorf("%w: confirmation: %w", ErrNoAnswer, runErr)
				}
				dbg.Errors = append(dbg.Errors, "confirmation: "+runErr.Error())
				resp.Answer, resp.Confirmation, resp.Sources, dbg.AnswerFallback = p.fallbackText(runErr), pend, []Citation{}, true
				if emit != nil {
					emit(Event{Kind: EventToken, Token: resp.Answer})
					emit(Event{Kind: EventConfirm, Tool: pend.Call.Name, Confirmation: pend})
				}
				dbg.Timings.Total = time.Since(start)
				return resp, nil
			}
		}
		if result == nil && (runErr == nil || errors.Is(runErr, llm.ErrConfirmationExpired)) {
			dbg.Errors = append(dbg.Errors, "confirmation: "+pend.ID+" expired; the message starts a new turn")
			dbg.Decision = ""
			result, runErr = fresh()
		}
	} else {
		result, runErr = fresh()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if result == nil {
		return nil, fmt.Errorf("rag: agentic: %w", runErr)
	}

	sr := run.collect(result, dbg)
	// The citations quote what answers the user's message.
	mq := p.quoter.prepare(pr.message)
	sr.catalogQ, sr.faqQ, sr.docQ = mq, mq, mq
	resp.Catalog, resp.FAQs, resp.Documents = sr.catalog, sr.faqs, sr.docs
	resp.Sources = p.citations(sr)
	resp.Confidence = p.turnLevel(sr)
	resp.ConfidenceText = confidenceMessage(resp.Confidence, p.lang())
	resp.Abstained = dbg.Plan.any() && !resp.Confidence.Augment()
	if resp.Abstained {
		resp.Catalog, resp.FAQs, resp.Documents, resp.Sources = nil, nil, nil, []Citation{}
		// What the store has of what was asked, for another crop: shown
		// apart, never cited, as in the planned pipeline.
		if len(sr.nearMisses) > 0 {
			resp.Related = catalogCitations(sr.nearMisses, mq, p.quoter)
		}
	}
	for _, it := range result.Iterations {
		if it.Response.Message.Role == "" {
			continue // a resumed confirmation's record: no model call
		}
		step := "answer"
		if len(it.Response.Message.ToolCalls) > 0 {
			step = "tools"
		}
		dbg.ModelCalls = append(dbg.ModelCalls, ModelCall{
			Step: step, Model: cmp.Or(it.Response.Model, opts.Model), Duration: it.ModelDuration, Usage: it.Response.Usage,
		})
		dbg.Timings.Answer += it.ModelDuration
	}
	var maxErr *llm.MaxIterationsExceededError
	if runErr != nil && !errors.As(runErr, &maxErr) {
		dbg.ModelCalls = append(dbg.ModelCalls, ModelCall{Step: "answer", Model: opts.Model, Error: runErr.Error()})
	}

	if pend := result.Pending; pend != nil && runErr == nil {
		// The turn waits for the user: the question is the answer.
		resp.Confirmation, resp.Answer, resp.Abstained = pend, pend.Summary, false
		if emit != nil {
			if streamed {
				emit(Event{Kind: EventReset})
			}
			emit(Event{Kind: EventToken, Token: pend.Summary})
			emit(Event{Kind: EventConfirm, Tool: pend.Call.Name, Confirmation: pend})
		}
		dbg.Timings.Total = time.Since(start)
		return resp, nil
	}
	answer := strings.TrimSpace(result.Response.Message.Content)
	if runErr == nil && answer == "" {
		runErr = fmt.Errorf("rag: agentic: %w (finish reason %q)", llm.ErrEmptyAnswer, result.Response.FinishReason)
	}
	if runErr != nil {
		if p.opts.Fallback == Off {
			return nil, fmt.Errorf("%w: %w", ErrNoAnswer, runErr)
		}
		dbg.Errors = append(dbg.Errors, "answer: "+runErr.Error())
		answer = p.fallbackText(runErr)
		dbg.AnswerFallback = true
		if emit != nil {
			emit(Event{Kind: EventToken, Token: answer})
		}
	}
	resp.Answer = answer
	if !dbg.AnswerFallback {
		resp.UnverifiedQuotes = unverifiedQuotes(answer, dbg.Context, sr)
	}
	dbg.Timings.Total = time.Since(start)
	return resp, nil
}

// collect walks the executed calls in order and gathers their hits
// (deduplicated by ID, first occurrence kept), the debug records and the
// context the model received.
func (r *agentRun) collect(result *llm.RunResult, dbg *Debug) *searchResults {
	sr := &searchResults{timings: map[string]Timings{}}
	seen := map[string]bool{}
	var payloads []string
	for _, it := range result.Iterations {
		for _, ex := range it.Tools {
			rec := ToolCallRecord{
				Iteration: it.Number, ID: ex.Call.ID, Name: ex.Call.Name, Arguments: ex.Call.Arguments,
				Status: ex.Status, Duration: ex.Duration,
			}
			if ex.Err != nil {
				rec.Error = ex.Err.Error()
			}
			if ex.Status == llm.ToolOK {
				payloads = append(payloads, ex.Result)
			}
			if o := r.outcome(ex.Call.Name, ex.Call.Arguments); o != nil && ex.Status != llm.ToolInvalidArguments && ex.Status != llm.ToolUnknown {
				rec.Results, rec.Attempts = o.count, o.attempts
				if o.err != nil {
					rec.Error = o.err.Error()
					dbg.Errors = append(dbg.Errors, ex.Call.Name+": "+o.err.Error())
				}
				dbg.Timings.Search += o.took
				if o.err == nil {
					r.merge(sr, ex.Call.Name, o, seen, dbg)
				}
			}
			dbg.ToolCalls = append(dbg.ToolCalls, rec)
		}
	}
	dbg.SearchTimings = sr.timings
	dbg.FallbackReason = sr.fallback
	dbg.Context = strings.Join(payloads, "\n\n")
	return sr
}

// merge adds one successful call's hits to the turn's results.
func (r *agentRun) merge(sr *searchResults, tool string, o *toolOutcome, seen map[string]bool, dbg *Debug) {
	if _, ok := sr.timings[tool]; !ok {
		sr.timings[tool] = o.timings
	}
	if o.reason != FallbackNone && sr.fallback == FallbackNone {
		sr.fallback = o.reason
	}
	switch tool {
	case ToolSearchCatalog:
		dbg.Plan.Catalog = true
		dbg.CatalogQuery = cmp.Or(dbg.CatalogQuery, o.query)
		sr.catalog = appendNew(sr.catalog, o.catalog, storage.KindItem, seen)
		for _, h := range o.nearMisses {
			if len(sr.nearMisses) < maxNearMisses && !slices.ContainsFunc(sr.nearMisses, func(n Hit[storage.CatalogItem]) bool { return n.ID == h.ID }) {
				sr.nearMisses = append(sr.nearMisses, h)
			}
		}
	case ToolSearchFAQs:
		dbg.Plan.FAQ = true
		dbg.FAQQuery = cmp.Or(dbg.FAQQuery, o.query)
		sr.faqs = appendNew(sr.faqs, o.faqs, storage.KindFAQ, seen)
	case ToolSearchDocuments:
		dbg.Plan.Documents = true
		sr.docs = appendNew(sr.docs, o.docs, storage.KindDocument, seen)
	}
}

// appendNew appends the hits whose kind and ID were not seen yet.
func appendNew[T any](dst, hits []Hit[T], kind storage.OwnerKind, seen map[string]bool) []Hit[T] {
	for _, h := range hits {
		k := string(kind) + "\x00" + h.ID
		if seen[k] {
			continue
		}
		seen[k] = true
		dst = append(dst, h)
	}
	return slices.Clip(dst)
}

// correctedResult is what the model is told of a pending call the user
// corrected instead of confirming.
const correctedResult = `{"status":"not_executed","message":"The user did not confirm this call. If their next message corrects it, call the tool again with the corrected arguments (the user will be asked to confirm again); if it is about something else, answer it and do not call the tool."}`

// otherCallResult answers the other calls of that turn still waiting for
// the user.
const otherCallResult = `{"status":"not_executed","message":"Not executed: the user corrected another call of this turn. Call it again if it is still needed."}`

// keywordDecide is the default AgentOptions.Decide.
func keywordDecide(_ context.Context, _ *llm.PendingConfirmation, reply string) (llm.Decision, error) {
	return llm.Decision{Kind: llm.KeywordDecision(reply)}, nil
}

// resume answers a pending confirmation with the user's reply: confirm
// and reject resume the loop (llm.ResumeConfirmation);
// a correction starts a new loop over the transcript, the call answered as
// not executed and the reply added, so that the model calls the tool again
// and the user is asked again. decided is false when decide failed; err is
// then its error and the confirmation stays pending.
func resume(ctx context.Context, pend *llm.PendingConfirmation, reply string, model llm.ChatModel, tools []llm.Tool,
	runOpts *llm.RunOptions, decide func(context.Context, *llm.PendingConfirmation, string) (llm.Decision, error), dbg *Debug, emit func(Event),
) (result *llm.RunResult, decided bool, err error) {
	if decide == nil {
		decide = keywordDecide
	}
	d, err := decide(ctx, pend, reply)
	if err != nil {
		return nil, false, err
	}
	dbg.Decision = d.Kind
	switch d.Kind {
	case llm.DecisionConfirm, llm.DecisionReject:
		if d.Kind == llm.DecisionConfirm && emit != nil {
			emit(Event{Kind: EventToolCall, Tool: pend.Call.Name, Query: toolQuery(pend.Call.Arguments)})
		}
		result, err = llm.ResumeConfirmation(ctx, model, pend, d, tools, runOpts)
		return result, true, err
	case llm.DecisionCorrect:
		req, err := correctionRequest(pend, reply)
		if err != nil {
			return nil, true, err
		}
		result, err = llm.RunTools(ctx, model, req, tools, runOpts)
		return result, true, err
	}
	return nil, true, fmt.Errorf("%w: unknown decision %q", llm.ErrInvalidRequest, d.Kind)
}

// correctionRequest is the request that follows a correction: the pending
// turn's transcript, its unresolved calls answered as not executed, then
// the user's reply.
func correctionRequest(pend *llm.PendingConfirmation, reply string) (llm.Request, error) {
	req := pend.Request
	msgs := slices.Clone(req.Messages)
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleAssistant ||
		len(msgs[len(msgs)-1].ToolCalls) != len(pend.Results) ||
		pend.CallIndex < 0 || pend.CallIndex >= len(pend.Results) {
		return llm.Request{}, fmt.Errorf("%w: pending confirmation %s is inconsistent", llm.ErrInvalidRequest, pend.ID)
	}
	calls := msgs[len(msgs)-1].ToolCalls
	for i, r := range pend.Results {
		if r.Role == "" {
			content := otherCallResult
			if i == pend.CallIndex {
				content = correctedResult
			}
			r = llm.ToolResultMessage(calls[i], content, true)
		}
		msgs = append(msgs, r)
	}
	req.Messages, req.Tools = append(msgs, llm.UserMessage(reply)), nil
	return req, nil
}
