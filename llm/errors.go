package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors. Callers branch on them with errors.Is; the concrete errors
// returned by this package and by adapters wrap them with more detail.
var (
	// ErrMaxIterations reports that the tool loop ran out of iterations while
	// the model still asked for tools. The concrete error is a
	// *MaxIterationsExceededError.
	ErrMaxIterations = errors.New("llm: max tool loop iterations exceeded")

	// ErrEmptyAnswer reports a final model answer with no text and no tool
	// calls. FallbackMessages.For answers it with the Empty text
	// (DefaultFallbackMessages().Empty by default).
	ErrEmptyAnswer = errors.New("llm: model returned an empty answer")

	// ErrInvalidRequest reports a Request that cannot be sent (no messages, a
	// tool message without a tool call ID, a forced tool that is not offered,
	// ...). Nothing was sent to the provider.
	ErrInvalidRequest = errors.New("llm: invalid request")

	// ErrInvalidResponse reports a provider answer that could not be used:
	// malformed JSON, no choices, a stream that ended before it finished,
	// an embedding of the wrong dimension.
	ErrInvalidResponse = errors.New("llm: invalid response from provider")

	// ErrInvalidTool reports a tool definition that cannot be offered to a
	// model: bad or duplicate name, a JSON schema that does not compile (or,
	// for NewTypedTool, an argument type without one), an input example
	// that does not satisfy the schema, a nil handler.
	ErrInvalidTool = errors.New("llm: invalid tool definition")

	// ErrInvalidSchema reports a JSON schema that cannot be compiled: not a
	// JSON object or boolean, a wrongly typed keyword, an unresolvable or
	// remote $ref or $schema, a $ref cycle; or a Go type
	// SchemaFor cannot describe. ValidateTools, NewTypedTool, CompleteJSON and
	// SchemaFor return it.
	ErrInvalidSchema = errors.New("llm: invalid or unsupported JSON schema")

	// ErrInvalidArguments reports tool arguments that do not satisfy the
	// tool's JSON schema. The concrete error is a *ValidationError.
	ErrInvalidArguments = errors.New("llm: invalid tool arguments")

	// ErrInvalidOutput reports structured output (CompleteJSON) that is not
	// valid JSON or does not satisfy the requested schema.
	ErrInvalidOutput = errors.New("llm: model output does not match the schema")

	// ErrConfirmationExpired reports a PendingConfirmation resumed after its
	// ExpiresAt.
	ErrConfirmationExpired = errors.New("llm: pending confirmation expired")
)

// APIError is a failure reported by a model provider (an HTTP status, a
// provider error object in a stream) or a transport failure on the way to it
// (StatusCode 0). Adapters return it wrapped with %w; get it with errors.As.
// The HTTP reranker of rag/rerank reports a server's non-2xx answer with it
// too (Provider the rerank flavor, e.g. "cohere").
//
// Message is the provider's message with anything that looks like an API key
// or bearer token redacted; request URLs and headers are never included.
type APIError struct {
	// Provider names the adapter, e.g. "openai".
	Provider string
	// StatusCode is the HTTP status, or 0 when no HTTP response was received
	// (connection refused, reset, DNS) or the error arrived inside a stream.
	StatusCode int
	// Code is the provider's machine-readable code, e.g.
	// "rate_limit_exceeded" or "invalid_api_key"; may be empty.
	Code string
	// Type is the provider's error type, e.g. "server_error"; may be empty.
	Type string
	// Message is the provider's human-readable message, secrets redacted.
	Message string
	// Retryable reports whether repeating the same request later may succeed:
	// true for 408, 409, 429, 5xx and transport failures, false for other
	// 4xx (bad request, authentication, permission, not found).
	Retryable bool
	// RetryAfter is the server's Retry-After delay, 0 when absent or not
	// read by the adapter.
	RetryAfter time.Duration
	// Err is the underlying error (the SDK's error value); may be nil.
	Err error
}

// Error implements error. It includes the provider, status, code and the
// redacted message.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteByte(' ')
	}
	if e.StatusCode > 0 {
		b.WriteString("API error ")
		b.WriteString(strconv.Itoa(e.StatusCode))
	} else {
		b.WriteString("transport error")
	}
	if e.Code != "" {
		b.WriteString(" (")
		b.WriteString(e.Code)
		b.WriteByte(')')
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }

// Transient reports Retryable, so that vector.IsRetryable and
// vector.WithRetry see a provider error as retryable or not
// (vector.TransientError).
func (e *APIError) Transient() bool { return e.Retryable }

// RetryDelay returns RetryAfter, so that vector.WithRetry waits at least
// that long before the next attempt.
func (e *APIError) RetryDelay() time.Duration { return e.RetryAfter }

// RetryableStatus reports whether an HTTP status is worth retrying: 408, 409,
// 429 and every 5xx. Adapters use it to fill APIError.Retryable.
func RetryableStatus(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// IsRetryable reports whether err is a transient provider failure: an
// *APIError with Retryable set, or a network timeout. Context cancellation and
// deadline errors are not retryable (the caller's context is done).
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Retryable
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// statusCode returns the HTTP status of the *APIError in err's chain, or 0.
func statusCode(err error) int {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// MaxIterationsExceededError is returned by RunTools and ResumeConfirmation
// when the model still asks for tools after MaxIterations model calls. It
// matches ErrMaxIterations with errors.Is. The tool calls of the last turn are
// not executed.
type MaxIterationsExceededError struct {
	// MaxIterations is the limit that was reached.
	MaxIterations int
	// Pending are the tool calls the model asked for in its last turn.
	Pending []ToolCall
}

// Error implements error.
func (e *MaxIterationsExceededError) Error() string {
	return fmt.Sprintf("llm: max tool loop iterations (%d) exceeded", e.MaxIterations)
}

// Unwrap returns ErrMaxIterations.
func (e *MaxIterationsExceededError) Unwrap() error { return ErrMaxIterations }

// secretPattern matches API keys and bearer tokens as they appear in provider
// messages ("Incorrect API key provided: sk-proj-abc...").
var secretPattern = regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(sk|rk|pk|sess|or)-[A-Za-z0-9_*-]{6,}|\b(api[_-]?key|token|secret)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._*~+/=-]{8,}`)

// RedactSecrets replaces anything in s that looks like an API key or bearer
// token with "[REDACTED]". Adapters apply it to provider messages before
// putting them in an error.
func RedactSecrets(s string) string {
	return secretPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretPattern.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			return sub[1] + "[REDACTED]"
		case sub[3] != "":
			return sub[3] + sub[4] + "[REDACTED]"
		default:
			return "[REDACTED]"
		}
	})
}
