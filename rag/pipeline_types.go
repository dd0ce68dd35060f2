package rag

import (
	"context"
	"errors"
	"time"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
)

// Errors of the chat pipeline.
var (
	// ErrEmptyMessage: the chat message is empty, white space or control
	// characters only (NUL included).
	ErrEmptyMessage = errors.New("rag: empty message")
	// ErrNoAnswer: the answerer failed and no fallback message is
	// configured.
	ErrNoAnswer = errors.New("rag: no answer")
)

// Intent is what the user wants, as decided by a Classifier.
type Intent string

// Intents. planSearches maps each to the searches it runs (PlanSearches).
const (
	// IntentCatalog: a product question ("tem fungicida para uva?").
	IntentCatalog Intent = "catalog"
	// IntentSupport: a question about the store (delivery, payment,
	// returns, account) answered by FAQs and documents.
	IntentSupport Intent = "support"
	// IntentAgronomy: a technical question (pests, doses, application)
	// answered by FAQs, documents and the catalog.
	IntentAgronomy Intent = "agronomy"
	// IntentSmallTalk: greetings and thanks; no search.
	IntentSmallTalk Intent = "smalltalk"
	// IntentOther: anything else; every search runs.
	IntentOther Intent = "other"
)

// Valid reports whether i is one of the known intents.
func (i Intent) Valid() bool {
	switch i {
	case IntentCatalog, IntentSupport, IntentAgronomy, IntentSmallTalk, IntentOther:
		return true
	}
	return false
}

// Plan says which searches a chat turn runs, decided from the intent. A
// turn whose intent leaves the documents out (a catalog question) searches
// them after the others (unless PipelineOptions.Documents is Off, or an
// item or FAQ kept is fully relevant), keeping the hits that answer
// better: all of them when the items and FAQs kept nothing and the
// question asks more than one thing, else those more relevant than every
// kept item and FAQ; its Debug.Plan then has Documents set (searched),
// and the answerer's context has a documents section only when some were
// kept. Likewise a turn whose intent leaves the catalog out searches it
// last when its FAQs and documents had candidates and kept none (Debug.Plan
// then has Catalog set).
type Plan struct {
	FAQ       bool `json:"faq"`
	Catalog   bool `json:"catalog"`
	Documents bool `json:"documents"`
}

// any reports whether the plan runs a search.
func (p Plan) any() bool { return p.FAQ || p.Catalog || p.Documents }

// PlanSearches maps an intent to its searches: catalog questions search
// the catalog and FAQs; support questions FAQs and documents; agronomy
// questions all three; small talk none; anything else all three.
func planSearches(intent Intent) Plan {
	switch intent {
	case IntentCatalog:
		return Plan{Catalog: true, FAQ: true}
	case IntentSupport:
		return Plan{FAQ: true, Documents: true}
	case IntentAgronomy:
		return Plan{FAQ: true, Documents: true, Catalog: true}
	case IntentSmallTalk:
		return Plan{}
	}
	return Plan{FAQ: true, Documents: true, Catalog: true}
}

