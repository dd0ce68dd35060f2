package openai_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
	"github.com/hybridrag/hybridrag/vector"
)

var _ vector.Embedder = (*llmopenai.Embedder)(nil)

func TestEmbed(t *testing.T) {
	// The server answers out of order; the adapter must place by index.
	srv := newFakeServer(t, jsonBody(200, embeddingBody(4, 2, 0, 1)))
	e := llmopenai.NewEmbedder(srv.client(0), llmopenai.EmbedderOptions{Dimensions: 4})
	vecs, err := e.Embed(context.Background(), []string{"fungicida", "adubo foliar", "herbicida"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{0.0, 0.1, 0.2, 0.3}, {1.0, 1.1, 1.2, 1.3}, {2.0, 2.1, 2.2, 2.3}}
	if diff := cmp.Diff(want, vecs); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	if e.Dimensions() != 4 || e.Model() != "text-embedding-3-small" {
		t.Errorf("dims %d model %s", e.Dimensions(), e.Model())
	}
	r := srv.Requests()[0]
	if r.Method != http.MethodPost || r.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("sent %s %s auth %q", r.Method, r.Path, r.Header.Get("Authorization"))
	}
	wantBody := mustJSON(t, `{"model":"text-embedding-3-small","input":["fungicida","adubo foliar","herbicida"],"dimensions":4}`)
	if diff := cmp.Diff(wantBody, any(r.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestEmbedDefaultsAndOptions(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		e := llmopenai.NewEmbedder(newFakeServer(t, jsonBody(200, "{}")).client(0), llmopenai.EmbedderOptions{})
		if e.Dimensions() != 1536 || e.Model() != "text-embedding-3-small" {
			t.Errorf("dims %d model %s", e.Dimensions(), e.Model())
		}
	})
	t.Run("omit dimensions and custom model", func(t *testing.T) {
		srv := newFakeServer(t, jsonBody(200, embeddingBody(3, 0)))
		e := llmopenai.NewEmbedder(srv.client(0), llmopenai.EmbedderOptions{Model: "nomic-embed-text", Dimensions: 3, OmitDimensions: true})
		if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
		body := srv.Requests()[0].Body
		if _, ok := body["dimensions"]; ok || body["model"] != "nomic-embed-text" {
			t.Errorf("body %v", body)
		}
	})
	t.Run("batches", func(t *testing.T) {
		srv := newFakeServer(t, jsonBody(200, embeddingBody(2, 1, 0)), jsonBody(200, embeddingBody(2, 0)))
		e := llmopenai.NewEmbedder(srv.client(0), llmopenai.EmbedderOptions{Dimensions: 2, MaxBatch: 2})
		vecs, err := e.Embed(context.Background(), []string{"a", "b", "c"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([][]float32{{0, 0.1}, {1, 1.1}, {0, 0.1}}, vecs); diff != "" {
			t.Errorf("vectors (-want +got):\n%s", diff)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 || !cmp.Equal(reqs[0].Body["input"], []any{"a", "b"}) || !cmp.Equal(reqs[1].Body["input"], []any{"c"}) {
			t.Errorf("inputs sent: %v", reqs)
		}
	})
	t.Run("empty input", func(t *testing.T) {
		srv := newFakeServer(t, jsonBody(200, "{}"))
		vecs, err := llmopenai.NewEmbedder(srv.client(0), llmopenai.EmbedderOptions{}).Embed(context.Background(), nil)
		if err != nil || len(vecs) != 0 || len(srv.Requests()) != 0 {
			t.Errorf("got %v, %v, %d requests", vecs, err, len(srv.Requests()))
		}
	})
}

func TestEmbedErrors(t *testing.T) {
	tests := []struct {
		name     string
		texts    []string
		response http.HandlerFunc
		wantIs   error
		status   int
		hits     int
	}{
		{"wrong dimension", []string{"a"}, jsonBody(200, embeddingBody(3, 0)), llm.ErrInvalidResponse, 0, 1},
		{"too few vectors", []string{"a", "b"}, jsonBody(200, embeddingBody(4, 0)), llm.ErrInvalidResponse, 0, 1},
		{"duplicate index", []string{"a", "b"}, jsonBody(200, embeddingBody(4, 0, 0)), llm.ErrInvalidResponse, 0, 1},
		{"index out of range", []string{"a"}, jsonBody(200, embeddingBody(4, 5)), llm.ErrInvalidResponse, 0, 1},
		{"malformed JSON", []string{"a"}, jsonBody(200, `{"object":"list","data":[{"embedding":[0.1,`), llm.ErrInvalidResponse, 0, 1},
		{"blank text", []string{"a", "  "}, jsonBody(200, embeddingBody(4, 0, 1)), llm.ErrInvalidRequest, 0, 0},
		{"429 retried", []string{"a"}, jsonBody(429, errRateLimit, "Retry-After-Ms", "0"), nil, 429, 2},
		{"400", []string{"a"}, jsonBody(400, `{"error":{"message":"This model does not support specifying dimensions.","type":"invalid_request_error","param":null,"code":null}}`), nil, 400, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.response)
			_, err := llmopenai.NewEmbedder(srv.client(1), llmopenai.EmbedderOptions{Dimensions: 4}).Embed(context.Background(), tt.texts)
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, want %v", err, tt.wantIs)
			}
			if tt.status != 0 && apiStatus(err) != tt.status {
				t.Errorf("err = %v, want status %d", err, tt.status)
			}
			if got := len(srv.Requests()); got != tt.hits {
				t.Errorf("%d requests, want %d", got, tt.hits)
			}
		})
	}
}

func TestEmbedContextDeadline(t *testing.T) {
	srv := newFakeServer(t, stall())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := llmopenai.NewEmbedder(srv.client(2), llmopenai.EmbedderOptions{}).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("err = %v after %s", err, time.Since(start))
	}
}
