package assist

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/internal/audit"
	"github.com/hybridrag/hybridrag/internal/chunkagg"
	"github.com/hybridrag/hybridrag/internal/prompt"
	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/storage"
)

// toolName is the tool name under which Assist audits its prompt, so an
// audit log tells catalog assistance apart from the chat's searches.
const toolName = "catalog-ai-helper"

// Fields Assist can suggest, in the order it asks for them: the values of
// Result.Missing and DroppedSuggestion.Field.
const (
	fieldDescription = "description"
	fieldCategory    = "category"
	fieldPrice       = "price"
	fieldTags        = "tags"
)

// Defaults of Options.
const (
	defaultMaxTags               = 8
	defaultMaxDescription        = 600
	defaultMaxTokens             = 500
	assistMaxCategoryChars       = 64
	assistMaxTagChars            = 40
	assistFileExcerptChars       = 300
	assistMaxFilesInPrompt       = 2
	assistDescriptionOfItemChars = 600
)

var (
	// ErrInput reports an item Assist cannot work from: it has no
	// name.
	ErrInput = errors.New("rag: catalog assist needs the item's name")
	// ErrOptions reports impossible Options (a negative or
	// non-finite MaxPrice).
	ErrOptions = errors.New("rag: invalid catalog assist options")
)

// Options configures Assist. The zero value has no price bound, no known categories and pt-BR prompts.
type Options struct {
	// Model is the model name sent with the request; "" leaves the
	// ChatModel's default.
	Model string
	// MaxPrice is the highest acceptable price suggestion; 0 means no
	// upper bound. Suggestions above it
	// are dropped.
	MaxPrice float64
	// Categories is the known category set. When given, a suggested
	// category must match one of them (ignoring case and accents) and is
	// returned with the known spelling; otherwise it is dropped.
	Categories []string
	// Language selects the prompts (default pt-BR).
	Language rag.Language
	// MaxTags caps the suggested tags (default 8); MaxDescriptionChars
	// caps the suggested description (default 600).
	MaxTags, MaxDescriptionChars int
	// Logger receives the audit record (tool "catalog-ai-helper", the
	// prompt as payload, its first 800 characters); nil logs nothing.
	Logger *slog.Logger
}

