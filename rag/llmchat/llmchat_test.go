package llmchat_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/llmchat"
	"github.com/hybridrag/hybridrag/rag/offline"
)

func TestParseLanguage(t *testing.T) {
	for _, tc := range []struct {
		tag     string
		want    rag.Language
		wantErr bool
	}{
		{"", rag.LanguagePortuguese, false},
		{"pt-BR", rag.LanguagePortuguese, false},
		{"pt_br", rag.LanguagePortuguese, false},
		{" PT ", rag.LanguagePortuguese, false},
		{"en", rag.LanguageEnglish, false},
		{"en-US", rag.LanguageEnglish, false},
		{"fr", "", true},
		{"english", "", true},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			got, err := rag.ParseLanguage(tc.tag)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseLanguage(%q) = %q, %v; want %q, error %v", tc.tag, got, err, tc.want, tc.wantErr)
			}
			if err != nil && !errors.Is(err, rag.ErrUnsupportedLanguage) {
				t.Errorf("error %v does not wrap ErrUnsupportedLanguage", err)
			}
		})
	}
}

func TestLLMConstructorsReject(t *testing.T) {
	m := llmtest.NewModel()
	for name, fn := range map[string]func() error{
		"classifier nil model": func() error { _, err := llmchat.NewClassifier(nil, llmchat.ClassifierOptions{}); return err },
		"classifier language": func() error {
			_, err := llmchat.NewClassifier(m, llmchat.ClassifierOptions{Language: "de"})
			return err
		},
		"answerer nil model": func() error { _, err := llmchat.NewAnswerer(nil, llmchat.AnswererOptions{}); return err },
		"answerer language": func() error {
			_, err := llmchat.NewAnswerer(m, llmchat.AnswererOptions{Language: "es"})
			return err
		},
		"summarizer nil model": func() error { _, err := llmchat.NewSummarizer(nil, llmchat.SummarizerOptions{}); return err },
		"summarizer language": func() error {
			_, err := llmchat.NewSummarizer(m, llmchat.SummarizerOptions{Language: "it"})
			return err
		},
		"agentic unknown tool": func() error { return agenticErr(t, rag.AgentOptions{Tools: []string{"searchWeb"}}) },
		"agentic no tool":      func() error { return agenticErr(t, rag.AgentOptions{Tools: []string{}}) },
		"pipeline bad language": func() error {
			store, emb := ragtest.Fixture(t)
			_, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{Language: "xx"})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := fn(); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if m.Calls() != 0 {
		t.Errorf("%d model calls for rejected input", m.Calls())
	}
}

func agenticErr(t *testing.T, opts rag.AgentOptions) error {
	_, err := rag.NewAgent(ragtest.OfflinePipeline(t, rag.PipelineOptions{}), llmtest.NewModel(), opts)
	return err
}

const classifyCatalogJSON = `{"intent":"catalog","confidence":0.92,"reason":"pede um produto"}`

func TestLLMClassifier(t *testing.T) {
	apiDown := &llm.APIError{Provider: "test", StatusCode: 503, Retryable: true, Message: "unavailable"}
	req := rag.ClassifyRequest{
		Message: "tem fungicida para uva?",
		Summary: "O usuário cultiva uva em Bento Gonçalves.",
		History: []rag.Turn{{Role: llm.RoleUser, Content: "bom dia"}, {Role: llm.RoleAssistant, Content: "Olá! Como posso ajudar?"}},
	}
	for _, tc := range []struct {
		name          string
		primary       []llmtest.Step
		fallback      []llmtest.Step // nil: no Fallback model
		fallbackModel string
		offline       rag.Classifier
		want          rag.Intent
		wantModel     string
		wantErr       error
		wantReason    string
	}{
		{name: "primary answers", primary: []llmtest.Step{llmtest.Text(classifyCatalogJSON)}, want: rag.IntentCatalog, wantModel: "llmtest"},
		{name: "code fence is accepted", primary: []llmtest.Step{llmtest.Text("```json\n" + classifyCatalogJSON + "\n```")}, want: rag.IntentCatalog},
		{
			name: "fallback model after an API error", primary: []llmtest.Step{llmtest.Fail(apiDown)},
			fallback: []llmtest.Step{llmtest.Text(`{"intent":"support","confidence":0.8,"reason":"entrega"}`)}, want: rag.IntentSupport,
		},
		{
			name: "fallback model after invalid output", primary: []llmtest.Step{llmtest.Text("catalog")},
			fallback: []llmtest.Step{llmtest.Text(`{"intent":"agronomy","confidence":0.7,"reason":"dose"}`)}, want: rag.IntentAgronomy,
		},
		{
			name: "fallback model name on the same model", fallbackModel: "cheap-model",
			primary: []llmtest.Step{llmtest.Fail(apiDown), llmtest.Text(`{"intent":"smalltalk","confidence":1,"reason":"oi"}`)},
			want:    rag.IntentSmallTalk,
		},
		{name: "unknown intent is invalid output", primary: []llmtest.Step{llmtest.Text(`{"intent":"shopping","confidence":0.9,"reason":"x"}`)}, wantErr: llm.ErrInvalidOutput},
		{name: "confidence out of range is invalid output", primary: []llmtest.Step{llmtest.Text(`{"intent":"other","confidence":7,"reason":"x"}`)}, wantErr: llm.ErrInvalidOutput},
		{
			name: "both models fail", primary: []llmtest.Step{llmtest.Fail(apiDown)}, fallback: []llmtest.Step{llmtest.Text("{}")},
			wantErr: llm.ErrInvalidOutput,
		},
		{
			name: "offline classifier after both models", primary: []llmtest.Step{llmtest.Fail(apiDown)}, fallback: []llmtest.Step{llmtest.Fail(apiDown)},
			offline: offline.KeywordClassifier{}, want: rag.IntentCatalog, wantModel: "keyword", wantReason: "models failed",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			primary := llmtest.NewModel(tc.primary...)
			opts := llmchat.ClassifierOptions{Model: "classify-model", FallbackModel: tc.fallbackModel, Offline: tc.offline}
			var fallback *llmtest.Model
			if tc.fallback != nil {
				fallback = llmtest.NewModel(tc.fallback...)
				opts.Fallback, opts.FallbackModel = fallback, "fallback-model"
			}
			c, err := llmchat.NewClassifier(primary, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Classify(context.Background(), req)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Intent != tc.want || got.Confidence < 0 || got.Confidence > 1 {
				t.Errorf("classification %+v, want intent %q", got, tc.want)
			}
			if tc.wantModel != "" && got.Model != tc.wantModel {
				t.Errorf("model %q, want %q", got.Model, tc.wantModel)
			}
			if !strings.Contains(got.Reason, tc.wantReason) {
				t.Errorf("reason %q lacks %q", got.Reason, tc.wantReason)
			}
			r := primary.Requests()[0]
			if r.Model != "classify-model" || r.Temperature == nil || *r.Temperature != 0 {
				t.Errorf("request model %q temperature %v, want classify-model at 0", r.Model, r.Temperature)
			}
			if f := r.ResponseFormat; f == nil || !f.Strict || !strings.Contains(string(f.Schema), `"smalltalk"`) {
				t.Errorf("response format %+v", f)
			}
			user := ragtest.LastUser(r)
			for _, want := range []string{req.Message, req.Summary, "Assistente: Olá! Como posso ajudar?"} {
				if !strings.Contains(user, want) {
					t.Errorf("classification prompt lacks %q:\n%s", want, user)
				}
			}
			if tc.fallbackModel != "" {
				if reqs := primary.Requests(); len(reqs) != 2 || reqs[1].Model != tc.fallbackModel {
					t.Errorf("fallback request model: %d requests", len(reqs))
				}
			}
		})
	}
}

func TestLLMClassifierStopsOnDoneContext(t *testing.T) {
	fallback := llmtest.NewModel(llmtest.Text(classifyCatalogJSON))
	c, err := llmchat.NewClassifier(llmtest.NewModel(llmtest.Hang()), llmchat.ClassifierOptions{Fallback: fallback, Offline: offline.KeywordClassifier{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Classify(ctx, rag.ClassifyRequest{Message: "fungicida"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want DeadlineExceeded", err)
	}
	if fallback.Calls() != 0 {
		t.Error("the fallback model was called after the deadline")
	}
	if _, err := c.Classify(context.Background(), rag.ClassifyRequest{Message: " "}); !errors.Is(err, rag.ErrEmptyMessage) {
		t.Errorf("blank message: %v", err)
	}
}

func answerRequest() rag.AnswerRequest {
	sections := []rag.ContextSection{
		{Name: "history", Text: "Histórico recente:\nUsuário: bom dia"},
		{Name: "faqs", Text: "FAQs relevantes (1): Q: Entregam? | A: Sim."},
		{Name: "catalog", Text: `Busca híbrida no catálogo para "fungicida" (1 itens): 1. Oidiex | Preço: R$ 98,50`},
	}
	return rag.AnswerRequest{
		Message:  "tem fungicida?",
		Intent:   rag.IntentCatalog,
		History:  []rag.Turn{{Role: llm.RoleUser, Content: "bom dia"}, {Role: llm.RoleAssistant, Content: "Olá!"}, {Role: llm.RoleSystem, Content: "ignore"}},
		Sections: sections,
	}
}

func TestLLMAnswerer(t *testing.T) {
	ctx := context.Background()
	t.Run("answer", func(t *testing.T) {
		m := llmtest.NewModel(llmtest.Text(" Temos o Oidiex por R$ 98,50. ").WithUsage(300, 12))
		a, err := llmchat.NewAnswerer(m, llmchat.AnswererOptions{Model: "answer-model"})
		if err != nil {
			t.Fatal(err)
		}
		ans, err := a.Answer(ctx, answerRequest())
		if err != nil {
			t.Fatal(err)
		}
		if ans.Text != "Temos o Oidiex por R$ 98,50." || ans.Usage.TotalTokens != 312 || ans.Model != "llmtest" {
			t.Errorf("answer %+v", ans)
		}
		r := m.Requests()[0]
		roles := make([]string, len(r.Messages))
		for i, msg := range r.Messages {
			roles[i] = string(msg.Role)
		}
		if got := strings.Join(roles, ","); got != "system,user,assistant,user" {
			t.Errorf("roles %s, want system, the two history turns, then the context", got)
		}
		if r.Model != "answer-model" || r.MaxTokens != 0 || r.Temperature != nil {
			t.Errorf("model %q max tokens %d temperature %v, want answer-model and the provider's defaults", r.Model, r.MaxTokens, r.Temperature)
		}
		payload := ragtest.LastUser(r)
		if strings.Contains(payload, "Histórico recente") || !strings.HasPrefix(payload, "Contexto consolidado") ||
			!strings.Contains(payload, "FAQs relevantes (1)") || !strings.HasSuffix(payload, rag.QuestionPrefix+"tem fungicida?") {
			t.Errorf("payload:\n%s", payload)
		}
	})
	t.Run("empty answer is an error with usage", func(t *testing.T) {
		m := llmtest.NewModel(llmtest.Text("  ").WithUsage(50, 0))
		a, _ := llmchat.NewAnswerer(m, llmchat.AnswererOptions{})
		ans, err := a.Answer(ctx, answerRequest())
		if !errors.Is(err, llm.ErrEmptyAnswer) || ans.Usage.PromptTokens != 50 {
			t.Errorf("error %v, usage %+v", err, ans.Usage)
		}
	})
	t.Run("model error", func(t *testing.T) {
		a, _ := llmchat.NewAnswerer(llmtest.NewModel(llmtest.Fail(&llm.APIError{StatusCode: 500})), llmchat.AnswererOptions{})
		if _, err := a.Answer(ctx, answerRequest()); apiStatus(err) != 500 {
			t.Errorf("error %v, want the API error", err)
		}
	})
	t.Run("stream", func(t *testing.T) {
		step := llmtest.Text("Temos o Oidiex.").WithUsage(10, 3)
		step.Chunks = []string{"Temos ", "o ", "Oidiex."}
		a, _ := llmchat.NewAnswerer(llmtest.NewModel(step), llmchat.AnswererOptions{})
		var toks []string
		ans, err := a.StreamAnswer(ctx, answerRequest(), func(s string) { toks = append(toks, s) })
		if err != nil {
			t.Fatal(err)
		}
		if len(toks) != 3 || strings.Join(toks, "") != ans.Text || ans.Usage.TotalTokens != 13 {
			t.Errorf("tokens %q, answer %+v", toks, ans)
		}
	})
	t.Run("fallback model answers when the primary fails", func(t *testing.T) {
		for _, stream := range []bool{false, true} {
			m := llmtest.NewModel(llmtest.Fail(&llm.APIError{StatusCode: 503, Retryable: true}), llmtest.Text("Do reserva."))
			a, _ := llmchat.NewAnswerer(m, llmchat.AnswererOptions{Model: "main", FallbackModel: "backup"})
			var ans rag.Answer
			var err error
			if stream {
				ans, err = a.StreamAnswer(ctx, answerRequest(), func(string) {})
			} else {
				ans, err = a.Answer(ctx, answerRequest())
			}
			reqs := m.Requests()
			if err != nil || ans.Text != "Do reserva." || len(reqs) != 2 || reqs[0].Model != "main" || reqs[1].Model != "backup" {
				t.Errorf("stream %v: answer %+v, error %v, %d requests", stream, ans, err, len(reqs))
			}
		}
	})
	t.Run("no fallback on a client error", func(t *testing.T) {
		m := llmtest.NewModel(llmtest.Fail(&llm.APIError{StatusCode: 400}), llmtest.Text("never"))
		a, _ := llmchat.NewAnswerer(m, llmchat.AnswererOptions{FallbackModel: "backup"})
		if _, err := a.Answer(ctx, answerRequest()); apiStatus(err) != 400 || m.Calls() != 1 {
			t.Errorf("error %v after %d calls", err, m.Calls())
		}
	})
	t.Run("no sections", func(t *testing.T) {
		m := llmtest.NewModel(llmtest.Text("ok"))
		a, _ := llmchat.NewAnswerer(m, llmchat.AnswererOptions{SystemPrompt: "Seja breve."})
		_, _ = a.Answer(ctx, rag.AnswerRequest{Message: "oi"})
		reqs := m.Requests()
		if ragtest.LastUser(reqs[0]) != rag.QuestionPrefix+"oi" || reqs[0].Messages[0].Content != "Seja breve." {
			t.Errorf("payload %q, system %q", ragtest.LastUser(reqs[0]), reqs[0].Messages[0].Content)
		}
	})
}

func TestLLMSummarizer(t *testing.T) {
	ctx := context.Background()
	hist := []rag.Turn{
		{Role: llm.RoleUser, Content: "tenho um parreiral com oídio"},
		{Role: llm.RoleAssistant, Content: "Posso indicar fungicidas."},
	}
	t.Run("summary", func(t *testing.T) {
		m := llmtest.NewModel(llmtest.Text(`{"summary":"Parreiral com oídio.","catalog_query":"fungicida  uva oídio"}`))
		s, err := llmchat.NewSummarizer(m, llmchat.SummarizerOptions{Model: "sum"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Summarize(ctx, hist)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != "Parreiral com oídio." || got.CatalogQuery != "fungicida uva oídio" {
			t.Errorf("summary %+v", got)
		}
		r := m.Requests()[0]
		if r.Model != "sum" || r.ResponseFormat == nil || !strings.Contains(ragtest.LastUser(r), "Usuário: tenho um parreiral com oídio") {
			t.Errorf("request %+v", r)
		}
	})
	t.Run("empty history makes no call", func(t *testing.T) {
		m := llmtest.NewModel()
		s, _ := llmchat.NewSummarizer(m, llmchat.SummarizerOptions{})
		if got, err := s.Summarize(ctx, nil); err != nil || got != (rag.Summary{}) || m.Calls() != 0 {
			t.Errorf("got %+v, %v, %d calls", got, err, m.Calls())
		}
	})
	t.Run("blank summary", func(t *testing.T) {
		s, _ := llmchat.NewSummarizer(llmtest.NewModel(llmtest.Text(`{"summary":" ","catalog_query":""}`)), llmchat.SummarizerOptions{})
		if _, err := s.Summarize(ctx, hist); !errors.Is(err, llm.ErrInvalidOutput) {
			t.Errorf("error %v", err)
		}
	})
}

// TestPipelineWithLLMComponents runs planned mode end to end on the memory
// store with scripted models: summary → classification → searches →
// streamed answer.
func TestPipelineWithLLMComponents(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	searcher := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	sumModel := llmtest.NewModel(llmtest.Text(`{"summary":"O cliente tem videiras com oídio.","catalog_query":"fungicida uva oídio"}`))
	clsModel := llmtest.NewModel(llmtest.Text(classifyCatalogJSON))
	ansStep := llmtest.Text("Indico o produto do catálogo.").WithUsage(400, 8)
	ansStep.Chunks = []string{"Indico ", "o produto ", "do catálogo."}
	ansModel := llmtest.NewModel(ansStep)

	summarizer, _ := llmchat.NewSummarizer(sumModel, llmchat.SummarizerOptions{})
	classifier, _ := llmchat.NewClassifier(clsModel, llmchat.ClassifierOptions{})
	answerer, _ := llmchat.NewAnswerer(ansModel, llmchat.AnswererOptions{})
	p, err := rag.NewPipeline(searcher, classifier, answerer, rag.PipelineOptions{Summarizer: summarizer, SummarizeAfter: 2, UseCatalogQuery: true})
	if err != nil {
		t.Fatal(err)
	}
	hist := []rag.Turn{
		{Role: llm.RoleUser, Content: "tenho videiras"},
		{Role: llm.RoleAssistant, Content: "Que bom!"},
		{Role: llm.RoleUser, Content: "apareceu um pó branco nas folhas"},
	}
	var tokens strings.Builder
	resp, err := ragtest.Drain(p.ChatStream(context.Background(), rag.ChatRequest{Message: "o que vocês têm para isso?", History: hist}), func(e rag.Event) {
		if e.Kind == rag.EventToken {
			tokens.WriteString(e.Token)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentCatalog || resp.Debug.CatalogQuery != "fungicida uva oídio" || len(resp.Catalog) == 0 {
		t.Fatalf("intent %q, catalog query %q, %d hits", resp.Intent.Intent, resp.Debug.CatalogQuery, len(resp.Catalog))
	}
	if resp.Answer != "Indico o produto do catálogo." || tokens.String() != resp.Answer {
		t.Errorf("answer %q, streamed %q", resp.Answer, tokens.String())
	}
	var answerCall *rag.ModelCall
	for i := range resp.Debug.ModelCalls {
		if resp.Debug.ModelCalls[i].Step == "answer" {
			answerCall = &resp.Debug.ModelCalls[i]
		}
	}
	if answerCall == nil || answerCall.Usage.TotalTokens != 408 {
		t.Errorf("answer model call %+v", answerCall)
	}
	payload := ragtest.LastUser(ansModel.Requests()[0])
	for _, want := range []string{"Resumo da conversa: O cliente tem videiras com oídio.", `Busca híbrida no catálogo para "fungicida uva oídio"`, resp.Catalog[0].Record.Name} {
		if !strings.Contains(payload, want) {
			t.Errorf("answer payload lacks %q", want)
		}
	}

	// A failing classifier and an empty answer: every search, fallback text.
	bad, _ := llmchat.NewClassifier(llmtest.NewModel(llmtest.Fail(&llm.APIError{StatusCode: 503, Retryable: true})), llmchat.ClassifierOptions{})
	empty, _ := llmchat.NewAnswerer(llmtest.NewModel(llmtest.Text("")), llmchat.AnswererOptions{})
	p, _ = rag.NewPipeline(searcher, bad, empty, rag.PipelineOptions{})
	resp, err = p.Chat(context.Background(), rag.ChatRequest{Message: "fungicida para uva"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentOther || !resp.Debug.Plan.Documents || resp.Answer != llm.DefaultFallbackMessages().Empty {
		t.Errorf("intent %q plan %+v answer %q", resp.Intent.Intent, resp.Debug.Plan, resp.Answer)
	}
}

// TestPipelineLanguageWins: PipelineOptions.Language is the one language
// setting — components built with their default (pt-BR) prompts write
// English prompts when the Pipeline's language is English, exactly those
// of components configured in English.
func TestPipelineLanguageWins(t *testing.T) {
	ctx := context.Background()
	run := func(pipeLang, compLang rag.Language) []llm.Request {
		t.Helper()
		m := llmtest.NewModel(llmtest.Text(classifyCatalogJSON), llmtest.Text("ok"))
		c, err := llmchat.NewClassifier(m, llmchat.ClassifierOptions{Language: compLang})
		if err != nil {
			t.Fatal(err)
		}
		a, err := llmchat.NewAnswerer(m, llmchat.AnswererOptions{Language: compLang})
		if err != nil {
			t.Fatal(err)
		}
		store, emb := ragtest.Fixture(t)
		p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), c, a, rag.PipelineOptions{Language: pipeLang})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Chat(ctx, rag.ChatRequest{Message: "tem fungicida para uva?"})
		if err != nil {
			t.Fatal(err)
		}
		// The confidence text follows the Pipeline's language.
		if pt := resp.Confidence.Message(); (pipeLang == rag.LanguageEnglish) == (resp.ConfidenceText == pt) {
			t.Errorf("confidence text %q, in the wrong language for %q", resp.ConfidenceText, pipeLang)
		}
		return m.Requests()
	}
	viaPipeline := run(rag.LanguageEnglish, "")
	viaComponents := run("", rag.LanguageEnglish)
	portuguese := run("", "")
	if len(viaPipeline) != 2 || len(viaComponents) != 2 || len(portuguese) != 2 {
		t.Fatalf("requests %d %d %d, want 2 each", len(viaPipeline), len(viaComponents), len(portuguese))
	}
	for i, step := range []string{"classify", "answer"} {
		got, want := viaPipeline[i].Messages[0].Content, viaComponents[i].Messages[0].Content
		if got != want {
			t.Errorf("%s system prompt with PipelineOptions.Language en:\n%s\nwant the English one:\n%s", step, got, want)
		}
		if got == portuguese[i].Messages[0].Content {
			t.Errorf("%s system prompt did not change with the language", step)
		}
	}
}

// apiStatus is the HTTP status of the *llm.APIError in err's chain, or 0.
func apiStatus(err error) int {
	var e *llm.APIError
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}
