package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

func apiErr(status int) *llm.APIError {
	return &llm.APIError{Provider: "test", StatusCode: status, Retryable: llm.RetryableStatus(status)}
}

func TestFallbackModelComplete(t *testing.T) {
	tests := []struct {
		name         string
		primaryErr   error
		wantFallback bool
	}{
		{"500", apiErr(500), true},
		{"503", apiErr(503), true},
		{"429", apiErr(429), true},
		{"transport", &llm.APIError{Provider: "test", Retryable: true}, true},
		{"invalid response", fmt.Errorf("x: %w", llm.ErrInvalidResponse), true},
		{"400", apiErr(400), false},
		{"401", apiErr(401), false},
		{"plain error", errors.New("bug"), false},
		{"deadline", context.DeadlineExceeded, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			primary := llmtest.NewModel(llmtest.Fail(tt.primaryErr))
			fallback := llmtest.NewModel(llmtest.Text("do reserva"))
			resp, err := llm.WithFallback(primary, fallback).Complete(context.Background(), userReq("x"))
			if tt.wantFallback {
				if err != nil || resp.Message.Content != "do reserva" {
					t.Errorf("got %q, %v; want the fallback's answer", resp.Message.Content, err)
				}
			} else if !errors.Is(err, tt.primaryErr) || fallback.Calls() != 0 {
				t.Errorf("err = %v, fallback calls %d; want the primary error and no fallback", err, fallback.Calls())
			}
		})
	}
	t.Run("both fail", func(t *testing.T) {
		e1, e2 := apiErr(500), apiErr(503)
		_, err := llm.WithFallback(llmtest.NewModel(llmtest.Fail(e1)), llmtest.NewModel(llmtest.Fail(e2))).Complete(context.Background(), userReq("x"))
		if !errors.Is(err, e1) || !errors.Is(err, e2) {
			t.Errorf("err = %v, want both errors in the chain", err)
		}
	})
	t.Run("primary succeeds", func(t *testing.T) {
		fallback := llmtest.NewModel()
		resp, err := llm.WithFallback(llmtest.NewModel(llmtest.Text("principal")), fallback).Complete(context.Background(), userReq("x"))
		if err != nil || resp.Message.Content != "principal" || fallback.Calls() != 0 {
			t.Errorf("got %q, %v", resp.Message.Content, err)
		}
	})
}

// One client, two model names: the fallback request names the fallback
// model, and nesting adds a third.
func TestWithFallbackModel(t *testing.T) {
	for _, tc := range []struct {
		name       string
		steps      []llmtest.Step
		build      func(llm.ChatModel) llm.ChatModel
		wantText   string
		wantModels []string
	}{
		{"primary answers", []llmtest.Step{llmtest.Text("a")},
			func(m llm.ChatModel) llm.ChatModel { return llm.WithFallbackModel(m, "backup") }, "a", []string{"main"}},
		{"primary 503, fallback answers", []llmtest.Step{llmtest.Fail(apiErr(503)), llmtest.Text("b")},
			func(m llm.ChatModel) llm.ChatModel { return llm.WithFallbackModel(m, "backup") }, "b", []string{"main", "backup"}},
		{"client error: no fallback", []llmtest.Step{llmtest.Fail(apiErr(400))},
			func(m llm.ChatModel) llm.ChatModel { return llm.WithFallbackModel(m, "backup") }, "", []string{"main"}},
		{"two names", []llmtest.Step{llmtest.Fail(apiErr(503)), llmtest.Fail(apiErr(502)), llmtest.Text("c")},
			func(m llm.ChatModel) llm.ChatModel {
				return llm.WithFallbackModel(llm.WithFallbackModel(m, "backup"), "last")
			}, "c", []string{"main", "backup", "last"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				m := llmtest.NewModel(tc.steps...)
				req := userReq("x")
				req.Model = "main"
				var text string
				if stream {
					resp, _ := llm.Collect(tc.build(m).Stream(context.Background(), req), nil)
					text = resp.Message.Content
				} else {
					resp, _ := tc.build(m).Complete(context.Background(), req)
					text = resp.Message.Content
				}
				var models []string
				for _, r := range m.Requests() {
					models = append(models, r.Model)
				}
				if text != tc.wantText || !slices.Equal(models, tc.wantModels) {
					t.Errorf("stream %v: text %q, models %v; want %q, %v", stream, text, models, tc.wantText, tc.wantModels)
				}
			}
		})
	}
}

