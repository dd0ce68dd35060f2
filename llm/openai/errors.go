package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/hybridrag/hybridrag/llm"
)

// provider is the APIError.Provider of this adapter.
const provider = "openai"

// mapError translates openai-go errors into hybridrag's:
//
//   - context errors stay matchable with errors.Is;
//   - *openai.Error (an HTTP status) becomes *llm.APIError with the status,
//     code, redacted message and Retryable (408, 409, 429, 5xx). The SDK error
//     is not kept: it holds the request with its credentials;
//   - an error object inside an SSE stream becomes *llm.APIError with status 0;
//   - a transport failure (*url.Error) becomes a retryable *llm.APIError with
//     status 0, without the URL;
//   - undecodable JSON wraps llm.ErrInvalidResponse.
func mapError(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("openai: %s: %w", op, err)
	}
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		return &llm.APIError{
			Provider:   provider,
			StatusCode: apiErr.StatusCode,
			Code:       apiErr.Code,
			Type:       apiErr.Type,
			Message:    llm.RedactSecrets(apiErr.Message),
			Retryable:  llm.RetryableStatus(apiErr.StatusCode),
		}
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		var body struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(streamErr.Event.Data, &body) // best effort; fields stay empty otherwise
		code := ""
		if body.Error.Code != nil {
			code = fmt.Sprint(body.Error.Code)
		}
		return &llm.APIError{
			Provider:  provider,
			Code:      code,
			Type:      body.Error.Type,
			Message:   llm.RedactSecrets(body.Error.Message),
			Retryable: body.Error.Type == "server_error" || code == "rate_limit_exceeded",
		}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return &llm.APIError{
			Provider:  provider,
			Message:   llm.RedactSecrets(urlErr.Err.Error()),
			Retryable: true,
			Err:       urlErr.Err,
		}
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.HasPrefix(err.Error(), "error parsing response json") {
		return fmt.Errorf("openai: %s: %w: %w", op, llm.ErrInvalidResponse, err)
	}
	return fmt.Errorf("openai: %s: %w", op, err)
}
