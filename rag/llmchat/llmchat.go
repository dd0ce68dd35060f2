package llmchat

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/hybridrag/hybridrag/internal/prompt"
	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag"

	"github.com/hybridrag/hybridrag/llm"
)

// Defaults of the LLM components.
const (
	// defaultClassifyMaxTokens caps the classifier's JSON answer.
	defaultClassifyMaxTokens = 200
	// defaultSummaryMaxTokens caps the summarizer's JSON answer.
	defaultSummaryMaxTokens = 400
	// maxCatalogQueryChars caps a summary's catalog query.
	maxCatalogQueryChars = 200
)

// classificationSchema is the structured output of Classifier (strict:
// every property required, no other property).
var classificationSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "intent": {"type": "string", "enum": ["catalog", "support", "agronomy", "smalltalk", "other"]},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "reason": {"type": "string"}
  },
  "required": ["intent", "confidence", "reason"],
  "additionalProperties": false
}`)

// summarySchema is the structured output of Summarizer.
var summarySchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "summary": {"type": "string"},
    "catalog_query": {"type": "string"}
  },
  "required": ["summary", "catalog_query"],
  "additionalProperties": false
}`)

// ClassifierOptions configures a Classifier. The zero value uses the
// ChatModel's default model, pt-BR prompts and no fallback.
type ClassifierOptions struct {
	// Model is the model name sent with each request; "" leaves the
	// ChatModel's default.
	Model string
	// Fallback is the model tried when the primary call fails for any
	// reason but a done context (an API error, invalid JSON, an unknown
	// intent). Nil with FallbackModel set means the primary ChatModel
	// with that model name.
	Fallback llm.ChatModel
	// FallbackModel is the model name sent to the fallback.
	FallbackModel string
	// Offline, when set, classifies when every model failed (for example
	// offline.KeywordClassifier{}); its Reason is prefixed to say so. Nil returns
	// the models' errors, and the Pipeline then runs every search
	// (IntentOther).
	Offline rag.Classifier
	// Language selects the prompts (default pt-BR); a request's
	// Language (PipelineOptions.Language, in a Pipeline) wins.
	Language rag.Language
}

// Classifier is a Classifier on the llm.ChatModel port (the planned
// pipeline's intent step): it asks for structured output {intent, confidence, reason} with
// temperature 0, tries a fallback model when the primary fails and
// optionally an offline classifier after that. It is immutable and safe
// for concurrent use when its models are.
type Classifier struct {
	model    llm.ChatModel
	fallback llm.ChatModel
	opts     ClassifierOptions
	system   string
}

var _ rag.Classifier = (*Classifier)(nil)

// NewClassifier returns a classifier asking model. It fails for a nil
// model or an unsupported language; it does no I/O.
func NewClassifier(model llm.ChatModel, opts ClassifierOptions) (*Classifier, error) {
	if model == nil {
		return nil, errors.New("llmchat: NewClassifier: nil model")
	}
	lang, err := rag.ParseLanguage(string(opts.Language))
	if err != nil {
		return nil, err
	}
	opts.Language = lang
	system, err := prompt.Render(prompt.Classify, lang, nil)
	if err != nil {
		return nil, err
	}
	c := &Classifier{model: model, opts: opts, system: system}
	switch {
	case opts.Fallback != nil:
		c.fallback = opts.Fallback
	case opts.FallbackModel != "":
		c.fallback = model
	}
	return c, nil
}

// classifyUserData is the data of the classify_user template.
type classifyUserData struct {
	Message string
	Summary string
	History []promptTurn
}

