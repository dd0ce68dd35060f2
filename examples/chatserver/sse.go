package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hybridrag/hybridrag/rag"
)

// streamChat runs one chat turn and streams its events as Server-Sent
// Events:
//
//	event: intent      data: {"intent":"catalog","confidence":0.8,...}
//	event: tool_call   data: {"tool":"searchCatalog","query":"..."}   (one per planned search)
//	event: hits        data: {"tool":"searchCatalog","count":5,"sources":[...]}
//	event: token       data: {"token":"Produtos "}                    (many)
//	event: confirm     data: {"id":"pc_…","tool":"requestQuote","arguments":{...},"summary":"Confirma …?","expires_at":"…"}
//	                   (agentic mode: the turn waits for the user; reply with confirmation_id)
//	event: reset       data: {}                                        (discard the tokens so far)
//	event: done        data: the /api/chat JSON response
//	event: error       data: {"error":{"code":"timeout","message":"..."}} (instead of done)
//
// A reset means the answer restarts: the client drops the text of the
// tokens it has shown. The pipeline sends one when the model's stream
// fails part-way, before the fallback text; streamChat sends one before
// an error event that follows tokens, and before done when the tokens
// shown do not add up to the final answer (done.answer then follows as
// one token), so what a client shows is always the answer or nothing.
//
// The store is pinged before the stream starts (when it can be): a store
// that does not answer is a 503 store_unavailable with Retry-After, not
// a stream. A store that fails during the turn, so that every search
// failed, ends the stream with a reset and an error event with code
// store_unavailable (and retry_after).
//
// Each event is flushed as it happens; while nothing happens for
// cfg.Heartbeat a comment line (": keep-alive") keeps proxies from closing
// the connection. The pipeline runs on its own goroutine under the
// request's context: a client that disconnects (or a failed write, or the
// server shutting down) cancels it, and streamChat returns only after the
// pipeline has stopped.
func (s *server) streamChat(w http.ResponseWriter, r *http.Request, turn chatTurn) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ChatTimeout)
	defer cancel()
	stop := context.AfterFunc(s.streams, cancel) // server shutdown
	defer stop()
	if s.pingFails(ctx) {
		s.pending.put(turn.client, turn.req.Confirmation) // nothing ran: the reply may come again
		writeError(w, errStoreUnavailable())
		return
	}

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: rc}
	if err := sw.comment("stream open"); err != nil {
		return
	}

	events := make(chan rag.Event, 64)
	var (
		resp *rag.ChatResponse
		err  error
	)
	go func() {
		defer close(events)
		defer func() {
			// A panic here would kill the process: no recoverer runs on
			// this goroutine. Log it and end the stream with an error.
			if v := recover(); v != nil {
				s.log.Error("panic in chat stream", "panic", v, "stack", string(debug.Stack()))
				resp, err = nil, errPanic
			}
		}()
		resp, err = s.runChat(ctx, turn, func(ev rag.Event) {
			select {
			case events <- ev:
			case <-ctx.Done():
			}
		})
	}()

	heartbeat := time.NewTicker(s.cfg.Heartbeat)
	defer heartbeat.Stop()
	broken := false
	// shown is the answer text the client shows: the tokens since the
	// last reset.
	var shown strings.Builder
	fail := func(werr error) {
		broken = true
		cancel()
		if !isCanceled(werr) && !errors.Is(werr, io.ErrClosedPipe) {
			s.log.Debug("sse: write failed; turn cancelled", "error", werr)
		}
	}
loop:
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				break loop // the pipeline has returned
			}
			if broken || ev.Kind == rag.EventError || ev.Kind == rag.EventDone {
				continue // error and done are written below, with our codes
			}
			switch ev.Kind {
			case rag.EventToken:
				shown.WriteString(ev.Token)
			case rag.EventReset:
				shown.Reset()
			case rag.EventConfirm:
				// Kept before the client sees it, so that it can reply
				// at once (done carries the same confirmation).
				s.pending.put(turn.client, ev.Confirmation)
			}
			if werr := sw.event(ev.Kind, eventData(ev)); werr != nil {
				fail(werr)
			}
			heartbeat.Reset(s.cfg.Heartbeat)
		case <-heartbeat.C:
			if broken {
				continue
			}
			if werr := sw.comment("keep-alive"); werr != nil {
				fail(werr)
			}
		}
	}
	if broken || r.Context().Err() != nil {
		return // nobody is listening
	}
	var e *apiError
	if err != nil {
		e = s.chatError(err)
	} else if s.logTurnErrors(resp); s.turnStoreFailed(ctx, resp) {
		e = errStoreUnavailable()
	}
	if e != nil {
		if shown.Len() > 0 {
			if sw.event(rag.EventReset, struct{}{}) != nil {
				return
			}
		}
		_ = sw.event(rag.EventError, errorBody{Error: e.detail()})
		return
	}
	if strings.TrimSpace(shown.String()) != strings.TrimSpace(resp.Answer) {
		// The tokens do not add up to the answer (a mode that streamed
		// text it then replaced): show the answer instead.
		if sw.event(rag.EventReset, struct{}{}) != nil || sw.event(rag.EventToken, tokenEventJSON{Token: resp.Answer}) != nil {
			return
		}
	}
	_ = sw.event(rag.EventDone, toChatResponse(resp, turn.req.Message, s.be.searcher.Options().Fusion))
}

// errPanic reports a recovered panic of a streamed turn.
var errPanic = errors.New("panic in the chat pipeline")

// eventData is the JSON payload of a progress event.
func eventData(ev rag.Event) any {
	switch ev.Kind {
	case rag.EventIntent:
		if ev.Intent != nil {
			return toIntent(*ev.Intent)
		}
		return intentJSON{}
	case rag.EventToolCall:
		return toolCallEventJSON{Tool: ev.Tool, Query: ev.Query}
	case rag.EventHits:
		return hitsEventJSON{Tool: ev.Tool, Count: len(ev.Sources), Sources: nonNil(ev.Sources)}
	case rag.EventToken:
		return tokenEventJSON{Token: ev.Token}
	case rag.EventReset:
		return struct{}{}
	case rag.EventConfirm:
		if c := toConfirmation(ev.Confirmation); c != nil {
			return c
		}
		return struct{}{}
	}
	return map[string]string{"kind": string(ev.Kind)}
}

// sseWriter writes Server-Sent Events, flushing each and moving the write
// deadline forward so the server's WriteTimeout does not end a long stream.
type sseWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

// event writes "event: kind\ndata: json\n\n". JSON never contains a raw
// newline, so one data line always holds the whole payload.
func (s *sseWriter) event(kind rag.EventKind, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", kind, err)
	}
	return s.write(func() error {
		_, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", kind, b)
		return err
	})
}

// comment writes a comment line, ignored by SSE parsers.
func (s *sseWriter) comment(text string) error {
	return s.write(func() error {
		_, err := fmt.Fprintf(s.w, ": %s\n\n", text)
		return err
	})
}

func (s *sseWriter) write(f func() error) error {
	// Not every ResponseWriter supports deadlines (httptest's does not);
	// the stream still works, bounded by the server's WriteTimeout.
	_ = s.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	if err := f(); err != nil {
		return err
	}
	return s.rc.Flush()
}
