package rerank

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

var updatePrompts = flag.Bool("update", false, "rewrite the prompt golden files")

var llmCands = []Candidate{
	{ID: "p1", Title: "Herbicida Glifosato 480", Content: "Controle de plantas daninhas em soja e milho.", Score: 0.82},
	{ID: "p2", Title: "Fungicida Cúprico", Content: "Fungicida para videira:\n controle do míldio nas uvas.", Score: 0.74},
	{ID: "p3", Title: "", Content: "Nutrição de videiras em floração.", Score: 0.70},
}

func mustLLM(t *testing.T, m llm.ChatModel, opts LLMOptions) *LLM {
	t.Helper()
	r, err := NewLLM(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLLMRerank(t *testing.T) {
	m := llmtest.NewModel(llmtest.Text(`{"scores":[{"index":1,"score":0.95},{"index":0,"score":0.1},{"index":2,"score":0.6}]}`))
	r := mustLLM(t, m, LLMOptions{Model: "rerank-model"})
	got, err := r.Rerank(context.Background(), "fungicida para videira", llmCands)
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{ID: "p2", Index: 1, Score: 0.95, Original: 0.74, Explanation: Explanation{Method: MethodLLM, Raw: 0.95}},
		{ID: "p1", Index: 0, Score: 0.1, Original: 0.82, Explanation: Explanation{Method: MethodLLM, Raw: 0.1}},
		{ID: "p3", Index: 2, Score: 0.6, Original: 0.70, Explanation: Explanation{Method: MethodLLM, Raw: 0.6}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	req := m.Requests()[0]
	if req.Model != "rerank-model" || req.Temperature == nil || *req.Temperature != 0 || req.ResponseFormat == nil || !req.ResponseFormat.Strict {
		t.Errorf("request model %q temperature %v format %+v", req.Model, req.Temperature, req.ResponseFormat)
	}
	if req.MaxTokens != 64+24*3 {
		t.Errorf("max tokens %d", req.MaxTokens)
	}
}

func TestLLMWithApply(t *testing.T) {
	m := llmtest.NewModel(llmtest.Text(`{"scores":[{"index":0,"score":0.2},{"index":2,"score":0.7},{"index":1,"score":0.9}]}`))
	res, err := Apply(context.Background(), mustLLM(t, m, LLMOptions{}), "fungicida para videira", llmCands, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].ID != "p2" || res[1].ID != "p3" {
		t.Errorf("Apply kept %+v, want p2 then p3 (p1 below 0.5)", res)
	}
}

func TestLLMOmittedCandidates(t *testing.T) {
	m := llmtest.NewModel(llmtest.Text(`{"scores":[{"index":2,"score":1}]}`))
	got, err := mustLLM(t, m, LLMOptions{}).Rerank(context.Background(), "videira", llmCands)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "p3" {
		t.Errorf("results %+v", got)
	}
}

func TestLLMInvalidAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
	}{
		{"not JSON", "p2 is best"},
		{"index out of range", `{"scores":[{"index":3,"score":0.5}]}`},
		{"negative index", `{"scores":[{"index":-1,"score":0.5}]}`},
		{"index twice", `{"scores":[{"index":0,"score":0.5},{"index":0,"score":0.6}]}`},
		{"score above 1", `{"scores":[{"index":0,"score":1.5}]}`},
		{"negative score", `{"scores":[{"index":0,"score":-0.1}]}`},
		{"score as text", `{"scores":[{"index":0,"score":"high"}]}`},
		{"missing scores", `{}`},
		{"extra property", `{"scores":[],"note":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustLLM(t, llmtest.NewModel(llmtest.Text(tc.answer)), LLMOptions{})
			_, err := r.Rerank(context.Background(), "videira", llmCands)
			if !errors.Is(err, ErrInvalidResponse) {
				t.Fatalf("error %v, want ErrInvalidResponse", err)
			}
		})
	}
}

func TestLLMErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("model error", func(t *testing.T) {
		r := mustLLM(t, llmtest.NewModel(llmtest.Fail(&llm.APIError{StatusCode: 429, Retryable: true})), LLMOptions{})
		_, err := r.Rerank(ctx, "videira", llmCands)
		if !llm.IsRetryable(err) || errors.Is(err, ErrInvalidResponse) {
			t.Errorf("error %v, want the retryable API error", err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		r := mustLLM(t, llmtest.NewModel(llmtest.Hang()), LLMOptions{})
		dctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if _, err := r.Rerank(dctx, "videira", llmCands); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v", err)
		}
	})
	t.Run("empty query and no candidates make no call", func(t *testing.T) {
		m := llmtest.NewModel()
		r := mustLLM(t, m, LLMOptions{})
		if _, err := r.Rerank(ctx, "  ", llmCands); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("empty query: %v", err)
		}
		if res, err := r.Rerank(ctx, "videira", nil); res != nil || err != nil {
			t.Errorf("no candidates: %v %v", res, err)
		}
		if m.Calls() != 0 {
			t.Errorf("%d calls", m.Calls())
		}
	})
	for name, fn := range map[string]func() (*LLM, error){
		"nil model":        func() (*LLM, error) { return NewLLM(nil, LLMOptions{}) },
		"unknown language": func() (*LLM, error) { return NewLLM(llmtest.NewModel(), LLMOptions{Language: "fr"}) },
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := fn(); !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("error %v, want ErrInvalidOptions", err)
			}
		})
	}
}

// TestLLMNegativeCapIsOff: a negative MaxContentChars sends the whole
// content, the options convention's "off".
func TestLLMNegativeCapIsOff(t *testing.T) {
	r := mustLLM(t, llmtest.NewModel(), LLMOptions{MaxContentChars: -1})
	long := strings.Repeat("á", 900)
	req, err := r.request("videira", []Candidate{{ID: "x", Content: long}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(req.Messages[1].Content, "[0] "+long) {
		t.Errorf("content cut with MaxContentChars -1: %q", req.Messages[1].Content)
	}
}

func TestLLMTruncatesContent(t *testing.T) {
	r := mustLLM(t, llmtest.NewModel(), LLMOptions{MaxContentChars: 10})
	req, err := r.request("videira", []Candidate{{ID: "x", Content: strings.Repeat("á", 50)}})
	if err != nil {
		t.Fatal(err)
	}
	user := req.Messages[1].Content
	if !strings.Contains(user, "[0] "+strings.Repeat("á", 9)+"…") || strings.Contains(user, strings.Repeat("á", 10)) {
		t.Errorf("user prompt %q", user)
	}
}

// TestLLMPromptGolden pins the rendered prompts; run with -update after an
// intended change and review the diff.
func TestLLMPromptGolden(t *testing.T) {
	for _, lang := range []string{"pt-BR", "en"} {
		t.Run(lang, func(t *testing.T) {
			r := mustLLM(t, llmtest.NewModel(), LLMOptions{Language: lang})
			req, err := r.request("fungicida para videira", llmCands)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, m := range req.Messages {
				fmt.Fprintf(&b, "== %s ==\n%s\n\n", m.Role, m.Content)
			}
			path := filepath.Join("testdata", "prompts", "llm."+lang+".golden")
			if *updatePrompts {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./rag/rerank -run TestLLMPromptGolden -update)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("prompt changed (-want +got):\n%s", diff)
			}
		})
	}
}