func collectText(t *testing.T, m llm.ChatModel) (string, error) {
	t.Helper()
	var b strings.Builder
	_, err := llm.Collect(m.Stream(context.Background(), userReq("x")), func(s string) { b.WriteString(s) })
	return b.String(), err
}

func TestFallbackModelStream(t *testing.T) {
	t.Run("fails before any event", func(t *testing.T) {
		m := llm.WithFallback(llmtest.NewModel(llmtest.Fail(apiErr(502))), llmtest.NewModel(llmtest.Step{Response: llmtest.Text("ab").Response, Chunks: []string{"a", "b"}}))
		text, err := collectText(t, m)
		if err != nil || text != "ab" {
			t.Errorf("got %q, %v", text, err)
		}
	})
	t.Run("fails midway", func(t *testing.T) {
		boom := apiErr(502)
		fallback := llmtest.NewModel(llmtest.Text("never"))
		m := llm.WithFallback(llmtest.NewModel(llmtest.Step{Chunks: []string{"Temos "}, Err: boom}), fallback)
		text, err := collectText(t, m)
		if !errors.Is(err, boom) || text != "Temos " || fallback.Calls() != 0 {
			t.Errorf("got %q, %v, fallback calls %d", text, err, fallback.Calls())
		}
	})
	t.Run("both fail", func(t *testing.T) {
		e1, e2 := apiErr(500), apiErr(500)
		_, err := collectText(t, llm.WithFallback(llmtest.NewModel(llmtest.Fail(e1)), llmtest.NewModel(llmtest.Fail(e2))))
		if !errors.Is(err, e1) || !errors.Is(err, e2) {
			t.Errorf("err = %v", err)
		}
	})
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestFallbackMessagesFor(t *testing.T) {
	m := llm.DefaultFallbackMessages()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"empty", fmt.Errorf("x: %w", llm.ErrEmptyAnswer), m.Empty},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), m.Timeout},
		{"net timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, m.Timeout},
		{"429", apiErr(429), m.RateLimit},
		{"503", apiErr(503), m.Unavailable},
		{"transport", &llm.APIError{Retryable: true}, m.Unavailable},
		{"500", apiErr(500), m.Error},
		{"401", apiErr(401), m.Error},
		{"other", errors.New("x"), m.Error},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.For(tt.err); got != tt.want {
				t.Errorf("For(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
	if m.RateLimit != "Estou recebendo muitas mensagens agora. Aguarda um pouquinho?" {
		t.Errorf("seed text changed: %q", m.RateLimit)
	}
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		want   bool
		status int
	}{
		{"nil", nil, false, 0},
		{"429 wrapped", fmt.Errorf("op: %w", apiErr(429)), true, 429},
		{"500", apiErr(500), true, 500},
		{"408", apiErr(408), true, 408},
		{"404", apiErr(404), false, 404},
		{"net timeout", &net.OpError{Op: "dial", Err: timeoutErr{}}, true, 0},
		{"canceled", context.Canceled, false, 0},
		{"plain", errors.New("x"), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable = %v, want %v", got, tt.want)
			}
			if got := apiStatus(tt.err); got != tt.status {
				t.Errorf("status = %d, want %d", got, tt.status)
			}
		})
	}
}

func TestAPIErrorText(t *testing.T) {
	tests := []struct {
		err  *llm.APIError
		want string
	}{
		{&llm.APIError{Provider: "openai", StatusCode: 429, Code: "rate_limit_exceeded", Message: "Rate limit reached"}, "llm: openai API error 429 (rate_limit_exceeded): Rate limit reached"},
		{&llm.APIError{Provider: "openai", Message: "connection refused"}, "llm: openai transport error: connection refused"},
		{&llm.APIError{StatusCode: 500}, "llm: API error 500"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	inner := errors.New("inner")
	if !errors.Is(&llm.APIError{Err: inner}, inner) {
		t.Error("Unwrap")
	}
}

func TestRedactSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Incorrect API key provided: sk-proj-abcDEF123456789xyz. You can find your API key at https://platform.openai.com/account/api-keys.",
			"Incorrect API key provided: [REDACTED]. You can find your API key at https://platform.openai.com/account/api-keys."},
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", "Authorization: Bearer [REDACTED]"},
		{"bad key sk-or-v1-0123456789abcdef", "bad key [REDACTED]"},
		{`{"api_key": "abcdef0123456789"}`, `{"api_key": "[REDACTED]"}`},
		{"Rate limit reached for gpt-4o-mini in organization org-123 on tokens per min", "Rate limit reached for gpt-4o-mini in organization org-123 on tokens per min"},
		{"ask-me-anything", "ask-me-anything"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := llm.RedactSecrets(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
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