// Classify implements Classifier. The error wraps every model's failure;
// a done context is returned as such.
func (c *Classifier) Classify(ctx context.Context, req rag.ClassifyRequest) (rag.Classification, error) {
	msg := strings.TrimSpace(strings.ToValidUTF8(req.Message, "\uFFFD"))
	if msg == "" {
		return rag.Classification{}, rag.ErrEmptyMessage
	}
	lang, system := c.opts.Language, c.system
	if req.Language != "" && req.Language != lang {
		// The Pipeline's language wins over the Classifier's own.
		lang = req.Language
		var err error
		if system, err = prompt.Render(prompt.Classify, lang, nil); err != nil {
			return rag.Classification{}, err
		}
	}
	user, err := prompt.Render(prompt.ClassifyUser, lang, classifyUserData{
		Message: textutil.OneLine(msg), Summary: req.Summary, History: promptTurns(req.History),
	})
	if err != nil {
		return rag.Classification{}, err
	}
	r := llm.Request{
		Messages:    []llm.Message{llm.SystemMessage(system), llm.UserMessage(user)},
		Temperature: llm.Temperature(0),
		MaxTokens:   defaultClassifyMaxTokens,
	}
	cls, err := c.try(ctx, c.model, c.opts.Model, r)
	if err == nil {
		return cls, nil
	}
	errs := []error{fmt.Errorf("primary model: %w", err)}
	if c.fallback != nil && ctx.Err() == nil {
		cls, ferr := c.try(ctx, c.fallback, c.opts.FallbackModel, r)
		if ferr == nil {
			return cls, nil
		}
		errs = append(errs, fmt.Errorf("fallback model: %w", ferr))
	}
	if err := ctx.Err(); err != nil {
		return rag.Classification{}, fmt.Errorf("rag: classify: %w", err)
	}
	joined := errors.Join(errs...)
	if c.opts.Offline != nil {
		cls, oerr := c.opts.Offline.Classify(ctx, req)
		if oerr == nil {
			cls.Reason = "models failed, offline classifier: " + cls.Reason
			return cls, nil
		}
		joined = errors.Join(joined, fmt.Errorf("offline classifier: %w", oerr))
	}
	return rag.Classification{}, fmt.Errorf("rag: classify: %w", joined)
}

// try asks one model for a classification.
func (c *Classifier) try(ctx context.Context, model llm.ChatModel, name string, r llm.Request) (rag.Classification, error) {
	r.Model = name
	var out struct {
		Intent     string  `json:"intent"`
		Confidence float64 `json:"confidence"`
		Reason     string  `json:"reason"`
	}
	resp, err := llm.CompleteJSON(ctx, model, r, llm.ResponseFormat{
		Name: "intent_classification", Description: "The intent of the user's message.",
		Schema: classificationSchema, Strict: true,
	}, &out)
	if err != nil {
		return rag.Classification{}, err
	}
	intent := rag.Intent(strings.ToLower(strings.TrimSpace(out.Intent)))
	if !intent.Valid() {
		return rag.Classification{}, fmt.Errorf("%w: unknown intent %q", llm.ErrInvalidOutput, out.Intent)
	}
	conf := out.Confidence
	if math.IsNaN(conf) {
		conf = 0
	}
	return rag.Classification{
		Intent:     intent,
		Confidence: min(max(conf, 0), 1),
		Reason:     strings.TrimSpace(out.Reason),
		Model:      cmp.Or(resp.Model, name),
	}, nil
}

// AnswererOptions configures an Answerer. The zero value uses the
// ChatModel's default model and pt-BR prompts.
type AnswererOptions struct {
	// Model is the model name sent with each request; "" leaves the
	// ChatModel's default.
	Model string
	// FallbackModel, when not empty, is the model name the answer is
	// asked of when the first request fails with a retryable or server
	// error (llm.WithFallbackModel on the same ChatModel). A stream falls back only if it
	// failed before its first token. For a fallback on another client,
	// pass llm.WithFallback(primary, other) as the model instead.
	FallbackModel string
	// Language selects the system prompt (default pt-BR); a request's
	// Language (PipelineOptions.Language, in a Pipeline) wins.
	Language rag.Language
	// SystemPrompt replaces the built-in instructions.
	SystemPrompt string
}

// Answerer is an Answerer (and StreamAnswerer) on the llm.ChatModel port
// (the turn's last model call): a system prompt, the history as
// prior user and assistant messages, then the pipeline's consolidated
// context (without its history section, already sent as messages) ending
// with the question. An empty answer is an error wrapping llm.ErrEmptyAnswer,
// so the Pipeline answers with its fallback message. It is immutable and
// safe for concurrent use when its model is.
type Answerer struct {
	model llm.ChatModel
	opts  AnswererOptions
}

