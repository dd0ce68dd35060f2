package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/offline"
)

// testdataDir is the repository's testdata, seen from this package.
var testdataDir = filepath.Join("..", "..", "testdata")

var (
	sharedOnce sync.Once
	sharedBE   *backend
	sharedErr  error
)

// testConfig is the default configuration with the rate limit off (tests
// that need it turn it on).
func testConfig(t *testing.T) config {
	t.Helper()
	cfg, err := parseConfig([]string{"-testdata", testdataDir}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Rate = 0
	return cfg
}

// sharedBackend is the offline backend over testdata, built once.
func sharedBackend(t *testing.T) *backend {
	t.Helper()
	sharedOnce.Do(func() {
		cfg, err := parseConfig([]string{"-testdata", testdataDir}, func(string) string { return "" }, io.Discard)
		if err != nil {
			sharedErr = err
			return
		}
		sharedBE, sharedErr = openBackend(context.Background(), cfg, slog.New(slog.DiscardHandler))
	})
	if sharedErr != nil {
		t.Fatalf("open backend: %v", sharedErr)
	}
	return sharedBE
}

// newTestServer returns a server over the shared backend; edit changes the
// configuration, swap the backend copy (e.g. its pipeline).
func newTestServer(t *testing.T, edit func(*config), swap func(*backend)) *server {
	t.Helper()
	cfg := testConfig(t)
	if edit != nil {
		edit(&cfg)
	}
	be := *sharedBackend(t)
	if swap != nil {
		swap(&be)
	}
	s := newServerWith(cfg, nil, &be)
	t.Cleanup(s.stopStreams)
	return s
}

// withPipeline returns a swap that replaces the pipeline with one using
// classifier c and answerer a (nil: the offline ones).
func withPipeline(t *testing.T, c rag.Classifier, a rag.Answerer, opts rag.PipelineOptions) func(*backend) {
	return func(be *backend) {
		if c == nil {
			c = offline.KeywordClassifier{}
		}
		if a == nil {
			a = offline.ExtractiveAnswerer{}
		}
		p, err := rag.NewPipeline(be.searcher, c, a, opts)
		if err != nil {
			t.Fatal(err)
		}
		be.pipeline = p
	}
}

// newRequest builds a test request with a JSON content type.
func newRequest(t *testing.T, method, path, body string) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// serve records h's response to r.
func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// do sends a request to h and returns the recorded response.
func do(t *testing.T, h http.Handler, method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := newRequest(t, method, path, body)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return serve(h, req)
}

// decode unmarshals a JSON response body.
func decode[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, rec.Body.String())
	}
	return v
}

// wantError checks an error response's status and code.
func wantError(t *testing.T, rec *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	if rec.Code != status {
		t.Errorf("status = %d, want %d; body %s", rec.Code, status, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want JSON", ct)
	}
	var b errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatalf("error body is not JSON: %v\n%s", err, rec.Body.String())
	}
	if b.Error.Code != code || b.Error.Message == "" {
		t.Errorf("error = %+v, want code %q with a message", b.Error, code)
	}
}

// wantMethodNotAllowed checks the ServeMux's answer to a method the path
// has no route for: 405 with the methods it has in Allow, in the API's
// JSON error shape under /api/.
func wantMethodNotAllowed(t *testing.T, rec *httptest.ResponseRecorder, path, allow string) {
	t.Helper()
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != allow {
		t.Errorf("status %d, Allow %q; want 405 with Allow %q (body %s)", rec.Code, rec.Header().Get("Allow"), allow, rec.Body.String())
	}
	if strings.HasPrefix(path, "/api/") {
		wantError(t, rec, http.StatusMethodNotAllowed, codeMethodNotAllowed)
	}
}

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	Name string
	Data json.RawMessage
}

// parseSSE parses a whole event stream strictly: every block is comments
// only, or exactly one "event:" line and one "data:" line holding valid
// JSON.
func parseSSE(t *testing.T, stream []byte) (events []sseEvent, comments []string) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		var ev sseEvent
		var names, datas int
		for _, l := range cur {
			switch {
			case strings.HasPrefix(l, ":"):
				comments = append(comments, strings.TrimSpace(l[1:]))
			case strings.HasPrefix(l, "event: "):
				ev.Name = strings.TrimPrefix(l, "event: ")
				names++
			case strings.HasPrefix(l, "data: "):
				ev.Data = json.RawMessage(strings.TrimPrefix(l, "data: "))
				datas++
			default:
				t.Errorf("malformed SSE line %q", l)
			}
		}
		switch {
		case names == 0 && datas == 0:
		case names != 1 || datas != 1:
			t.Errorf("SSE block %q: want one event and one data line", cur)
		case !json.Valid(ev.Data):
			t.Errorf("SSE %s data is not JSON: %s", ev.Name, ev.Data)
		default:
			events = append(events, ev)
		}
		cur = nil
	}
	for sc.Scan() {
		if l := sc.Text(); l == "" {
			flush()
		} else {
			cur = append(cur, l)
		}
	}
	if len(cur) > 0 {
		t.Errorf("stream ends without a blank line after %q", cur)
	}
	return events, comments
}
