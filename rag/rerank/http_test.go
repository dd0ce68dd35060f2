package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/llm"
)

const testKey = "sk-test-0123456789abcdef"

// captured is what a fake server received.
type captured struct {
	method, path, auth, contentType string
	body                            map[string]any
}

// fakeServer answers every request with status and body and records it.
func fakeServer(t *testing.T, status int, body string, header http.Header) (*httptest.Server, *captured) {
	t.Helper()
	got := &captured{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path = r.Method, r.URL.Path
		got.auth, got.contentType = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &got.body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, data)
		}
		for k, vs := range header {
			w.Header()[k] = vs
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func mustHTTP(t *testing.T, opts HTTPOptions) *HTTP {
	t.Helper()
	h, err := NewHTTP(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var httpCands = []Candidate{
	{ID: "a", Title: "Fungicida Cúprico", Content: "Para videira.", Score: 0.9},
	{ID: "b", Title: "", Content: "Adubo foliar.", Score: 0.8},
	{ID: "c", Title: "Herbicida", Content: "", Score: 0.7},
}

func TestHTTPFlavors(t *testing.T) {
	cohereBody := `{"id":"x","results":[{"index":2,"relevance_score":0.1},{"index":0,"relevance_score":0.93},{"index":1,"relevance_score":0.4}],"meta":{}}`
	docs := []any{"Fungicida Cúprico\nPara videira.", "Adubo foliar.", "Herbicida"}
	cohereReq := func(model string) map[string]any {
		m := map[string]any{"query": "fungicida videira", "documents": docs, "top_n": float64(3)}
		if model != "" {
			m["model"] = model
		}
		return m
	}
	tests := []struct {
		name     string
		opts     HTTPOptions
		resp     string
		wantPath string
		wantBody map[string]any
		wantIDs  []string
		want     []float64 // scores in result order
		sigmoid  bool
	}{
		{
			name:     "cohere v2 default path",
			opts:     HTTPOptions{Flavor: FlavorCohere, Model: "rerank-v3.5", APIKey: testKey},
			resp:     cohereBody,
			wantPath: "/v2/rerank",
			wantBody: cohereReq("rerank-v3.5"),
			wantIDs:  []string{"a", "b", "c"},
			want:     []float64{0.93, 0.4, 0.1},
		},
		{
			name:     "cohere v1 path",
			opts:     HTTPOptions{Flavor: FlavorCohere, Path: "/v1/rerank", Model: "rerank-multilingual-v3.0", APIKey: testKey},
			resp:     cohereBody,
			wantPath: "/v1/rerank",
			wantBody: cohereReq("rerank-multilingual-v3.0"),
			wantIDs:  []string{"a", "b", "c"},
			want:     []float64{0.93, 0.4, 0.1},
		},
		{
			name:     "jina",
			opts:     HTTPOptions{Flavor: FlavorJina, Model: "jina-reranker-v2-base-multilingual", APIKey: testKey},
			resp:     `{"model":"jina-reranker-v2-base-multilingual","usage":{"total_tokens":9},"results":[{"index":1,"document":{"text":"Adubo foliar."},"relevance_score":0.7},{"index":0,"relevance_score":0.2}]}`,
			wantPath: "/v1/rerank",
			wantBody: cohereReq("jina-reranker-v2-base-multilingual"),
			wantIDs:  []string{"b", "a"},
			want:     []float64{0.7, 0.2},
		},
		{
			name:     "tei probabilities",
			opts:     HTTPOptions{Flavor: FlavorTEI},
			resp:     `[{"index":1,"score":0.98},{"index":0,"score":0.5},{"index":2,"score":0.01}]`,
			wantPath: "/rerank",
			wantBody: map[string]any{"query": "fungicida videira", "texts": docs, "truncate": true},
			wantIDs:  []string{"b", "a", "c"},
			want:     []float64{0.98, 0.5, 0.01},
		},
		{
			name:     "tei raw logits go through the sigmoid",
			opts:     HTTPOptions{Flavor: FlavorTEI, APIKey: testKey},
			resp:     `[{"index":0,"score":3.2},{"index":2,"score":0.5},{"index":1,"score":-4}]`,
			wantPath: "/rerank",
			wantBody: map[string]any{"query": "fungicida videira", "texts": docs, "truncate": true},
			wantIDs:  []string{"a", "c", "b"},
			want:     []float64{sigmoid(3.2), sigmoid(0.5), sigmoid(-4)},
			sigmoid:  true,
		},
		{
			name:     "vllm /v1/rerank",
			opts:     HTTPOptions{Flavor: FlavorVLLM, Model: "BAAI/bge-reranker-v2-m3"},
			resp:     `{"id":"rerank-1","model":"BAAI/bge-reranker-v2-m3","usage":{"total_tokens":20},"results":[{"index":0,"document":{"text":"x"},"relevance_score":0.99},{"index":2,"relevance_score":0.99},{"index":1,"relevance_score":0.0001}]}`,
			wantPath: "/v1/rerank",
			wantBody: cohereReq("BAAI/bge-reranker-v2-m3"),
			wantIDs:  []string{"a", "c", "b"}, // tie at 0.99 broken by index
			want:     []float64{0.99, 0.99, 0.0001},
		},
		{
			name:     "vllm /rerank with logits",
			opts:     HTTPOptions{Flavor: FlavorVLLM, Path: "/rerank"},
			resp:     `{"results":[{"index":0,"relevance_score":-1.5},{"index":1,"relevance_score":2}]}`,
			wantPath: "/rerank",
			wantBody: cohereReq(""),
			wantIDs:  []string{"b", "a"},
			want:     []float64{sigmoid(2), sigmoid(-1.5)},
			sigmoid:  true,
		},
		{
			name:     "forced sigmoid",
			opts:     HTTPOptions{Flavor: FlavorVLLM, Scores: ScoresSigmoid},
			resp:     `{"results":[{"index":0,"relevance_score":0.5},{"index":1,"relevance_score":0}]}`,
			wantPath: "/v1/rerank",
			wantBody: cohereReq(""),
			wantIDs:  []string{"a", "b"},
			want:     []float64{sigmoid(0.5), 0.5},
			sigmoid:  true,
		},
		{
			name:     "clamp",
			opts:     HTTPOptions{Flavor: FlavorVLLM, Scores: ScoresClamp},
			resp:     `{"results":[{"index":0,"relevance_score":1.5},{"index":1,"relevance_score":-2}]}`,
			wantPath: "/v1/rerank",
			wantBody: cohereReq(""),
			wantIDs:  []string{"a", "b"},
			want:     []float64{1, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, got := fakeServer(t, http.StatusOK, tt.resp, nil)
			tt.opts.BaseURL = srv.URL
			h := mustHTTP(t, tt.opts)
			res, err := h.Rerank(context.Background(), "fungicida videira", httpCands)
			if err != nil {
				t.Fatal(err)
			}
			if got.method != http.MethodPost || got.path != tt.wantPath {
				t.Errorf("request = %s %s, want POST %s", got.method, got.path, tt.wantPath)
			}
			wantAuth := ""
			if tt.opts.APIKey != "" {
				wantAuth = "Bearer " + testKey
			}
			if got.auth != wantAuth {
				t.Errorf("Authorization = %q, want %q", got.auth, wantAuth)
			}
			if got.contentType != "application/json" {
				t.Errorf("Content-Type = %q", got.contentType)
			}
			if !reflect.DeepEqual(got.body, tt.wantBody) {
				t.Errorf("body = %v\nwant   %v", got.body, tt.wantBody)
			}
			if !reflect.DeepEqual(ids(res), tt.wantIDs) {
				t.Fatalf("ids = %v, want %v", ids(res), tt.wantIDs)
			}
			for i, r := range res {
				if !approx(r.Score, tt.want[i]) {
					t.Errorf("%s: score = %v, want %v", r.ID, r.Score, tt.want[i])
				}
				if r.Explanation.Method != Method(tt.opts.Flavor.String()) || r.Explanation.Sigmoid != tt.sigmoid {
					t.Errorf("%s: explanation = %+v", r.ID, r.Explanation)
				}
				if c := httpCands[r.Index]; c.ID != r.ID || c.Score != r.Original {
					t.Errorf("result %+v does not match candidate %+v", r, c)
				}
			}
		})
	}
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func TestHTTPBaseURLWithPath(t *testing.T) {
	srv, got := fakeServer(t, http.StatusOK, `{"results":[{"index":0,"relevance_score":0.5}]}`, nil)
	h := mustHTTP(t, HTTPOptions{Flavor: FlavorVLLM, BaseURL: srv.URL + "/proxy/"})
	if want := srv.URL + "/proxy/v1/rerank"; h.endpointURL() != want {
		t.Errorf("Endpoint() = %q, want %q", h.endpointURL(), want)
	}
	if _, err := h.Rerank(context.Background(), "q", httpCands[:1]); err != nil {
		t.Fatal(err)
	}
	if got.path != "/proxy/v1/rerank" {
		t.Errorf("path = %q", got.path)
	}
}

func TestHTTPMaxDocChars(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		cand  Candidate
		want  string
	}{
		{"cut on runes", 6, Candidate{Title: "Açúcar", Content: "cana"}, "Açúcar"},
		{"title and content joined", 100, Candidate{Title: " T ", Content: " c "}, "T\nc"},
		{"default cap", 0, Candidate{Content: strings.Repeat("é", 5000)}, strings.Repeat("é", defaultMaxDocChars)},
		{"no cap", -1, Candidate{Content: strings.Repeat("a", 5000)}, strings.Repeat("a", 5000)},
		{"invalid UTF-8 repaired", 100, Candidate{Content: "a\xffb"}, "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, got := fakeServer(t, http.StatusOK, `[{"index":0,"score":0.5}]`, nil)
			h := mustHTTP(t, HTTPOptions{Flavor: FlavorTEI, BaseURL: srv.URL, MaxDocChars: tt.limit})
			if _, err := h.Rerank(context.Background(), "q", []Candidate{tt.cand}); err != nil {
				t.Fatal(err)
			}
			texts, _ := got.body["texts"].([]any)
			if len(texts) != 1 || texts[0] != tt.want {
				t.Errorf("texts = %q, want [%q]", texts, tt.want)
			}
		})
	}
}

func TestHTTPAPIErrors(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		body       string
		header     http.Header
		retryable  bool
		retryAfter time.Duration
	}{
		{"429 with Retry-After", http.StatusTooManyRequests, `{"message":"rate limited"}`, http.Header{"Retry-After": {"3"}}, true, 3 * time.Second},
		{"500", http.StatusInternalServerError, `{"message":"internal"}`, nil, true, 0},
		{"503", http.StatusServiceUnavailable, "overloaded", nil, true, 0},
		{"400 not retryable", http.StatusBadRequest, `{"message":"invalid request: too many documents"}`, nil, false, 0},
		{"401 echoing the key", http.StatusUnauthorized, `{"message":"invalid api token ` + testKey + `"}`, nil, false, 0},
		{"501 not retryable", http.StatusNotImplemented, "", nil, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := fakeServer(t, tt.status, tt.body, tt.header)
			h := mustHTTP(t, HTTPOptions{Flavor: FlavorJina, BaseURL: srv.URL, APIKey: testKey})
			res, err := h.Rerank(context.Background(), "q", httpCands)
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || res != nil {
				t.Fatalf("Rerank = %v, %v; want *llm.APIError", res, err)
			}
			if apiErr.StatusCode != tt.status || apiErr.Retryable != tt.retryable || apiErr.RetryAfter != tt.retryAfter || apiErr.Provider != "jina" {
				t.Errorf("APIError = %+v", apiErr)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(apiErr.Message, testKey) {
				t.Errorf("API key leaked: %v", err)
			}
			if tt.body != "" && !strings.Contains(err.Error(), strings.ReplaceAll(tt.body, testKey, "[REDACTED]")) {
				t.Errorf("error %q does not carry the body", err)
			}
		})
	}
}

func TestHTTPAPIErrorBodyTruncated(t *testing.T) {
	// The key straddles the 512-byte cut: it must be redacted, not cut.
	body := strings.Repeat("x", maxErrorBody-5) + testKey + strings.Repeat("y", 2000)
	srv, _ := fakeServer(t, http.StatusBadGateway, body, nil)
	h := mustHTTP(t, HTTPOptions{Flavor: FlavorCohere, BaseURL: srv.URL, APIKey: testKey})
	_, err := h.Rerank(context.Background(), "q", httpCands)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v", err)
	}
	if len(apiErr.Message) > maxErrorBody+len("…") || !strings.HasSuffix(apiErr.Message, "…") {
		t.Errorf("body of %d bytes not truncated: %q", len(apiErr.Message), apiErr.Message[len(apiErr.Message)-20:])
	}
	if strings.Contains(err.Error(), testKey[:8]) {
		t.Errorf("key prefix leaked: %q", apiErr.Message[len(apiErr.Message)-20:])
	}
}