var _ rag.StreamAnswerer = (*Answerer)(nil)

// NewAnswerer returns an answerer asking model. It fails for a nil model
// or an unsupported language; it does no I/O.
func NewAnswerer(model llm.ChatModel, opts AnswererOptions) (*Answerer, error) {
	if model == nil {
		return nil, errors.New("llmchat: NewAnswerer: nil model")
	}
	lang, err := rag.ParseLanguage(string(opts.Language))
	if err != nil {
		return nil, err
	}
	opts.Language = lang
	if _, err := prompt.Render(prompt.Answer, lang, answerPromptData{}); err != nil {
		return nil, err
	}
	if opts.FallbackModel != "" {
		model = llm.WithFallbackModel(model, opts.FallbackModel)
	}
	return &Answerer{model: model, opts: opts}, nil
}

// answerPromptData is the data of the answer template.
type answerPromptData struct {
	Intent rag.Intent
	// Abstained: nothing relevant was found; the model must say so.
	Abstained bool
}

// request returns the model request for req, as Answer sends it.
func (a *Answerer) request(req rag.AnswerRequest) (llm.Request, error) {
	system := a.opts.SystemPrompt
	if strings.TrimSpace(system) == "" {
		var err error
		lang := cmp.Or(req.Language, a.opts.Language) // the Pipeline's language wins
		if system, err = prompt.Render(prompt.Answer, lang, answerPromptData{Intent: req.Intent, Abstained: req.Abstained}); err != nil {
			return llm.Request{}, err
		}
	}
	msgs := []llm.Message{llm.SystemMessage(system)}
	for _, t := range req.History {
		c := strings.TrimSpace(t.Content)
		if c == "" || t.Role != llm.RoleUser && t.Role != llm.RoleAssistant {
			continue
		}
		msgs = append(msgs, llm.Message{Role: t.Role, Content: c})
	}
	msgs = append(msgs, llm.UserMessage(answerPayload(req)))
	return llm.Request{Model: a.opts.Model, Messages: msgs}, nil
}

// answerPayload is the user message: the consolidated context without the
// history section, or the message alone when there is no context.
func answerPayload(req rag.AnswerRequest) string {
	if len(req.Sections) > 0 {
		kept := make([]rag.ContextSection, 0, len(req.Sections))
		for _, s := range req.Sections {
			if s.Name != "history" {
				kept = append(kept, s)
			}
		}
		return rag.BuildContext(kept, req.Message)
	}
	return rag.QuestionPrefix + req.Message
}

// Answer implements Answerer. Usage and model are reported even when the
// answer is empty.
func (a *Answerer) Answer(ctx context.Context, req rag.AnswerRequest) (rag.Answer, error) {
	r, err := a.request(req)
	if err != nil {
		return rag.Answer{}, err
	}
	resp, err := a.model.Complete(ctx, r)
	return a.answer(resp, err)
}

// StreamAnswer implements StreamAnswerer with ChatModel.Stream; onToken
// receives the text deltas in order. A stream that fails after some deltas
// returns the error: onToken has then seen part of an answer that is not
// one, and the Pipeline streams EventReset before its fallback message.
// Whether a stream is complete is the ChatModel's call (llm/openai keeps an
// answer ended by [DONE] without a finish reason).
func (a *Answerer) StreamAnswer(ctx context.Context, req rag.AnswerRequest, onToken func(string)) (rag.Answer, error) {
	r, err := a.request(req)
	if err != nil {
		return rag.Answer{}, err
	}
	resp, err := llm.Collect(a.model.Stream(ctx, r), onToken)
	return a.answer(resp, err)
}

func (a *Answerer) answer(resp llm.Response, err error) (rag.Answer, error) {
	ans := rag.Answer{Text: strings.TrimSpace(resp.Message.Content), Model: cmp.Or(resp.Model, a.opts.Model), Usage: resp.Usage}
	if err != nil {
		return ans, fmt.Errorf("rag: answer: %w", err)
	}
	if ans.Text == "" {
		if resp.Refusal != "" {
			return ans, fmt.Errorf("rag: answer: %w (the model refused: %s)", llm.ErrEmptyAnswer, resp.Refusal)
		}
		return ans, fmt.Errorf("rag: answer: %w (finish reason %q)", llm.ErrEmptyAnswer, resp.FinishReason)
	}
	return ans, nil
}