// Turn is one message of the conversation history.
type Turn struct {
	// Role is "user" or "assistant"; other roles are ignored.
	Role llm.Role `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// ChatRequest is one user turn.
type ChatRequest struct {
	// Message is the user's message. Required.
	Message string `json:"message"`
	// History is the conversation so far, oldest first.
	History []Turn `json:"history,omitempty"`
	// Limit is the number of hits per search (below 1: the Searcher's;
	// see LimitOptions for the precedence).
	Limit int `json:"limit,omitempty"`
	// Confirmation is the ChatResponse.Confirmation of the previous turn,
	// which Message answers (agentic mode): the turn confirms
	// the pending tool call (executes it and answers with its result),
	// rejects it (does not execute it and says so) or takes Message as a
	// correction (the model calls the tool again, which asks again). It
	// holds the transcript so far, so History is not read. It is the
	// server's state, not the client's: keep it server-side by its ID (in
	// a session store, for its TTL) rather than accepting it from
	// a client, which could rewrite the arguments or the prompt. An
	// expired one is dropped and the turn starts afresh (Debug.Errors says
	// so). Planned mode (Chat, ChatStream) ignores it.
	Confirmation *llm.PendingConfirmation `json:"confirmation,omitempty"`
}

// Classification is a Classifier's verdict.
type Classification struct {
	Intent Intent `json:"intent"`
	// Confidence is in [0, 1].
	Confidence float64 `json:"confidence"`
	// Reason explains the verdict, for debugging.
	Reason string `json:"reason,omitempty"`
	// Model is the model that classified ("keyword" for the offline one).
	Model string `json:"model,omitempty"`
}

// ClassifyRequest is what a Classifier sees.
type ClassifyRequest struct {
	Message string
	// Summary is the history summary, when a Summarizer ran.
	Summary string
	// History is the recent history (at most HistoryLimit turns).
	History []Turn
	// Language is PipelineOptions.Language: the language to classify in
	// ("" leaves the Classifier's own).
	Language Language
}

// Classifier decides a message's intent. Implementations must be safe for
// concurrent use.
type Classifier interface {
	Classify(ctx context.Context, req ClassifyRequest) (Classification, error)
}

// Summary is a Summarizer's output.
type Summary struct {
	// Text summarizes the conversation.
	Text string `json:"summary"`
	// CatalogQuery is keywords for the catalog search, when the
	// conversation is about products; may be empty.
	CatalogQuery string `json:"catalog_query,omitempty"`
}

// Summarizer condenses a long history, so a follow-up's subject survives
// once the turns naming it are out of the history window.
type Summarizer interface {
	Summarize(ctx context.Context, history []Turn) (Summary, error)
}

// AnswerRequest is everything an Answerer needs.
type AnswerRequest struct {
	Message string
	Intent  Intent
	History []Turn
	Summary string
	// Sections are the sections of the consolidated context, in order:
	// history, summary, FAQ, catalog and document sections (or the
	// abstention text); BuildContext(Sections, Message) is the context
	// text (the Pipeline's Debug.Context).
	Sections   []ContextSection
	Catalog    []Hit[storage.CatalogItem]
	FAQs       []Hit[storage.FAQ]
	Documents  []Hit[storage.Document]
	Confidence scoring.Level
	// Language is PipelineOptions.Language: the language to answer in
	// ("" leaves the Answerer's own).
	Language Language
	// Abstained reports that no hit was relevant enough to answer from:
	// Catalog, FAQs and Documents are empty and the answer must say
	// plainly that the store has nothing on the question, citing nothing
	// and inventing nothing.
	Abstained bool
}

// Answer is an Answerer's reply.
type Answer struct {
	Text  string
	Model string
	Usage llm.Usage
	// Cited, when not nil, are the records the answer quotes (items,
	// FAQs, documents, of those it was given): the response then cites
	// those alone. nil — a model's answer — cites every record of the
	// context.
	Cited []storage.OwnerRef
	// Related are records of the context the answer points to as related
	// without citing them (more products than it describes): the response
	// lists them in Related, never among its Sources.
	Related []storage.OwnerRef
	// Language, when set, is the language the answer is written in:
	// LanguageEnglish gives the response an English ConfidenceText.
	Language Language
}

// Answerer writes the reply. Implementations must be safe for concurrent
// use.
type Answerer interface {
	Answer(ctx context.Context, req AnswerRequest) (Answer, error)
}

// StreamAnswerer is an Answerer that can stream its reply; the pipeline's
// streaming variant uses it when available. onToken receives text pieces
// in order; the returned Answer holds the whole text.
type StreamAnswerer interface {
	Answerer
	StreamAnswer(ctx context.Context, req AnswerRequest, onToken func(string)) (Answer, error)
}

// ContextSection is one titled block of the answer context.
type ContextSection struct {
	// Name is "history", "summary", "faqs", "catalog", "documents" or,
	// when the turn abstains, "abstain", followed, when the store has
	// what was asked for other subjects (ChatResponse.Related), by
	// "not-carried": `Não temos "semente de girassol" no catálogo: …`
	// (`Não temos produtos para "pulgão na alface" …` when the words name
	// a problem), the thing asked quoted in the message's own words; a follow-up
	// asking the cheapest or the dearest of the items the last answer named
	// has a "price-order" section after the catalog ("Os produtos acima
	// estão do mais barato ao mais caro…").
	Name string `json:"name"`
	// Text is the section as given to the model.
	Text string `json:"text"`
}

// Citation is a record an answer may cite.
type Citation struct {
	// Kind is item, faq or document.
	Kind storage.OwnerKind `json:"kind"`
	ID   string            `json:"id"`
	// Title is the item name, FAQ question or document title (with the
	// heading path of the section its quoted passages come from, else of
	// its best chunk: "Título › Seção").
	Title string `json:"title"`
	// Score is the hit's fused score.
	Score float64 `json:"score"`
	// Quote is the span of the record the citation rests on: the passage
	// the context carries for the question (a leaflet row, a metadata
	// value, a FAQ's sentence, a document's paragraph), else the start of
	// the record's main text. nil when the record has no text to quote.
	Quote *Quote `json:"quote,omitempty"`
}

// Quote is a span of a record, exactly as stored: Text is the record's
// Field text from byte Start to End, so a reader (or a test) can check a
// claim against its source.
type Quote struct {
	// Field names the text: "description", "metadata:<key>" or
	// "file:<name>" for an item, "answer" for a FAQ, "content" for a
	// document.
	Field string `json:"field"`
	// Text is the quoted span.
	Text string `json:"text"`
	// Start and End are Text's byte offsets in the field's text.
	Start int `json:"start"`
	End   int `json:"end"`
}

// ModelCall records one model call of a turn.
type ModelCall struct {
	// Step is "summarize", "classify", "answer" or "tools".
	Step     string        `json:"step"`
	Model    string        `json:"model,omitempty"`
	Duration time.Duration `json:"duration"`
	Usage    llm.Usage     `json:"usage"`
	Error    string        `json:"error,omitempty"`
}

// PipelineTimings are per-stage durations of a turn.
type PipelineTimings struct {
	Summarize time.Duration `json:"summarize"`
	Classify  time.Duration `json:"classify"`
	Search    time.Duration `json:"search"`
	Answer    time.Duration `json:"answer"`
	Total     time.Duration `json:"total"`
}

// Debug explains a turn.
type Debug struct {
	// Plan is the searches the turn ran, the documents' fallback of a
	// catalog turn included (see Plan).
	Plan           Plan            `json:"plan"`
	CatalogQuery   string          `json:"catalog_query,omitempty"`
	FAQQuery       string          `json:"faq_query,omitempty"`
	Timings        PipelineTimings `json:"timings"`
	ModelCalls     []ModelCall     `json:"model_calls,omitempty"`
	FallbackReason FallbackReason  `json:"fallback_reason,omitempty"`
	// SearchTimings are the Searcher's timings per search, by tool name
	// (ToolSearchFAQs, ToolSearchCatalog, ToolSearchDocuments).
	SearchTimings map[string]Timings `json:"search_timings,omitempty"`
	// Context is the full context given to the answerer.
	Context string `json:"context,omitempty"`
	// ContextTokens is Context's size in tokens, counted by
	// PipelineOptions.TokenCounter (an estimate by default).
	ContextTokens int `json:"context_tokens,omitempty"`
	// Errors are non-fatal problems (a failed summary, a failed search).
	Errors []string `json:"errors,omitempty"`
	// AnswerFallback reports that the answer is the configured fallback
	// message.
	AnswerFallback bool `json:"answer_fallback,omitempty"`
	// FollowUp says whether the message was taken as a follow-up of the
	// history (and so searched with it).
	FollowUp *FollowUpDecision `json:"follow_up,omitempty"`
	// Considered is the number of hits each search returned before only
	// the relevant ones were kept, by tool name.
	Considered map[string]int `json:"considered,omitempty"`
	// ToolCalls are the tool calls of an agentic turn (Agent.Chat), in
	// the order the model asked for them.
	ToolCalls []ToolCallRecord `json:"tool_calls,omitempty"`
	// Decision is how the turn took the reply to ChatRequest.Confirmation:
	// confirm, reject or correct; empty when there was none.
	Decision llm.DecisionKind `json:"decision,omitempty"`
}

// ChatResponse is the result of one turn.
type ChatResponse struct {
	Answer         string                     `json:"answer"`
	Intent         Classification             `json:"intent"`
	Catalog        []Hit[storage.CatalogItem] `json:"-"`
	FAQs           []Hit[storage.FAQ]         `json:"-"`
	Documents      []Hit[storage.Document]    `json:"-"`
	Sources        []Citation                 `json:"sources"`
	Confidence     scoring.Level              `json:"confidence"`
	ConfidenceText string                     `json:"confidence_text,omitempty"`
	// Abstained reports that the store had nothing relevant: the answer
	// says so and Sources is empty. Small talk never abstains.
	Abstained bool `json:"abstained"`
	// UnverifiedQuotes are the passages the answer quotes in guillemets
	// («…», as the context writes them) that neither the context nor a
	// cited record holds (compared after lexical.Normalize): a model's
	// claim the sources do not back. Empty when every quote is found.
	UnverifiedQuotes []string `json:"unverified_quotes,omitempty"`
	// Related are records the answer points to as related without citing
	// them (Answer.Related), with their titles and quotes; never counted
	// as sources. A planned turn that abstains lists here up to three
	// catalog items holding what was asked but for another crop ("semente
	// de girassol": the seeds the store sells).
	Related []Citation `json:"related,omitempty"`
	Summary *Summary   `json:"summary,omitempty"`
	// Confirmation is set when the turn ended waiting for the user to
	// confirm a tool call (agentic mode, a tool with
	// llm.Tool.RequiresConfirmation): the call was not
	// executed, Answer is the question (Confirmation.Summary), and the
	// next turn resolves it when given back as ChatRequest.Confirmation.
	Confirmation *llm.PendingConfirmation `json:"confirmation,omitempty"`
	Debug        Debug                    `json:"debug"`
}

// EventKind names a streaming event.
type EventKind string

// Streaming event kinds, in the order they occur.
const (
	EventIntent   EventKind = "intent"    // the classification
	EventToolCall EventKind = "tool_call" // a search about to run
	EventHits     EventKind = "hits"      // a search's results
	EventToken    EventKind = "token"     // a piece of the answer
	// EventReset: discard the tokens so far; the answer restarts. It
	// follows the tokens of a model stream that failed part-way and
	// precedes the fallback message's tokens, so the tokens after the
	// last reset add up to the done event's Response.Answer (but for
	// surrounding white space).
	EventReset EventKind = "reset"
	// EventConfirm: the turn waits for the user to confirm the tool call
	// in Confirmation (agentic mode); it follows the question's tokens and
	// precedes done, whose Response.Confirmation is the same value.
	EventConfirm EventKind = "confirm"
	EventDone    EventKind = "done"  // the whole response
	EventError   EventKind = "error" // the turn failed; the stream yields its error with the event
)

// Event is one streaming event. Only the fields of its kind are set.
type Event struct {
	Kind EventKind `json:"kind"`
	// Intent (EventIntent).
	Intent *Classification `json:"intent,omitempty"`
	// Tool is "searchFaqs", "searchCatalog", "searchDocuments" or, in
	// agentic mode, an action's name (EventToolCall, EventHits,
	// EventConfirm); Query its query text.
	Tool  string `json:"tool,omitempty"`
	Query string `json:"query,omitempty"`
	// Sources are a search's hits (EventHits).
	Sources []Citation `json:"sources,omitempty"`
	// Token is answer text (EventToken).
	Token string `json:"token,omitempty"`
	// Confirmation is the pending tool call (EventConfirm): its Summary
	// is the question for the user, Call the tool and arguments.
	Confirmation *llm.PendingConfirmation `json:"confirmation,omitempty"`
	// Response is the final response (EventDone).
	Response *ChatResponse `json:"response,omitempty"`
}
