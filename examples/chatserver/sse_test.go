package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag"
)

// blockingAnswerer streams one token, then waits for its context to end
// (or for release) and reports how it ended.
type blockingAnswerer struct {
	started chan struct{}
	ended   chan error
	release chan struct{}
}

func newBlockingAnswerer() *blockingAnswerer {
	return &blockingAnswerer{started: make(chan struct{}), ended: make(chan error, 1), release: make(chan struct{})}
}

func (a *blockingAnswerer) Answer(ctx context.Context, req rag.AnswerRequest) (rag.Answer, error) {
	return a.StreamAnswer(ctx, req, func(string) {})
}

func (a *blockingAnswerer) StreamAnswer(ctx context.Context, _ rag.AnswerRequest, onToken func(string)) (rag.Answer, error) {
	onToken("Um momento")
	close(a.started)
	select {
	case <-ctx.Done():
		a.ended <- ctx.Err()
		return rag.Answer{}, ctx.Err()
	case <-a.release:
		a.ended <- nil
		onToken(", pronto.")
		return rag.Answer{Text: "Um momento, pronto.", Model: "blocking"}, nil
	}
}

func postSSE(t *testing.T, h http.Handler, body string) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, h, "POST", "/api/chat", body, "Accept", "text/event-stream")
}

func TestSSEFraming(t *testing.T) {
	srv := httptest.NewServer(newTestServer(t, nil, nil).routes())
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/api/chat", strings.NewReader(`{"message":"tem fungicida para videira?"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("status %d, headers %v", res.StatusCode, res.Header)
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := parseSSE(t, raw)

	// Order: intent, tool_call+, hits+, token+, done.
	var names []string
	for _, e := range events {
		if len(names) == 0 || names[len(names)-1] != e.Name {
			names = append(names, e.Name)
		}
	}
	if got, want := strings.Join(names, " "), "intent tool_call hits token done"; got != want {
		t.Fatalf("event order (runs collapsed) = %q, want %q", got, want)
	}
	var intent intentJSON
	if err := json.Unmarshal(events[0].Data, &intent); err != nil || intent.Intent != "catalog" {
		t.Errorf("intent event = %s", events[0].Data)
	}
	var tokens strings.Builder
	tools := map[string]bool{}
	for _, e := range events {
		switch e.Name {
		case "tool_call":
			var tc toolCallEventJSON
			if err := json.Unmarshal(e.Data, &tc); err != nil || tc.Tool == "" || tc.Query == "" {
				t.Errorf("tool_call = %s", e.Data)
			}
			tools[tc.Tool] = true
		case "hits":
			var hv hitsEventJSON
			if err := json.Unmarshal(e.Data, &hv); err != nil || !tools[hv.Tool] || hv.Count != len(hv.Sources) {
				t.Errorf("hits = %s (tools called: %v)", e.Data, tools)
			}
		case "token":
			var tk tokenEventJSON
			if err := json.Unmarshal(e.Data, &tk); err != nil || tk.Token == "" {
				t.Errorf("token = %s", e.Data)
			}
			tokens.WriteString(tk.Token)
		}
	}
	var done chatResponse
	if err := json.Unmarshal(events[len(events)-1].Data, &done); err != nil {
		t.Fatal(err)
	}
	if done.Answer == "" || done.Answer != tokens.String() {
		t.Errorf("done.answer %q != streamed tokens %q", done.Answer, tokens.String())
	}
	if len(done.Tools) == 0 || done.Debug.Timings.Total <= 0 {
		t.Errorf("done lacks tools or timings: %+v", done.Debug)
	}
}

func TestSSEDoneAbstained(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	tests := []struct {
		name, message string
		abstained     bool
	}{
		{"out of store", outOfStoreQuestion, true},
		{"in store", "tem fungicida para videira?", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := postSSE(t, h, `{"message":"`+tt.message+`"}`)
			events, _ := parseSSE(t, rec.Body.Bytes())
			if len(events) == 0 || events[len(events)-1].Name != "done" {
				t.Fatalf("stream does not end with done: %s", rec.Body.String())
			}
			last := events[len(events)-1].Data
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(last, &raw); err != nil {
				t.Fatal(err)
			}
			if got := string(raw["abstained"]); got != strconv.FormatBool(tt.abstained) {
				t.Errorf("done.abstained = %s, want %v", got, tt.abstained)
			}
			var done chatResponse
			if err := json.Unmarshal(last, &done); err != nil {
				t.Fatal(err)
			}
			if tt.abstained != (len(done.Citations) == 0) || string(raw["citations"]) == "null" {
				t.Errorf("abstained %v with citations %s", tt.abstained, raw["citations"])
			}
			// The hits events list what may be cited; the answer cites
			// what it quotes of it.
			var hitsSources int
			for _, e := range events {
				if e.Name == "hits" {
					var hv hitsEventJSON
					if err := json.Unmarshal(e.Data, &hv); err != nil {
						t.Fatal(err)
					}
					hitsSources += hv.Count
				}
			}
			if hitsSources < len(done.Citations) || tt.abstained && hitsSources != 0 {
				t.Errorf("hits events carry %d sources, done cites %d", hitsSources, len(done.Citations))
			}
		})
	}
}

