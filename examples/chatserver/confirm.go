package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/actions"
)

// Bounds of the demo's confirmation state.
const (
	// maxPendingConfirmations bounds the confirmations kept waiting for a
	// reply; when full, expired ones go first, then the oldest.
	maxPendingConfirmations = 1000
	// maxQuotesKept bounds the submitted quotes kept in memory (the count
	// goes on).
	maxQuotesKept = 200
	// maxConfirmationIDLen bounds confirmation_id in a request.
	maxConfirmationIDLen = 128
)

// confirmations holds the pending confirmations of agentic turns,
// server-side, by ID (seed 003 §9.5 keeps them in Redis): the client sees
// only the ID, the tool, its arguments and the question, never the
// transcript in PendingConfirmation.Request, and it can send back only
// the ID. Each is used once and dropped at its ExpiresAt. It is safe for
// concurrent use.
type confirmations struct {
	limit int
	now   func() time.Time

	mu sync.Mutex
	m  map[string]*llm.PendingConfirmation
}

func newConfirmations(limit int) *confirmations {
	return &confirmations{limit: limit, now: time.Now, m: map[string]*llm.PendingConfirmation{}}
}

// put keeps p until it expires or is taken; putting the same ID again
// replaces it (a Decide failure returns the same confirmation).
func (c *confirmations) put(p *llm.PendingConfirmation) {
	if p == nil || p.ID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, ok := c.m[p.ID]; !ok && len(c.m) >= c.limit {
		c.sweep(now)
		for len(c.m) >= c.limit {
			c.dropOldest()
		}
	}
	c.m[p.ID] = p
}

// take removes and returns the confirmation id names; nil when it is
// unknown, already used or expired.
func (c *confirmations) take(id string) *llm.PendingConfirmation {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[id]
	if !ok {
		return nil
	}
	delete(c.m, id)
	if expired(p, c.now()) {
		return nil
	}
	return p
}

// pending counts the confirmations waiting, expired ones dropped first.
func (c *confirmations) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(c.now())
	return len(c.m)
}

func (c *confirmations) sweep(now time.Time) {
	for id, p := range c.m {
		if expired(p, now) {
			delete(c.m, id)
		}
	}
}

func (c *confirmations) dropOldest() {
	var oldest string
	var at time.Time
	for id, p := range c.m {
		if oldest == "" || p.CreatedAt.Before(at) || (p.CreatedAt.Equal(at) && id < oldest) {
			oldest, at = id, p.CreatedAt
		}
	}
	delete(c.m, oldest)
}

func expired(p *llm.PendingConfirmation, now time.Time) bool {
	return !p.ExpiresAt.IsZero() && !now.Before(p.ExpiresAt)
}

// confirmationJSON is what a client sees of a pending confirmation: the
// question and the call it asks about. The transcript
// (PendingConfirmation.Request: the system prompt, the conversation) stays
// on the server.
type confirmationJSON struct {
	// ID is sent back as confirmation_id with the user's reply.
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Arguments are the call's arguments as the model wrote them (JSON).
	Arguments json.RawMessage `json:"arguments"`
	// Summary is the question for the user.
	Summary   string    `json:"summary"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// toConfirmation converts a pending confirmation; nil stays nil.
func toConfirmation(p *llm.PendingConfirmation) *confirmationJSON {
	if p == nil {
		return nil
	}
	args := json.RawMessage(p.Call.Arguments)
	if !json.Valid(args) { // the loop validated them; never send broken JSON
		b, _ := json.Marshal(p.Call.Arguments) // a string always marshals
		args = b
	}
	return &confirmationJSON{ID: p.ID, Tool: p.Call.Name, Arguments: args, Summary: p.Summary, ExpiresAt: p.ExpiresAt.UTC()}
}

// quoteBook is the demo's side of the quote request tool
// (actions.NewQuoteTool): it logs each confirmed quote and keeps the last
// maxQuotesKept in memory, where a real program would write to its CRM.
// It is safe for concurrent use.
type quoteBook struct {
	log       *slog.Logger
	submitted atomic.Int64

	mu     sync.Mutex
	quotes []submittedQuote
}

// submittedQuote is one confirmed quote request.
type submittedQuote struct {
	Protocol string
	Quote    actions.Quote
	At       time.Time
}

func newQuoteBook(log *slog.Logger) *quoteBook {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &quoteBook{log: log}
}

// submit records q and returns its protocol, "COT-" and 8 hex digits. The
// log line leaves the contact out (personal data).
func (b *quoteBook) submit(_ context.Context, q actions.Quote) (string, error) {
	var r [4]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails
	protocol := "COT-" + strings.ToUpper(hex.EncodeToString(r[:]))
	b.mu.Lock()
	if len(b.quotes) >= maxQuotesKept {
		b.quotes = append(b.quotes[:0], b.quotes[1:]...)
	}
	b.quotes = append(b.quotes, submittedQuote{Protocol: protocol, Quote: q, At: time.Now()})
	b.mu.Unlock()
	b.submitted.Add(1)
	b.log.Info("quote requested", "protocol", protocol, "product", q.Product, "quantity", q.Quantity, "unit", q.Unit, "city", q.City)
	return protocol, nil
}

// kept returns copies of the quotes kept, oldest first.
func (b *quoteBook) kept() []submittedQuote {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]submittedQuote(nil), b.quotes...)
}

// withQuoteAction returns opts offering the quote request tool, which
// submits to book, besides the searches.
func withQuoteAction(opts rag.AgenticOptions, book *quoteBook) (rag.AgenticOptions, error) {
	quote, err := actions.NewQuoteTool(book.submit, actions.QuoteOptions{Language: opts.Language})
	if err != nil {
		return opts, err
	}
	opts.Actions = append(append([]llm.Tool(nil), opts.Actions...), quote)
	return opts, nil
}

// actionsStats is the actions part of /api/stats.
type actionsStats struct {
	// Tools are the tools with a side effect the agentic mode offers.
	Tools []string `json:"tools"`
	// PendingConfirmations are the confirmations waiting for a reply.
	PendingConfirmations int `json:"pending_confirmations"`
	// QuotesSubmitted counts the confirmed quote requests.
	QuotesSubmitted int64 `json:"quotes_submitted"`
}