// Suggestions are validated values for an item's missing fields. Only
// fields that were empty on the item are ever set.
type Suggestions struct {
	Description string   `json:"description,omitempty"`
	Category    string   `json:"category,omitempty"`
	Price       *float64 `json:"price,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// count returns the number of suggested fields.
func (s Suggestions) count() int {
	n := 0
	for _, set := range []bool{s.Description != "", s.Category != "", s.Price != nil, len(s.Tags) > 0} {
		if set {
			n++
		}
	}
	return n
}

// Apply returns a copy of item with the suggestions filled in where item's
// field is empty; filled fields are never overwritten.
func (s Suggestions) Apply(item storage.CatalogItem) storage.CatalogItem {
	if strings.TrimSpace(item.Description) == "" && s.Description != "" {
		item.Description = s.Description
	}
	if strings.TrimSpace(item.Category) == "" && s.Category != "" {
		item.Category = s.Category
	}
	if item.Price == nil && s.Price != nil {
		p := *s.Price
		item.Price = &p
	}
	if len(item.Tags) == 0 && len(s.Tags) > 0 {
		item.Tags = slices.Clone(s.Tags)
	}
	return item
}

// DroppedSuggestion is a model suggestion that failed validation.
type DroppedSuggestion struct {
	// Field is "description", "category", "price" or "tags".
	Field string `json:"field"`
	// Value is the suggestion as the model wrote it.
	Value string `json:"value"`
	// Reason says why it was dropped.
	Reason string `json:"reason"`
}

// Result is the outcome of Assist.
type Result struct {
	// Missing are the fields that were empty, in this order:
	// "description", "category", "price", "tags".
	Missing []string `json:"missing"`
	// Suggestions are the validated values.
	Suggestions Suggestions `json:"suggestions"`
	// Dropped are the suggestions that failed validation.
	Dropped []DroppedSuggestion `json:"dropped,omitempty"`
	// Model and Usage describe the model call (zero when none was needed).
	Model string    `json:"model,omitempty"`
	Usage llm.Usage `json:"usage"`
	// Prompt is the prompt sent, as audited.
	Prompt string `json:"prompt,omitempty"`
}

// assistPromptData is the data of the assist template.
type assistPromptData struct {
	Name, Description, Category, Manufacturer, Price   string
	Tags, Files, Missing, Categories                   []string
	WantDescription, WantCategory, WantPrice, WantTags bool
	MaxPrice                                           string
	MaxTags                                            int
}

// Assist suggests the missing description, category, price and tags of a
// catalog item with structured output.
// Only empty fields are asked for; when none is empty no model call is made.
// Suggestions are validated: a price must be a number in [0, MaxPrice]
// (rounded to cents), a category must belong to opts.Categories when given
// (matched ignoring case and accents, returned with the known spelling),
// tags are trimmed, deduplicated and capped; anything else is reported in
// Dropped with a reason. The prompt is audited like the pipeline's tools.
//
// Errors: ErrInput for an item without a name, ErrOptions for a
// bad MaxPrice, ErrUnsupportedLanguage, and the model's error (wrapping
// llm.ErrInvalidOutput for an answer that is not the requested JSON).
// Assist is safe for concurrent use when model is.
func Assist(ctx context.Context, model llm.ChatModel, item storage.CatalogItem, opts Options) (*Result, error) {
	if model == nil {
		return nil, errors.New("rag: Assist: nil model")
	}
	if strings.TrimSpace(item.Name) == "" {
		return nil, ErrInput
	}
	if math.IsNaN(opts.MaxPrice) || math.IsInf(opts.MaxPrice, 0) || opts.MaxPrice < 0 {
		return nil, fmt.Errorf("%w: MaxPrice %v (want a finite number >= 0)", ErrOptions, opts.MaxPrice)
	}
	lang, err := rag.ParseLanguage(string(opts.Language))
	if err != nil {
		return nil, err
	}
	maxTags := cmp.Or(max(opts.MaxTags, 0), defaultMaxTags)
	maxDesc := cmp.Or(max(opts.MaxDescriptionChars, 0), defaultMaxDescription)
	known := knownCategories(opts.Categories)

	res := &Result{}
	data := assistPromptData{
		Name: item.Name, Description: chunkagg.Truncate(textutil.OneLine(item.Description), assistDescriptionOfItemChars),
		Category: item.Category, Manufacturer: item.Manufacturer, MaxTags: maxTags,
	}
	if item.Price != nil {
		data.Price = textutil.FormatPrice(item.Price)
	}
	for _, t := range item.Tags {
		if t = textutil.OneLine(t); t != "" {
			data.Tags = append(data.Tags, t)
		}
	}
	for _, f := range item.Files {
		if len(data.Files) == assistMaxFilesInPrompt {
			break
		}
		if text := chunkagg.Truncate(textutil.OneLine(f.Text), assistFileExcerptChars); text != "" {
			data.Files = append(data.Files, cmp.Or(textutil.OneLine(f.Name), "arquivo")+": "+text)
		}
	}
	props := map[string]json.RawMessage{}
	if strings.TrimSpace(item.Description) == "" {
		res.Missing, data.WantDescription = append(res.Missing, fieldDescription), true
		props[fieldDescription] = json.RawMessage(`{"type":"string"}`)
	}
	if strings.TrimSpace(item.Category) == "" {
		res.Missing, data.WantCategory = append(res.Missing, fieldCategory), true
		props[fieldCategory] = json.RawMessage(`{"type":"string"}`)
		for _, c := range known {
			data.Categories = append(data.Categories, c.name)
		}
	}
	if item.Price == nil {
		res.Missing, data.WantPrice = append(res.Missing, fieldPrice), true
		props[fieldPrice] = json.RawMessage(`{"type":["number","null"]}`)
		if opts.MaxPrice > 0 {
			data.MaxPrice = textutil.FormatPrice(&opts.MaxPrice)
		}
	}
	if len(data.Tags) == 0 {
		res.Missing, data.WantTags = append(res.Missing, fieldTags), true
		props[fieldTags] = json.RawMessage(`{"type":"array","items":{"type":"string"}}`)
	}
	if len(res.Missing) == 0 {
		return res, nil
	}
	data.Missing = res.Missing

	system, err := prompt.Render(prompt.AssistSystem, lang, nil)
	if err != nil {
		return nil, err
	}
	if res.Prompt, err = prompt.Render(prompt.Assist, lang, data); err != nil {
		return nil, err
	}
	schema, err := json.Marshal(map[string]any{
		"type": "object", "properties": props, "required": res.Missing, "additionalProperties": false,
	})
	if err != nil {
		return nil, fmt.Errorf("rag: Assist: schema: %w", err)
	}
	var out struct {
		Description *string  `json:"description"`
		Category    *string  `json:"category"`
		Price       *float64 `json:"price"`
		Tags        []string `json:"tags"`
	}
	resp, err := llm.CompleteJSON(ctx, model, llm.Request{
		Model:     opts.Model,
		Messages:  []llm.Message{llm.SystemMessage(system), llm.UserMessage(res.Prompt)},
		MaxTokens: defaultMaxTokens,
	}, llm.ResponseFormat{
		Name: "catalog_suggestions", Description: "Suggested values for the item's missing fields.",
		Schema: schema, Strict: true,
	}, &out)
	res.Model, res.Usage = cmp.Or(resp.Model, opts.Model), resp.Usage
	auditArgs, _ := json.Marshal(map[string]any{"item": item.ID, "name": item.Name, "missing": res.Missing})
	if err != nil {
		audit.LogToolPayload(ctx, opts.Logger, audit.DefaultPreview, toolName, string(auditArgs), 0, res.Prompt)
		return nil, fmt.Errorf("rag: Assist: %w", err)
	}

	drop := func(field, value, reason string) {
		res.Dropped = append(res.Dropped, DroppedSuggestion{Field: field, Value: value, Reason: reason})
	}
	s := &res.Suggestions
	if data.WantDescription && out.Description != nil {
		if d := strings.TrimSpace(*out.Description); d != "" {
			s.Description = chunkagg.Truncate(d, maxDesc)
		}
	}
	if data.WantCategory && out.Category != nil {
		if c := textutil.OneLine(*out.Category); c != "" {
			switch {
			case len(known) > 0:
				if k, ok := matchCategory(known, c); ok {
					s.Category = k
				} else {
					drop(fieldCategory, c, "not one of the known categories")
				}
			case len([]rune(c)) > assistMaxCategoryChars:
				drop(fieldCategory, c, fmt.Sprintf("longer than %d characters", assistMaxCategoryChars))
			default:
				s.Category = c
			}
		}
	}
	if data.WantPrice && out.Price != nil {
		p := *out.Price
		v := fmt.Sprint(p)
		switch {
		case math.IsNaN(p) || math.IsInf(p, 0):
			drop(fieldPrice, v, "not a finite number")
		case p < 0:
			drop(fieldPrice, v, "negative price")
		case opts.MaxPrice > 0 && p > opts.MaxPrice:
			drop(fieldPrice, v, "above the maximum price "+textutil.FormatPrice(&opts.MaxPrice))
		default:
			rounded := math.Round(p*100) / 100
			s.Price = &rounded
		}
	}
	if data.WantTags {
		seen := map[string]bool{}
		for _, t := range out.Tags {
			t = textutil.OneLine(t)
			n := lexical.Normalize(t)
			switch {
			case n == "" || seen[n]:
				continue
			case len([]rune(t)) > assistMaxTagChars:
				drop(fieldTags, t, fmt.Sprintf("longer than %d characters", assistMaxTagChars))
			case len(s.Tags) == maxTags:
				drop(fieldTags, t, fmt.Sprintf("more than %d tags", maxTags))
			default:
				seen[n] = true
				s.Tags = append(s.Tags, t)
			}
		}
	}
	audit.LogToolPayload(ctx, opts.Logger, audit.DefaultPreview, toolName, string(auditArgs), s.count(), res.Prompt)
	return res, nil
}

// knownCategory is a category of the known set with its normalized form.
type knownCategory struct{ name, norm string }

// knownCategories trims and deduplicates the known set, keeping the first
// spelling of each normalized name.
func knownCategories(cats []string) []knownCategory {
	var out []knownCategory
	seen := map[string]bool{}
	for _, c := range cats {
		c = textutil.OneLine(c)
		n := lexical.Normalize(c)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, knownCategory{name: c, norm: n})
	}
	return out
}

// matchCategory finds c in the known set, ignoring case and accents.
func matchCategory(known []knownCategory, c string) (string, bool) {
	n := lexical.Normalize(c)
	for _, k := range known {
		if k.norm == n {
			return k.name, true
		}
	}
	return "", false
}
