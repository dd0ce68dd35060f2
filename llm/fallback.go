package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
)

// FallbackModel answers with a fallback model when the primary one fails in
// a way another model may not: an outage, a rate limit or a server error of one provider
// or model need not end the user's turn.
// Retries of the same provider belong to the provider's client (openai-go's
// option.WithMaxRetries); FallbackModel runs after those are exhausted.
//
// A FallbackModel is immutable and safe for concurrent use if its models are.
type FallbackModel struct {
	primary, fallback ChatModel
	// fallbackName, when not empty, is the Request.Model of the requests
	// sent to fallback (see WithFallbackModel).
	fallbackName string
}

// WithFallback returns a model that tries primary, then fallback on the
// errors worth trying another model for: those IsRetryable accepts (429,
// 5xx, transport failures), any 5xx status and ErrInvalidResponse. Client
// errors (400, 401, 403, 404) and context errors are returned as they are.
func WithFallback(primary, fallback ChatModel) *FallbackModel {
	return &FallbackModel{primary: primary, fallback: fallback}
}

// WithFallbackModel returns a model that tries model, then model again with
// Request.Model set to name, on the errors WithFallback falls back on: a
// second model name on the same provider, such as a cheaper or older model
// that is up when the first is not (OpenRouter's
// "anthropic/claude-3.5-haiku" after "openai/gpt-4o-mini"). Nest
// calls for more names: WithFallbackModel(WithFallbackModel(m, a), b).
func WithFallbackModel(model ChatModel, name string) *FallbackModel {
	return &FallbackModel{primary: model, fallback: model, fallbackName: name}
}

// fallbackRequest is req as sent to the fallback model.
func (m *FallbackModel) fallbackRequest(req Request) Request {
	if m.fallbackName != "" {
		req.Model = m.fallbackName
	}
	return req
}

// shouldFallback reports errors worth trying another model for (see
// WithFallback).
func shouldFallback(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return IsRetryable(err) || statusCode(err) >= 500 || errors.Is(err, ErrInvalidResponse)
}

func (m *FallbackModel) should(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	return shouldFallback(err)
}

// Complete implements ChatModel. When both models fail, the error wraps both
// errors.
func (m *FallbackModel) Complete(ctx context.Context, req Request) (Response, error) {
	resp, err := m.primary.Complete(ctx, req)
	if err == nil || !m.should(ctx, err) {
		return resp, err
	}
	resp, ferr := m.fallback.Complete(ctx, m.fallbackRequest(req))
	if ferr != nil {
		return Response{}, fmt.Errorf("llm: primary model failed (%w); fallback model failed: %w", err, ferr)
	}
	return resp, nil
}

// Stream implements ChatModel. The fallback takes over only when the primary
// stream fails before yielding any event; after that the error is returned,
// since the caller has already seen part of an answer.
func (m *FallbackModel) Stream(ctx context.Context, req Request) iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		started := false
		for ev, err := range m.primary.Stream(ctx, req) {
			if err == nil {
				started = true
				if !yield(ev, nil) {
					return
				}
				continue
			}
			if started || !m.should(ctx, err) {
				yield(StreamEvent{}, err)
				return
			}
			for fev, ferr := range m.fallback.Stream(ctx, m.fallbackRequest(req)) {
				if ferr != nil {
					ferr = fmt.Errorf("llm: primary model failed (%w); fallback model failed: %w", err, ferr)
				}
				if !yield(fev, ferr) || ferr != nil {
					return
				}
			}
			return
		}
	}
}

// FallbackMessages are the user-facing texts for model failures, one per
// kind of failure so the user knows whether to retry now or later. The
// zero value has no texts; use DefaultFallbackMessages for pt-BR ones.
type FallbackMessages struct {
	// Timeout is for deadlines and network timeouts.
	Timeout string
	// RateLimit is for HTTP 429.
	RateLimit string
	// Unavailable is for 502/503/504 and transport failures.
	Unavailable string
	// Empty is for ErrEmptyAnswer: rather than showing nothing, it asks the
	// user to try again.
	Empty string
	// Error is for everything else.
	Error string
}

// DefaultFallbackMessages returns the default pt-BR messages.
func DefaultFallbackMessages() FallbackMessages {
	return FallbackMessages{
		Timeout:     "Desculpa, estou demorando para responder. Pode tentar novamente?",
		RateLimit:   "Estou recebendo muitas mensagens agora. Aguarda um pouquinho?",
		Unavailable: "Estou temporariamente indisponível. Volto em breve!",
		Empty:       "Desculpe, não consegui gerar uma resposta. Pode tentar novamente?",
		Error:       "Ops, algo deu errado do meu lado. Tenta de novo?",
	}
}

// For returns the message for err ("" for a nil error).
func (m FallbackMessages) For(err error) string {
	if err == nil {
		return ""
	}
	var netErr net.Error
	var apiErr *APIError
	switch {
	case errors.Is(err, ErrEmptyAnswer):
		return m.Empty
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return m.Timeout
	case errors.As(err, &apiErr):
		switch s := apiErr.StatusCode; {
		case s == 429:
			return m.RateLimit
		case s == 0 || s == 502 || s == 503 || s == 504:
			return m.Unavailable
		}
	}
	return m.Error
}
