package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hybridrag/hybridrag/llm"
)

// Defaults of a zero [HTTPOptions].
const (
	// defaultHTTPTimeout bounds one rerank request.
	defaultHTTPTimeout = 10 * time.Second
	// defaultMaxDocChars caps each document sent, in runes (about 1 000
	// tokens; Cohere and Jina bill and truncate per token).
	defaultMaxDocChars = 4000
	// maxResponseBytes caps the response body read.
	maxResponseBytes = 8 << 20
	// maxErrorBody caps the body kept in an llm.APIError's Message, in bytes.
	maxErrorBody = 512
)

// Flavor selects the wire format and defaults of a rerank server.
type Flavor uint8

const (
	// FlavorCohere is Cohere's rerank API (default base URL
	// https://api.cohere.com, path /v2/rerank; set Path to /v1/rerank for
	// v1). Request {"model","query","documents","top_n"}, response
	// {"results":[{"index","relevance_score"}]}. Scores are in [0, 1].
	FlavorCohere Flavor = iota
	// FlavorJina is Jina AI's rerank API (default base URL
	// https://api.jina.ai, path /v1/rerank), same shapes as Cohere.
	FlavorJina
	// FlavorTEI is Hugging Face text-embeddings-inference (path /rerank;
	// BaseURL required). Request {"query","texts","truncate":true},
	// response [{"index","score"}]. Scores are probabilities unless the
	// server is asked for raw scores.
	FlavorTEI
	// FlavorVLLM is vLLM's Jina/Cohere-compatible rerank endpoint (path
	// /v1/rerank, /rerank and /v2/rerank all work; BaseURL required), same
	// shapes as Cohere. Depending on the model, scores are probabilities
	// or raw logits.
	FlavorVLLM
)

// String returns the flavor's name, which is also the [Method] of its
// scores.
func (f Flavor) String() string {
	switch f {
	case FlavorCohere:
		return string(methodCohere)
	case FlavorJina:
		return string(methodJina)
	case FlavorTEI:
		return string(methodTEI)
	case FlavorVLLM:
		return string(methodVLLM)
	}
	return "Flavor(" + strconv.Itoa(int(f)) + ")"
}

func (f Flavor) defaults() (baseURL, path string) {
	switch f {
	case FlavorCohere:
		return "https://api.cohere.com", "/v2/rerank"
	case FlavorJina:
		return "https://api.jina.ai", "/v1/rerank"
	case FlavorTEI:
		return "", "/rerank"
	default:
		return "", "/v1/rerank"
	}
}

// ScoreMapping says how [HTTP] maps the scores a server returns to
// [0, 1]. Cross-encoders served by TEI (with raw scores) or vLLM may
// return logits, unbounded real numbers; the logistic function
// 1/(1+e^-x) maps them to (0, 1) without changing their order.
type ScoreMapping uint8

const (
	// ScoresAuto keeps the scores of a response when all of them are in
	// [0, 1] and otherwise takes them as logits and maps all of them
	// through the logistic function. The decision is per response, so
	// the order within a response is always kept. This is the default.
	// A response of logits that all happen to lie in [0, 1] is taken as
	// probabilities; use ScoresSigmoid for a server known to return
	// logits.
	ScoresAuto ScoreMapping = iota
	// ScoresSigmoid always maps scores through the logistic function.
	ScoresSigmoid
	// ScoresClamp clamps scores to [0, 1].
	ScoresClamp
)

// String returns the mapping's name.
func (m ScoreMapping) String() string {
	switch m {
	case ScoresAuto:
		return "auto"
	case ScoresSigmoid:
		return "sigmoid"
	case ScoresClamp:
		return "clamp"
	}
	return "ScoreMapping(" + strconv.Itoa(int(m)) + ")"
}

// HTTPOptions configure [NewHTTP]. Only what the flavor needs is
// required: a BaseURL for TEI and vLLM, usually an APIKey and a Model for
// Cohere and Jina.
type HTTPOptions struct {
	// BaseURL is the server root, e.g. "http://localhost:8080"; a path in
	// it is kept and Path is appended. Empty means the flavor's public
	// API for Cohere and Jina and is an error for TEI and vLLM.
	BaseURL string
	// Path is the endpoint path; empty means the flavor's default
	// (/v2/rerank, /v1/rerank, /rerank, /v1/rerank).
	Path string
	// APIKey is sent as "Authorization: Bearer <key>" when not empty. It
	// never appears in error text: a server echoing it back is redacted.
	APIKey string
	// Model is the reranking model, e.g. "rerank-v3.5",
	// "jina-reranker-v2-base-multilingual" or "BAAI/bge-reranker-v2-m3";
	// omitted from the request when empty (TEI serves one model and
	// ignores it).
	Model string
	// Flavor selects the wire format; the zero value is FlavorCohere.
	Flavor Flavor
	// Timeout bounds each request on top of the caller's context; 0 means
	// 10 s and a negative value means no timeout
	// beyond the context and the http.Client.
	Timeout time.Duration
	// MaxDocChars caps each document sent, in runes; 0 means
	// 4 000 and a negative value means no cap.
	MaxDocChars int
	// Scores maps server scores to [0, 1]; the zero value is ScoresAuto.
	Scores ScoreMapping
}