func TestSSECancelledByClient(t *testing.T) {
	t.Run("request context", func(t *testing.T) {
		ans := newBlockingAnswerer()
		h := newTestServer(t, nil, withPipeline(t, nil, ans, rag.PipelineOptions{})).routes()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := newRequest(t, "POST", "/api/chat", `{"message":"tem fungicida para videira?"}`).WithContext(ctx)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			serve(h, req)
		}()
		waitFor(t, ans.started, "the answerer to start")
		cancel()
		waitFor(t, returned, "the handler to return")
		select {
		case err := <-ans.ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("answerer ended with %v, want context.Canceled", err)
			}
		default:
			t.Error("the handler returned before the pipeline stopped")
		}
	})

	t.Run("connection closed", func(t *testing.T) {
		ans := newBlockingAnswerer()
		srv := httptest.NewServer(newTestServer(t, nil, withPipeline(t, nil, ans, rag.PipelineOptions{})).routes())
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/chat", strings.NewReader(`{"message":"tem fungicida para videira?"}`))
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Read up to the first token, then hang up.
		br := bufio.NewReader(res.Body)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended before a token: %v", err)
			}
			if strings.HasPrefix(line, "event: token") {
				break
			}
		}
		cancel()
		res.Body.Close()
		select {
		case err := <-ans.ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("answerer ended with %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the pipeline was not cancelled after the client hung up")
		}
	})
}

func TestSSEHeartbeat(t *testing.T) {
	ans := newBlockingAnswerer()
	s := newTestServer(t, func(c *config) { c.Heartbeat = 5 * time.Millisecond }, withPipeline(t, nil, ans, rag.PipelineOptions{}))
	go func() {
		<-ans.started
		time.Sleep(60 * time.Millisecond)
		close(ans.release)
	}()
	rec := postSSE(t, s.routes(), `{"message":"tem fungicida para videira?"}`)
	events, comments := parseSSE(t, rec.Body.Bytes())
	var beats int
	for _, c := range comments {
		if c == "keep-alive" {
			beats++
		}
	}
	if beats == 0 {
		t.Errorf("no keep-alive comment while the answer was slow; comments %q", comments)
	}
	if last := events[len(events)-1]; last.Name != "done" {
		t.Errorf("last event = %s", last.Name)
	}
}

func TestSSEErrors(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		ans := newBlockingAnswerer()
		h := newTestServer(t, func(c *config) { c.ChatTimeout = 50 * time.Millisecond }, withPipeline(t, nil, ans, rag.PipelineOptions{})).routes()
		events, _ := parseSSE(t, postSSE(t, h, `{"message":"tem fungicida para videira?"}`).Body.Bytes())
		last := events[len(events)-1]
		var b errorBody
		if err := json.Unmarshal(last.Data, &b); last.Name != "error" || err != nil || b.Error.Code != codeTimeout {
			t.Errorf("last event %s %s, want error with code timeout", last.Name, last.Data)
		}
		for _, e := range events {
			if e.Name == "done" {
				t.Error("done after a timeout")
			}
		}
	})
	t.Run("timeout without streaming", func(t *testing.T) {
		ans := newBlockingAnswerer()
		h := newTestServer(t, func(c *config) { c.ChatTimeout = 50 * time.Millisecond }, withPipeline(t, nil, ans, rag.PipelineOptions{})).routes()
		wantError(t, do(t, h, "POST", "/api/chat", `{"message":"tem fungicida para videira?"}`), 504, codeTimeout)
	})
	t.Run("server shutdown", func(t *testing.T) {
		ans := newBlockingAnswerer()
		s := newTestServer(t, nil, withPipeline(t, nil, ans, rag.PipelineOptions{}))
		go func() {
			<-ans.started
			s.stopStreams()
		}()
		events, _ := parseSSE(t, postSSE(t, s.routes(), `{"message":"tem fungicida para videira?"}`).Body.Bytes())
		last := events[len(events)-1]
		if last.Name != "error" || !strings.Contains(string(last.Data), codeCanceled) {
			t.Errorf("last event %s %s, want error canceled", last.Name, last.Data)
		}
	})
	t.Run("validation before streaming", func(t *testing.T) {
		h := newTestServer(t, nil, nil).routes()
		wantError(t, postSSE(t, h, `{"message":""}`), 400, codeEmptyMessage)
	})
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestSSEOutlivesServerTimeouts runs a stream longer than the server's
// ReadTimeout and WriteTimeout: the stream must clear the read deadline
// (or the connection's background read times out and cancels the request)
// and move the write deadline forward per event.
func TestSSEOutlivesServerTimeouts(t *testing.T) {
	ans := newBlockingAnswerer()
	s := newTestServer(t, func(c *config) { c.Heartbeat = 20 * time.Millisecond }, withPipeline(t, nil, ans, rag.PipelineOptions{}))
	srv := httptest.NewUnstartedServer(s.routes())
	srv.Config.ReadTimeout = 100 * time.Millisecond
	srv.Config.WriteTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()
	go func() {
		<-ans.started
		time.Sleep(400 * time.Millisecond)
		close(ans.release)
	}()
	req, _ := http.NewRequest("POST", srv.URL+"/api/chat", strings.NewReader(`{"message":"tem fungicida para videira?"}`))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("stream cut: %v\n%s", err, raw)
	}
	events, _ := parseSSE(t, raw)
	if len(events) == 0 || events[len(events)-1].Name != "done" {
		t.Fatalf("stream did not reach done:\n%s", raw)
	}
	if err := <-ans.ended; err != nil {
		t.Errorf("answerer ended with %v", err)
	}
}

// TestChatOutlivesReadTimeout is the same for a JSON chat turn slower than
// ReadTimeout.
func TestChatOutlivesReadTimeout(t *testing.T) {
	ans := newBlockingAnswerer()
	s := newTestServer(t, nil, withPipeline(t, nil, ans, rag.PipelineOptions{}))
	srv := httptest.NewUnstartedServer(s.routes())
	srv.Config.ReadTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()
	go func() {
		<-ans.started
		time.Sleep(300 * time.Millisecond)
		close(ans.release)
	}()
	res, err := srv.Client().Post(srv.URL+"/api/chat", "application/json", strings.NewReader(`{"message":"tem fungicida para videira?"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(body), "pronto") {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
}
