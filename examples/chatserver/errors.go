package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"
)

// Error codes of the API. They are stable: clients branch on them; the
// messages may change.
const (
	codeInvalidJSON      = "invalid_json"
	codeInvalidField     = "invalid_field"
	codeEmptyMessage     = "empty_message"
	codeMessageTooLong   = "message_too_long"
	codeHistoryTooLong   = "history_too_long"
	codeEmptyQuery       = "empty_query"
	codeQueryTooLong     = "query_too_long"
	codeBodyTooLarge     = "body_too_large"
	codeUnsupportedType  = "unsupported_media_type"
	codeUnauthorized     = "unauthorized"
	codeRateLimited      = "rate_limited"
	codeNotFound         = "not_found"
	codeMethodNotAllowed = "method_not_allowed"
	codeNotConfigured    = "not_configured"
	codeTimeout          = "timeout"
	codeCanceled         = "canceled"
	codeUpstream         = "upstream_error"
	codeStoreUnavailable = "store_unavailable"
	codeInternal         = "internal"
	// The write API's codes.
	codeWritesDisabled = "writes_disabled"
	codeInvalidRecord  = "invalid_record"
	codeDuplicate      = "duplicate_document"
	// The search filters' codes.
	codeInvalidFilter      = "invalid_filter"
	codeMetadataNotAllowed = "metadata_key_not_allowed"
)

// apiError is an error with its HTTP status and stable code.
type apiError struct {
	Status  int
	Code    string
	Message string
	// RetryAfter, when positive, is sent as the Retry-After header.
	RetryAfter time.Duration
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorBody is the JSON of every error response:
// {"error":{"code":"rate_limited","message":"..."}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// RetryAfter repeats the Retry-After header in seconds, for the SSE
	// error event, which comes after the headers.
	RetryAfter int `json:"retry_after,omitempty"`
}

// detail is the JSON of e.
func (e *apiError) detail() errorDetail {
	d := errorDetail{Code: e.Code, Message: e.Message}
	if e.RetryAfter > 0 {
		d.RetryAfter = max(int((e.RetryAfter+time.Second-1)/time.Second), 1)
	}
	return d
}

// writeError writes e as JSON with its status.
func writeError(w http.ResponseWriter, e *apiError) {
	d := e.detail()
	if d.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(d.RetryAfter))
	}
	writeJSON(w, e.Status, errorBody{Error: d})
}

// writeJSON writes v as the JSON response body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"could not encode the response"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// decodeJSON reads the request body (already limited by the body-limit
// middleware) into v: one JSON object, no unknown fields, nothing after it.
// The request must say Content-Type: application/json (415 otherwise): a
// form or text/plain post, which any web page can make a visitor's
// browser send without a CORS preflight, is refused.
func decodeJSON(r *http.Request, v any) *apiError {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errorf(http.StatusUnsupportedMediaType, codeUnsupportedType,
			"send the request body as JSON with Content-Type: application/json")
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			// A body cut at the limit after a complete object is still
			// too large (413), not malformed.
			if tb := (*http.MaxBytesError)(nil); errors.As(terr, &tb) {
				err = terr
			} else {
				err = errors.New("unexpected data after the JSON object")
			}
		}
	}
	if err == nil {
		return nil
	}
	var (
		tooBig  *http.MaxBytesError
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooBig):
		return errorf(http.StatusRequestEntityTooLarge, codeBodyTooLarge, "request body exceeds %d bytes", tooBig.Limit)
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "request body is empty; send a JSON object")
	case errors.As(err, &syntax):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "malformed JSON at byte %d", syntax.Offset)
	case errors.As(err, &typeErr):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "field %q must be %s", typeErr.Field, jsonKind(typeErr.Type))
	}
	// Unknown fields, trailing data, truncated bodies.
	return errorf(http.StatusBadRequest, codeInvalidJSON, "invalid JSON body: %s", err.Error())
}