// SummarizerOptions configures a Summarizer. The zero value uses the
// ChatModel's default model and pt-BR prompts.
type SummarizerOptions struct {
	// Model is the model name sent with each request; "" leaves the
	// ChatModel's default.
	Model string
	// Language selects the prompts (default pt-BR).
	Language rag.Language
}

// Summarizer is a Summarizer on the llm.ChatModel port (the planned
// pipeline's first step, before the intent): structured output {summary, catalog_query} with
// temperature 0. It is immutable and safe for concurrent use when its model
// is.
type Summarizer struct {
	model  llm.ChatModel
	opts   SummarizerOptions
	system string
}

var _ rag.Summarizer = (*Summarizer)(nil)

// NewSummarizer returns a summarizer asking model. It fails for a nil
// model or an unsupported language; it does no I/O.
func NewSummarizer(model llm.ChatModel, opts SummarizerOptions) (*Summarizer, error) {
	if model == nil {
		return nil, errors.New("llmchat: NewSummarizer: nil model")
	}
	lang, err := rag.ParseLanguage(string(opts.Language))
	if err != nil {
		return nil, err
	}
	opts.Language = lang
	system, err := prompt.Render(prompt.Summarize, lang, nil)
	if err != nil {
		return nil, err
	}
	return &Summarizer{model: model, opts: opts, system: system}, nil
}

// summarizeUserData is the data of the summarize_user template.
type summarizeUserData struct {
	History []promptTurn
}

// Summarize implements Summarizer. An empty history gives an empty Summary
// without a model call; a blank summary from the model is an error
// wrapping llm.ErrInvalidOutput.
func (s *Summarizer) Summarize(ctx context.Context, history []rag.Turn) (rag.Summary, error) {
	turns := promptTurns(history)
	if len(turns) == 0 {
		return rag.Summary{}, nil
	}
	user, err := prompt.Render(prompt.SummarizeUser, s.opts.Language, summarizeUserData{History: turns})
	if err != nil {
		return rag.Summary{}, err
	}
	r := llm.Request{
		Model:       s.opts.Model,
		Messages:    []llm.Message{llm.SystemMessage(s.system), llm.UserMessage(user)},
		Temperature: llm.Temperature(0),
		MaxTokens:   defaultSummaryMaxTokens,
	}
	var out struct {
		Summary      string `json:"summary"`
		CatalogQuery string `json:"catalog_query"`
	}
	if _, err := llm.CompleteJSON(ctx, s.model, r, llm.ResponseFormat{
		Name: "history_summary", Description: "A summary of the conversation and catalog search keywords.",
		Schema: summarySchema, Strict: true,
	}, &out); err != nil {
		return rag.Summary{}, fmt.Errorf("rag: summarize: %w", err)
	}
	sum := rag.Summary{Text: textutil.OneLine(out.Summary), CatalogQuery: textutil.TruncateRunes(textutil.OneLine(out.CatalogQuery), maxCatalogQueryChars)}
	if sum.Text == "" {
		return rag.Summary{}, fmt.Errorf("rag: summarize: %w: empty summary", llm.ErrInvalidOutput)
	}
	return sum, nil
}

// promptTurn is a history turn as the templates see it.
type promptTurn struct {
	// User is true for user turns, false for assistant turns.
	User    bool
	Content string
}

// promptTurns keeps the user and assistant turns of history, on one line
// each.
func promptTurns(history []rag.Turn) []promptTurn {
	out := make([]promptTurn, 0, len(history))
	for _, t := range history {
		c := textutil.OneLine(t.Content)
		if c == "" {
			continue
		}
		switch t.Role {
		case llm.RoleUser:
			out = append(out, promptTurn{User: true, Content: c})
		case llm.RoleAssistant:
			out = append(out, promptTurn{Content: c})
		}
	}
	return out
}