func TestHTTPInvalidResponses(t *testing.T) {
	tests := []struct {
		name   string
		flavor Flavor
		body   string
	}{
		{"not JSON", FlavorCohere, `<html>gateway</html>`},
		{"truncated JSON", FlavorCohere, `{"results":[{"index":0,`},
		{"no results field", FlavorJina, `{"data":[]}`},
		{"empty results", FlavorVLLM, `{"results":[]}`},
		{"index out of range", FlavorCohere, `{"results":[{"index":3,"relevance_score":0.9}]}`},
		{"negative index", FlavorVLLM, `{"results":[{"index":-1,"relevance_score":0.9}]}`},
		{"repeated index", FlavorJina, `{"results":[{"index":1,"relevance_score":0.9},{"index":1,"relevance_score":0.8}]}`},
		{"missing index", FlavorCohere, `{"results":[{"relevance_score":0.9}]}`},
		{"missing score", FlavorCohere, `{"results":[{"index":0}]}`},
		{"string score", FlavorCohere, `{"results":[{"index":0,"relevance_score":"high"}]}`},
		{"tei object instead of array", FlavorTEI, `{"results":[{"index":0,"score":0.9}]}`},
		{"tei index out of range", FlavorTEI, `[{"index":0,"score":0.9},{"index":7,"score":0.1}]`},
		{"tei missing score", FlavorTEI, `[{"index":0,"relevance":0.9}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := fakeServer(t, http.StatusOK, tt.body, nil)
			h := mustHTTP(t, HTTPOptions{Flavor: tt.flavor, BaseURL: srv.URL})
			res, err := h.Rerank(context.Background(), "q", httpCands)
			if !errors.Is(err, ErrInvalidResponse) || res != nil {
				t.Fatalf("Rerank = %v, %v; want ErrInvalidResponse", res, err)
			}
		})
	}
}

func TestHTTPFewerResultsThanDocuments(t *testing.T) {
	// A server may apply its own top-n; missing candidates are absent.
	srv, _ := fakeServer(t, http.StatusOK, `{"results":[{"index":2,"relevance_score":0.8}]}`, nil)
	h := mustHTTP(t, HTTPOptions{Flavor: FlavorCohere, BaseURL: srv.URL})
	res, err := h.Rerank(context.Background(), "q", httpCands)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].ID != "c" || res[0].Index != 2 {
		t.Errorf("results = %+v", res)
	}
}

// slowServer blocks each request until the client gives up or the test
// ends, and counts requests.
func slowServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv, &n
}

func TestHTTPDeadlines(t *testing.T) {
	t.Run("context deadline", func(t *testing.T) {
		srv, _ := slowServer(t)
		h := mustHTTP(t, HTTPOptions{Flavor: FlavorTEI, BaseURL: srv.URL, Timeout: -1})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := h.Rerank(ctx, "q", httpCands)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("option timeout", func(t *testing.T) {
		srv, _ := slowServer(t)
		h := mustHTTP(t, HTTPOptions{Flavor: FlavorVLLM, BaseURL: srv.URL, Timeout: 50 * time.Millisecond})
		_, err := h.Rerank(context.Background(), "q", httpCands)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("canceled before the call", func(t *testing.T) {
		srv, n := slowServer(t)
		h := mustHTTP(t, HTTPOptions{Flavor: FlavorVLLM, BaseURL: srv.URL})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := h.Rerank(ctx, "q", httpCands)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if n.Load() != 0 {
			t.Errorf("server got %d requests", n.Load())
		}
	})
}

func TestHTTPNoRequest(t *testing.T) {
	srv, n := slowServer(t)
	h := mustHTTP(t, HTTPOptions{Flavor: FlavorCohere, BaseURL: srv.URL})
	t.Run("blank query", func(t *testing.T) {
		if _, err := h.Rerank(context.Background(), "  ", httpCands); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("err = %v, want ErrEmptyQuery", err)
		}
	})
	t.Run("no candidates", func(t *testing.T) {
		if res, err := h.Rerank(context.Background(), "q", nil); res != nil || err != nil {
			t.Errorf("Rerank = %v, %v", res, err)
		}
	})
	if n.Load() != 0 {
		t.Errorf("server got %d requests", n.Load())
	}
}

func TestHTTPTransportErrorHidesKey(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // connection refused from now on
	h := mustHTTP(t, HTTPOptions{Flavor: FlavorCohere, BaseURL: url, APIKey: testKey})
	_, err := h.Rerank(context.Background(), "q", httpCands)
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
	var apiErr *llm.APIError
	if errors.As(err, &apiErr) {
		t.Errorf("transport error reported as API error: %v", err)
	}
}

func TestNewHTTP(t *testing.T) {
	tests := []struct {
		name     string
		opts     HTTPOptions
		endpoint string
		wantErr  bool
	}{
		{"cohere default", HTTPOptions{}, "https://api.cohere.com/v2/rerank", false},
		{"jina default", HTTPOptions{Flavor: FlavorJina}, "https://api.jina.ai/v1/rerank", false},
		{"tei", HTTPOptions{Flavor: FlavorTEI, BaseURL: "http://tei:8080"}, "http://tei:8080/rerank", false},
		{"vllm custom path", HTTPOptions{Flavor: FlavorVLLM, BaseURL: "http://vllm:8000", Path: "v2/rerank"}, "http://vllm:8000/v2/rerank", false},
		{"tei without base URL", HTTPOptions{Flavor: FlavorTEI}, "", true},
		{"vllm without base URL", HTTPOptions{Flavor: FlavorVLLM}, "", true},
		{"relative base URL", HTTPOptions{BaseURL: "localhost:8080"}, "", true},
		{"ftp base URL", HTTPOptions{BaseURL: "ftp://host"}, "", true},
		{"unparsable base URL", HTTPOptions{BaseURL: "http://[::1"}, "", true},
		{"unknown flavor", HTTPOptions{Flavor: 42, BaseURL: "http://x"}, "", true},
		{"unknown score mapping", HTTPOptions{Scores: 9}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHTTP(nil, tt.opts)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidOptions) || h != nil {
					t.Errorf("NewHTTP = %v, %v; want ErrInvalidOptions", h, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.endpointURL() != tt.endpoint || h.flavor() != tt.opts.Flavor {
				t.Errorf("Endpoint() = %q, Flavor() = %v; want %q", h.endpointURL(), h.flavor(), tt.endpoint)
			}
		})
	}
}

func TestNewHTTPErrorHidesPassword(t *testing.T) {
	_, err := NewHTTP(nil, HTTPOptions{BaseURL: "ftp://user:hunter2@host"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v", err)
	}
}

func TestApplyWithHTTP(t *testing.T) {
	// Apply over the HTTP client: TopN limits the documents sent, the
	// cut uses the mapped scores, and an API error is passed through.
	srv, got := fakeServer(t, http.StatusOK, `{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.3}]}`, nil)
	h := mustHTTP(t, HTTPOptions{Flavor: FlavorCohere, BaseURL: srv.URL})
	res, err := Apply(context.Background(), h, "q", httpCands, Options{TopN: 2})
	if err != nil {
		t.Fatal(err)
	}
	if docs, _ := got.body["documents"].([]any); len(docs) != 2 || got.body["top_n"] != float64(2) {
		t.Errorf("sent %v", got.body)
	}
	if len(res) != 1 || res[0].ID != "b" {
		t.Errorf("results = %+v, want only b above 0.5", res)
	}

	errSrv, _ := fakeServer(t, http.StatusTooManyRequests, `{"message":"slow down"}`, nil)
	h = mustHTTP(t, HTTPOptions{Flavor: FlavorCohere, BaseURL: errSrv.URL})
	_, err = Apply(context.Background(), h, "q", httpCands, Options{})
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || !apiErr.Retryable {
		t.Errorf("err = %v, want a retryable *llm.APIError", err)
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want time.Duration
	}{
		{"empty", "", 0},
		{"seconds", "120", 2 * time.Minute},
		{"negative", "-3", 0},
		{"garbage", "soon", 0},
		{"past date", "Wed, 21 Oct 2015 07:28:00 GMT", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.in); got != tt.want {
				t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	if got := retryAfter(future); got < 58*time.Minute || got > time.Hour {
		t.Errorf("retryAfter(future date) = %v", got)
	}
}

func TestStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{FlavorCohere.String(), "cohere"},
		{FlavorJina.String(), "jina"},
		{FlavorTEI.String(), "tei"},
		{FlavorVLLM.String(), "vllm"},
		{Flavor(9).String(), "Flavor(9)"},
		{ScoresAuto.String(), "auto"},
		{ScoresSigmoid.String(), "sigmoid"},
		{ScoresClamp.String(), "clamp"},
		{ScoreMapping(7).String(), "ScoreMapping(7)"},
		{ScaleMinMax.String(), "min-max"},
		{ScaleUnit.String(), "unit"},
		{OriginalScale(5).String(), "OriginalScale(5)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHTTPUsesGivenClient(t *testing.T) {
	var calls int
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		if r.URL.String() != "https://api.jina.ai/v1/rerank" {
			t.Errorf("URL = %s", r.URL)
		}
		return &http.Response{
			StatusCode: http.StatusOK,
			Header:     http.Header{"Content-Type": {"application/json"}},
			Body:       io.NopCloser(strings.NewReader(`{"results":[{"index":0,"relevance_score":0.6}]}`)),
			Request:    r,
		}, nil
	})}
	h, err := NewHTTP(client, HTTPOptions{Flavor: FlavorJina, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Rerank(context.Background(), "q", httpCands[:1])
	if err != nil || len(res) != 1 || calls != 1 {
		t.Fatalf("Rerank = %v, %v after %d calls", res, err, calls)
	}
}

func TestHTTPResponseTooLarge(t *testing.T) {
	big := `{"results":[{"index":0,"relevance_score":0.5}],"pad":"` + strings.Repeat("x", maxResponseBytes) + `"}`
	srv, _ := fakeServer(t, http.StatusOK, big, nil)
	h := mustHTTP(t, HTTPOptions{Flavor: FlavorCohere, BaseURL: srv.URL})
	if _, err := h.Rerank(context.Background(), "q", httpCands[:1]); !errors.Is(err, ErrInvalidResponse) {
		t.Errorf("err = %v, want ErrInvalidResponse", err)
	}
}
