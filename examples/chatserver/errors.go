package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Error codes of the API. They are stable: clients branch on them; the
// messages may change.
const (
	codeInvalidJSON      = "invalid_json"
	codeInvalidEncoding  = "invalid_encoding"
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
	codeLimitExceeded  = "limit_exceeded"
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
//
// The encoding is decided on the raw bytes, before decoding (the JSON
// decoder would replace each invalid byte with U+FFFD, silently): a body
// declaring charset=iso-8859-1, latin1 or windows-1252 is transcoded to
// UTF-8 (bodyText); any other body must be UTF-8, else 400
// invalid_encoding naming the offset of the first invalid byte; another
// declared charset is 415 unsupported_media_type.
func decodeJSON(r *http.Request, v any) *apiError {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return errorf(http.StatusUnsupportedMediaType, codeUnsupportedType,
			"send the request body as JSON with Content-Type: application/json")
	}
	raw, err := io.ReadAll(r.Body)
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		return errorf(http.StatusRequestEntityTooLarge, codeBodyTooLarge, "request body exceeds %d bytes", tooBig.Limit)
	} else if err != nil {
		return errorf(http.StatusBadRequest, codeInvalidJSON, "the request body could not be read")
	}
	body, e := bodyText(params["charset"], raw)
	if e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("unexpected data after the JSON object")
		}
	}
	if err == nil {
		return nil
	}
	var (
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "request body is empty; send a JSON object")
	case errors.As(err, &syntax):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "malformed JSON at byte %d", syntax.Offset)
	case errors.As(err, &typeErr) && typeErr.Field == "":
		// The body itself has the wrong type ("[]", "5").
		return errorf(http.StatusBadRequest, codeInvalidJSON, "request body must be a JSON object, not %s", typeErr.Value)
	case errors.As(err, &typeErr):
		return errorf(http.StatusBadRequest, codeInvalidJSON, "field %q must be %s", typeErr.Field, jsonKind(typeErr.Type))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(http.StatusBadRequest, codeInvalidJSON, "request body ends before its JSON object does")
	}
	// Unknown fields and trailing data, in the decoder's words without
	// its package prefix ("unknown field \"mesage\"").
	return errorf(http.StatusBadRequest, codeInvalidJSON, "invalid JSON body: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// latin1Charsets are the charset names of a body transcoded to UTF-8 as
// Windows-1252, as browsers decode all of them (ISO-8859-1 differs only
// in 0x80-0x9F, control characters there, printable ones in
// Windows-1252: "€", curly quotes, "…").
var latin1Charsets = map[string]bool{
	"iso-8859-1": true, "iso8859-1": true, "iso_8859-1": true, "latin1": true, "latin-1": true, "l1": true,
	"windows-1252": true, "cp1252": true,
}

// bodyText returns the request body raw as UTF-8: transcoded from the
// declared charset, or checked when it declares UTF-8 or nothing.
func bodyText(charset string, raw []byte) ([]byte, *apiError) {
	switch cs := strings.ToLower(strings.TrimSpace(charset)); {
	case cs == "" || cs == "utf-8" || cs == "utf8" || cs == "us-ascii": // ASCII is UTF-8
		if i := invalidUTF8At(raw); i >= 0 {
			return nil, errorf(http.StatusBadRequest, codeInvalidEncoding,
				"the body is not valid UTF-8 at byte %d (0x%02x); send UTF-8, or declare the charset (Content-Type: application/json; charset=iso-8859-1)", i, raw[i])
		}
		return raw, nil
	case latin1Charsets[cs]:
		out, err := charmap.Windows1252.NewDecoder().Bytes(raw)
		if err != nil { // cannot happen: every byte maps to a rune
			return nil, errorf(http.StatusBadRequest, codeInvalidEncoding, "the body is not valid %s", cs)
		}
		return out, nil
	default:
		return nil, errorf(http.StatusUnsupportedMediaType, codeUnsupportedType,
			"charset %q is not supported: send UTF-8, or declare iso-8859-1 or windows-1252", truncateForMessage(charset, 40))
	}
}

// invalidUTF8At is the offset of the first byte of b that is not part of
// valid UTF-8, or -1.
func invalidUTF8At(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// truncateForMessage cuts s to max bytes of valid UTF-8 for an error
// message.
func truncateForMessage(s string, max int) string {
	if len(s) > max {
		s = s[:max]
	}
	return strings.ToValidUTF8(s, "")
}