// HTTP is a [Reranker] that calls a Cohere-compatible /rerank API:
// Cohere (v1 and v2), Jina, Hugging Face text-embeddings-inference and
// vLLM, selected by [Flavor].
//
// Each candidate is sent as one document, its Title and Content joined by
// a newline and cut to MaxDocChars runes; all of them are asked for
// (top_n = number of candidates), so the cut to the final results is
// [Apply]'s. Scores are mapped to [0, 1] as [ScoreMapping] says; the
// server's score is kept in Explanation.Raw.
//
// Errors: a non-2xx answer wraps an [*llm.APIError] (Provider the
// flavor, the status, a truncated body as Message, whether a retry may
// succeed, the Retry-After delay); a 2xx answer that is not the expected
// JSON, lacks results, or names an index outside the documents sent (or
// one twice) wraps [ErrInvalidResponse]; a transport failure or the
// context's end is wrapped (errors.Is(err, context.DeadlineExceeded)
// works). HTTP makes one attempt: retrying, or falling back to
// [Keyword], is the caller's decision.
//
// HTTP is immutable and safe for concurrent use.
type HTTP struct {
	client   *http.Client
	endpoint string
	opts     HTTPOptions
}

var _ Reranker = (*HTTP)(nil)

// NewHTTP returns an HTTP reranker. A nil client means
// http.DefaultClient. NewHTTP does no I/O; it returns
// [ErrInvalidOptions] for an unknown flavor or score mapping, a missing
// BaseURL for TEI or vLLM, or a BaseURL that is not an absolute http or
// https URL.
func NewHTTP(client *http.Client, opts HTTPOptions) (*HTTP, error) {
	if opts.Flavor > FlavorVLLM {
		return nil, fmt.Errorf("%w: unknown %v", ErrInvalidOptions, opts.Flavor)
	}
	if opts.Scores > ScoresClamp {
		return nil, fmt.Errorf("%w: unknown %v", ErrInvalidOptions, opts.Scores)
	}
	base, path := opts.Flavor.defaults()
	if opts.BaseURL != "" {
		base = opts.BaseURL
	}
	if opts.Path != "" {
		path = opts.Path
	}
	if base == "" {
		return nil, fmt.Errorf("%w: %v needs a BaseURL", ErrInvalidOptions, opts.Flavor)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: BaseURL %q is not an absolute http(s) URL", ErrInvalidOptions, redactURL(base))
	}
	u = u.JoinPath(path)
	if client == nil {
		client = http.DefaultClient
	}
	if opts.Timeout == 0 {
		opts.Timeout = defaultHTTPTimeout
	}
	if opts.MaxDocChars == 0 {
		opts.MaxDocChars = defaultMaxDocChars
	}
	return &HTTP{client: client, endpoint: u.String(), opts: opts}, nil
}

// endpointURL returns the URL requests are posted to.
func (h *HTTP) endpointURL() string { return h.endpoint }

// flavor returns the server flavor.
func (h *HTTP) flavor() Flavor { return h.opts.Flavor }

func retryable(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		return false
	}
	return status >= 500 && status <= 599
}

// Rerank sends the candidates to the server and returns one result per
// document the server scored, best first, equal scores by index. It
// returns nil without a request when cands is empty and [ErrEmptyQuery]
// for a blank query.
func (h *HTTP) Rerank(ctx context.Context, query string, cands []Candidate) ([]Result, error) {
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmptyQuery
	}
	if len(cands) == 0 {
		return nil, nil
	}
	body, err := h.requestBody(query, cands)
	if err != nil {
		return nil, err
	}
	if h.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.opts.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rerank: %v: %w", h.opts.Flavor, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if h.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.opts.APIKey)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rerank: %v: %w", h.opts.Flavor, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, h.apiError(resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("rerank: %v: reading response: %w", h.opts.Flavor, err)
	}
	if len(data) > maxResponseBytes {
		return nil, fmt.Errorf("%w: %v: body over %d bytes", ErrInvalidResponse, h.opts.Flavor, maxResponseBytes)
	}
	scores, err := h.parse(data, len(cands))
	if err != nil {
		return nil, err
	}
	return h.results(scores, cands), nil
}

