package rerank

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/llm"
)

// MethodLLM names the scores of [LLM].
const MethodLLM Method = "llm"

// Defaults of [LLMOptions].
const (
	// defaultLLMContentChars caps each candidate's text in the prompt.
	defaultLLMContentChars = 500
	// defaultLLMLanguage is the prompts' default language.
	defaultLLMLanguage = "pt-BR"
)

// The prompts of [LLM]: prompts/llm_{system,user}.<language>.tmpl.
//
//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts are parsed once; the files are embedded and golden-tested, so
// parsing cannot fail at run time.
var prompts = template.Must(template.New("rerank").ParseFS(promptFS, "prompts/*.tmpl"))

// llmScoresSchema is the structured output asked of the model.
var llmScoresSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "scores": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "index": {"type": "integer"},
          "score": {"type": "number"}
        },
        "required": ["index", "score"],
        "additionalProperties": false
      }
    }
  },
  "required": ["scores"],
  "additionalProperties": false
}`)

// LLMOptions configures an [LLM] reranker. The zero value uses the model's
// default, pt-BR prompts and 500 characters per candidate.
type LLMOptions struct {
	// Model is the model name sent with the request; "" leaves the
	// ChatModel's default.
	Model string
	// Language is "pt-BR" (default) or "en".
	Language string
	// MaxContentChars caps each candidate's content in the prompt
	// (default 500); a negative value sends the whole content.
	MaxContentChars int
}

// LLM is a [Reranker] that asks a chat model (the llm.ChatModel port) for a
// relevance score in [0, 1] per candidate, with structured output
// {"scores": [{"index": 0, "score": 0.9}]} and temperature 0. Candidates the
// model leaves out are omitted from the results. It is immutable and safe
// for concurrent use when its model is.
type LLM struct {
	model llm.ChatModel
	opts  LLMOptions
}

var _ Reranker = (*LLM)(nil)

// NewLLM returns an LLM reranker. It returns [ErrInvalidOptions] for a nil
// model or an unsupported language; it does no I/O.
func NewLLM(model llm.ChatModel, opts LLMOptions) (*LLM, error) {
	if model == nil {
		return nil, fmt.Errorf("%w: nil model", ErrInvalidOptions)
	}
	lang, err := llmLanguage(opts.Language)
	if err != nil {
		return nil, err
	}
	opts.Language = lang
	opts.MaxContentChars = cmp.Or(opts.MaxContentChars, defaultLLMContentChars)
	return &LLM{model: model, opts: opts}, nil
}

// llmLanguage maps a language tag to the prompts' suffix.
func llmLanguage(tag string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(tag))
	base, _, _ := strings.Cut(strings.ReplaceAll(t, "_", "-"), "-")
	switch base {
	case "", "pt":
		return "pt-BR", nil
	case "en":
		return "en", nil
	}
	return "", fmt.Errorf("%w: unsupported language %q (want pt-BR or en)", ErrInvalidOptions, tag)
}

// llmCandidate is a candidate as the user template sees it.
type llmCandidate struct {
	Index          int
	Title, Content string
}

// request returns the model request Rerank sends for query and cands.
func (r *LLM) request(query string, cands []Candidate) (llm.Request, error) {
	system, err := render("llm_system", r.opts.Language, nil)
	if err != nil {
		return llm.Request{}, err
	}
	data := struct {
		Query      string
		Candidates []llmCandidate
	}{Query: oneLine(query)}
	for i, c := range cands {
		data.Candidates = append(data.Candidates, llmCandidate{
			Index: i, Title: oneLine(c.Title), Content: truncate(oneLine(c.Content), r.opts.MaxContentChars),
		})
	}
	user, err := render("llm_user", r.opts.Language, data)
	if err != nil {
		return llm.Request{}, err
	}
	return llm.Request{
		Model:       r.opts.Model,
		Messages:    []llm.Message{llm.SystemMessage(system), llm.UserMessage(user)},
		Temperature: llm.Temperature(0),
		MaxTokens:   64 + 24*len(cands),
	}, nil
}

// Rerank implements [Reranker]. An answer that is not the requested JSON,
// names an index twice or outside the candidates, or gives a score outside
// [0, 1] wraps [ErrInvalidResponse]; model errors are returned wrapped.
func (r *LLM) Rerank(ctx context.Context, query string, cands []Candidate) ([]Result, error) {
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmptyQuery
	}
	if len(cands) == 0 {
		return nil, nil
	}
	req, err := r.request(query, cands)
	if err != nil {
		return nil, err
	}
	var out struct {
		Scores []struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		} `json:"scores"`
	}
	if _, err := llm.CompleteJSON(ctx, r.model, req, llm.ResponseFormat{
		Name: "relevance_scores", Description: "A relevance score from 0 to 1 per candidate.",
		Schema: llmScoresSchema, Strict: true,
	}, &out); err != nil {
		if errors.Is(err, llm.ErrInvalidOutput) {
			return nil, fmt.Errorf("rerank: llm: %w: %w", ErrInvalidResponse, err)
		}
		return nil, fmt.Errorf("rerank: llm: %w", err)
	}
	seen := make([]bool, len(cands))
	results := make([]Result, 0, len(out.Scores))
	for _, s := range out.Scores {
		switch {
		case s.Index < 0 || s.Index >= len(cands):
			return nil, fmt.Errorf("%w: llm: index %d, want 0..%d", ErrInvalidResponse, s.Index, len(cands)-1)
		case seen[s.Index]:
			return nil, fmt.Errorf("%w: llm: index %d scored twice", ErrInvalidResponse, s.Index)
		case math.IsNaN(s.Score) || s.Score < 0 || s.Score > 1:
			return nil, fmt.Errorf("%w: llm: index %d has score %v, want [0, 1]", ErrInvalidResponse, s.Index, s.Score)
		}
		seen[s.Index] = true
		c := cands[s.Index]
		results = append(results, Result{
			ID: c.ID, Index: s.Index, Score: s.Score, Original: c.Score,
			Explanation: Explanation{Method: MethodLLM, Raw: s.Score},
		})
	}
	return results, nil
}

// render executes a prompt template in lang.
func render(name, lang string, data any) (string, error) {
	var b strings.Builder
	if err := prompts.ExecuteTemplate(&b, name+"."+lang+".tmpl", data); err != nil {
		return "", fmt.Errorf("rerank: llm prompt %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// oneLine collapses white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncate cuts s to n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if n < 0 || utf8.RuneCountInString(s) <= n {
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
