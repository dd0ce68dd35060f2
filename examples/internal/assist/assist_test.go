package assist_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/examples/internal/assist"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
)

func TestAssist(t *testing.T) {
	for _, tc := range []struct {
		name        string
		item        storage.CatalogItem
		answer      string
		opts        assist.Options
		wantMissing []string
		want        assist.Suggestions
		wantDropped []assist.DroppedSuggestion
	}{
		{
			name:        "every field missing",
			item:        catalogItem(),
			answer:      `{"description":"Fungicida sistêmico para oídio.","category":"fungicida","price":98.499,"tags":["Uva"," uva ","Maçã","","Oídio"]}`,
			opts:        assist.Options{MaxPrice: 5000, Categories: knownCategories},
			wantMissing: []string{"description", "category", "price", "tags"},
			want:        assist.Suggestions{Description: "Fungicida sistêmico para oídio.", Category: "Fungicida", Price: ptr(98.5), Tags: []string{"Uva", "Maçã", "Oídio"}},
		},
		{
			name:        "category matched without accents",
			item:        catalogItem(),
			answer:      `{"description":"x","category":"FERTILIZANTE FOLIÁR","price":null,"tags":[]}`,
			opts:        assist.Options{Categories: knownCategories},
			wantMissing: []string{"description", "category", "price", "tags"},
			want:        assist.Suggestions{Description: "x", Category: "Fertilizante Foliar"},
		},
		{
			name:        "price above the maximum and unknown category are dropped",
			item:        catalogItem(),
			answer:      `{"description":"","category":"Remédio de planta","price":12000,"tags":["Uva"]}`,
			opts:        assist.Options{MaxPrice: 5000, Categories: knownCategories},
			wantMissing: []string{"description", "category", "price", "tags"},
			want:        assist.Suggestions{Tags: []string{"Uva"}},
			wantDropped: []assist.DroppedSuggestion{
				{Field: "category", Value: "Remédio de planta", Reason: "not one of the known categories"},
				{Field: "price", Value: "12000", Reason: "above the maximum price R$ 5.000,00"},
			},
		},
		{
			name:        "negative price is dropped",
			item:        catalogItem(),
			answer:      `{"description":"d","category":"Fungicidas sistêmicos","price":-3,"tags":["a","b","c"]}`,
			opts:        assist.Options{MaxTags: 2},
			wantMissing: []string{"description", "category", "price", "tags"},
			want:        assist.Suggestions{Description: "d", Category: "Fungicidas sistêmicos", Tags: []string{"a", "b"}},
			wantDropped: []assist.DroppedSuggestion{
				{Field: "price", Value: "-3", Reason: "negative price"},
				{Field: "tags", Value: "c", Reason: "more than 2 tags"},
			},
		},
		{
			name: "filled fields are not asked for",
			item: func() storage.CatalogItem {
				it := catalogItem()
				it.Description, it.Price = "Descrição existente.", ptr(10.0)
				return it
			}(),
			answer:      `{"category":"Herbicida","tags":["Soja"]}`,
			opts:        assist.Options{Categories: knownCategories},
			wantMissing: []string{"category", "tags"},
			want:        assist.Suggestions{Category: "Herbicida", Tags: []string{"Soja"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.NewModel(llmtest.Text(tc.answer).WithUsage(200, 40))
			res, err := assist.Assist(context.Background(), m, tc.item, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantMissing, res.Missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, res.Suggestions); diff != "" {
				t.Errorf("suggestions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantDropped, res.Dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
			if res.Usage.TotalTokens != 240 || res.Prompt == "" {
				t.Errorf("usage %+v, prompt %q", res.Usage, res.Prompt)
			}
			// Only the missing fields are in the strict schema.
			r := m.Requests()[0]
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(r.ResponseFormat.Schema, &schema); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(schema.Required, tc.wantMissing) || len(schema.Properties) != len(tc.wantMissing) || !r.ResponseFormat.Strict {
				t.Errorf("schema %s", r.ResponseFormat.Schema)
			}
			// Apply never overwrites a filled field.
			applied := res.Suggestions.Apply(tc.item)
			if tc.item.Description != "" && applied.Description != tc.item.Description ||
				tc.item.Price != nil && *applied.Price != *tc.item.Price {
				t.Errorf("Apply overwrote a field: %+v", applied)
			}
			if tc.want.Category != "" && applied.Category != tc.want.Category {
				t.Errorf("Apply category %q", applied.Category)
			}
		})
	}
}

func TestAssistPromptAndAudit(t *testing.T) {
	var logs bytes.Buffer
	m := llmtest.NewModel(llmtest.Text(`{"description":"d","category":"Fungicida","price":10,"tags":["Uva"]}`))
	res, err := assist.Assist(context.Background(), m, catalogItem(), assist.Options{
		Model: "assist-model", MaxPrice: 5000, Categories: knownCategories,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[0].Messages
	prompt := msgs[len(msgs)-1].Content
	for _, want := range []string{"Nome: Oidiex 250 EC", "Fabricante: AgroVale", "bula.txt: Fungicida sistêmico", "Fungicida; Herbicida", "no máximo R$ 5.000,00"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if prompt != res.Prompt || m.Requests()[0].Model != "assist-model" {
		t.Error("result prompt differs from the prompt sent")
	}
	var rec map[string]any
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("audit log %q: %v", logs.String(), err)
	}
	if rec["tool"] != "catalog-ai-helper" || rec["results"] != float64(4) || !strings.Contains(rec["arguments"].(string), `"missing":["description","category","price","tags"]`) {
		t.Errorf("audit record %v", rec)
	}
	// The payload is the prompt's first 800 characters.
	p := rec["payload"].(string)
	if n := len([]rune(prompt)); n > 800 && (len([]rune(p)) != 800 || !strings.HasPrefix(prompt, strings.TrimSuffix(p, "…"))) || n <= 800 && p != prompt {
		t.Errorf("payload preview of a %d-character prompt: %q", n, p)
	}
}

func TestAssistErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("nothing missing makes no call", func(t *testing.T) {
		it := catalogItem()
		it.Description, it.Category, it.Price, it.Tags = "d", "c", ptr(1.0), []string{"t"}
		m := llmtest.NewModel()
		res, err := assist.Assist(ctx, m, it, assist.Options{})
		if err != nil || len(res.Missing) != 0 || m.Calls() != 0 {
			t.Errorf("res %+v err %v calls %d", res, err, m.Calls())
		}
	})
	for _, tc := range []struct {
		name   string
		item   storage.CatalogItem
		opts   assist.Options
		answer llmtest.Step
		want   error
	}{
		{"no name", storage.CatalogItem{Description: "x"}, assist.Options{}, llmtest.Text("{}"), assist.ErrInput},
		{"NaN max price", catalogItem(), assist.Options{MaxPrice: math.NaN()}, llmtest.Text("{}"), assist.ErrOptions},
		{"negative max price", catalogItem(), assist.Options{MaxPrice: -1}, llmtest.Text("{}"), assist.ErrOptions},
		{"not JSON", catalogItem(), assist.Options{}, llmtest.Text("Sugiro fungicida."), llm.ErrInvalidOutput},
		{"a filled field in the answer", func() storage.CatalogItem {
			it := catalogItem()
			it.Description, it.Price, it.Tags = "d", ptr(1.0), []string{"t"}
			return it
		}(), assist.Options{}, llmtest.Text(`{"category":"x","description":"overwrite"}`), llm.ErrInvalidOutput},
		{"model down", catalogItem(), assist.Options{}, llmtest.Fail(&llm.APIError{StatusCode: 503}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := assist.Assist(ctx, llmtest.NewModel(tc.answer), tc.item, tc.opts)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the prompt golden files")

// TestAssistPromptGolden pins the request Assist sends, in each language:
// the response format's schema and the system and user prompts.
func TestAssistPromptGolden(t *testing.T) {
	for _, lang := range []rag.Language{rag.LanguagePortuguese, rag.LanguageEnglish} {
		t.Run(string(lang), func(t *testing.T) {
			m := llmtest.NewModel(llmtest.Text(`{"description":"d","category":"Fungicida","price":1,"tags":[]}`))
			if _, err := assist.Assist(context.Background(), m, catalogItem(), assist.Options{MaxPrice: 5000, Categories: knownCategories, Language: lang}); err != nil {
				t.Fatal(err)
			}
			req := m.Requests()[0]
			var b strings.Builder
			fmt.Fprintf(&b, "model: %q\nmax_tokens: %d\n", req.Model, req.MaxTokens)
			if f := req.ResponseFormat; f != nil {
				var schema bytes.Buffer
				if err := json.Indent(&schema, f.Schema, "", "  "); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "response_format: %s (strict: %v)\n%s\n", f.Name, f.Strict, schema.String())
			}
			for _, msg := range req.Messages {
				fmt.Fprintf(&b, "\n== %s ==\n%s\n", msg.Role, msg.Content)
			}
			path := filepath.Join("testdata", "prompt."+string(lang)+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("prompt changed (-want +got; go test -run TestAssistPromptGolden -update):\n%s", diff)
			}
		})
	}
	m := llmtest.NewModel()
	if _, err := assist.Assist(context.Background(), m, catalogItem(), assist.Options{Language: "ja"}); !errors.Is(err, rag.ErrUnsupportedLanguage) {
		t.Errorf("Assist in ja: %v, want rag.ErrUnsupportedLanguage", err)
	}
}

// catalogItem is an item whose description, category, price and tags are
// empty.
func catalogItem() storage.CatalogItem {
	return storage.CatalogItem{ID: "novo-1", Name: "Oidiex 250 EC", Manufacturer: "AgroVale",
		Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Fungicida sistêmico para oídio da videira.\nDose: 30 mL/100 L."}}}
}

// knownCategories are the categories the tests accept.
var knownCategories = []string{"Fungicida", "Herbicida", "Inseticida", "Fertilizante Foliar"}

func ptr[T any](v T) *T { return &v }