type cohereRequest struct {
	Model     string   `json:"model,omitempty"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type teiRequest struct {
	Query    string   `json:"query"`
	Texts    []string `json:"texts"`
	Truncate bool     `json:"truncate"`
}

func (h *HTTP) requestBody(query string, cands []Candidate) ([]byte, error) {
	docs := make([]string, len(cands))
	for i, c := range cands {
		docs[i] = h.document(c)
	}
	var v any
	if h.opts.Flavor == FlavorTEI {
		v = teiRequest{Query: query, Texts: docs, Truncate: true}
	} else {
		v = cohereRequest{Model: h.opts.Model, Query: query, Documents: docs, TopN: len(docs)}
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("rerank: %v: encoding request: %w", h.opts.Flavor, err)
	}
	return body, nil
}

// document is the text sent for c: title and content on separate lines,
// valid UTF-8, cut to MaxDocChars runes.
func (h *HTTP) document(c Candidate) string {
	title, content := strings.TrimSpace(c.Title), strings.TrimSpace(c.Content)
	doc := content
	switch {
	case title != "" && content != "":
		doc = title + "\n" + content
	case title != "":
		doc = title
	}
	doc = strings.ToValidUTF8(doc, "\uFFFD")
	if limit := h.opts.MaxDocChars; limit > 0 && len(doc) > limit {
		n := 0
		for i := range doc {
			if n == limit {
				return doc[:i]
			}
			n++
		}
	}
	return doc
}

// scored is one (index, raw score) pair from a response.
type scored struct {
	index int
	raw   float64
}

type wireResult struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// parse decodes a response body and checks every index against n.
func (h *HTTP) parse(data []byte, n int) ([]scored, error) {
	var items []wireResult
	if h.opts.Flavor == FlavorTEI {
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, fmt.Errorf("%w: %v: %v", ErrInvalidResponse, h.opts.Flavor, err)
		}
	} else {
		var resp struct {
			Results *[]wireResult `json:"results"`
		}
		if err := json.Unmarshal(data, &resp); err != nil {
			return nil, fmt.Errorf("%w: %v: %v", ErrInvalidResponse, h.opts.Flavor, err)
		}
		if resp.Results == nil {
			return nil, fmt.Errorf("%w: %v: no \"results\" field", ErrInvalidResponse, h.opts.Flavor)
		}
		items = *resp.Results
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%w: %v: no results for %d documents", ErrInvalidResponse, h.opts.Flavor, n)
	}
	seen := make([]bool, n)
	out := make([]scored, len(items))
	for i, it := range items {
		score := it.RelevanceScore
		if h.opts.Flavor == FlavorTEI || score == nil {
			score = it.Score
		}
		switch {
		case it.Index == nil:
			return nil, fmt.Errorf("%w: %v: result %d has no index", ErrInvalidResponse, h.opts.Flavor, i)
		case *it.Index < 0 || *it.Index >= n:
			return nil, fmt.Errorf("%w: %v: result %d has index %d, sent %d documents", ErrInvalidResponse, h.opts.Flavor, i, *it.Index, n)
		case seen[*it.Index]:
			return nil, fmt.Errorf("%w: %v: index %d returned twice", ErrInvalidResponse, h.opts.Flavor, *it.Index)
		case score == nil:
			return nil, fmt.Errorf("%w: %v: result %d has no score", ErrInvalidResponse, h.opts.Flavor, i)
		}
		seen[*it.Index] = true
		out[i] = scored{index: *it.Index, raw: *score}
	}
	return out, nil
}

// results maps raw scores to [0, 1] and builds the sorted results.
func (h *HTTP) results(scores []scored, cands []Candidate) []Result {
	sigmoid := h.opts.Scores == ScoresSigmoid
	if h.opts.Scores == ScoresAuto {
		for _, s := range scores {
			if s.raw < 0 || s.raw > 1 {
				sigmoid = true
				break
			}
		}
	}
	method := Method(h.opts.Flavor.String())
	out := make([]Result, len(scores))
	for i, s := range scores {
		score := min(1, max(0, s.raw))
		if sigmoid {
			score = 1 / (1 + math.Exp(-s.raw))
		}
		c := cands[s.index]
		out[i] = Result{
			ID:          c.ID,
			Index:       s.index,
			Score:       score,
			Original:    c.Score,
			Explanation: Explanation{Method: method, Raw: s.raw, Sigmoid: sigmoid},
		}
	}
	sortResults(out)
	return out
}

func (h *HTTP) apiError(resp *http.Response) error {
	// Read enough to see a key that starts inside the kept prefix, redact,
	// then cut on a rune boundary.
	key := h.opts.APIKey
	data, _ := io.ReadAll(io.LimitReader(resp.Body, int64(maxErrorBody+len(key))))
	body := string(data)
	if key != "" {
		body = strings.ReplaceAll(body, key, "[REDACTED]")
	}
	cut := len(body) > maxErrorBody
	if cut {
		body = body[:maxErrorBody]
	}
	body = strings.TrimSpace(strings.ToValidUTF8(body, ""))
	if cut {
		body += "…"
	}
	return fmt.Errorf("rerank: %w", &llm.APIError{
		Provider:   h.opts.Flavor.String(),
		StatusCode: resp.StatusCode,
		Message:    body,
		Retryable:  retryable(resp.StatusCode),
		RetryAfter: retryAfter(resp.Header.Get("Retry-After")),
	})
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// redactURL hides a password in u for error text.
func redactURL(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Redacted()
	}
	return "<unparsable URL>"
}
