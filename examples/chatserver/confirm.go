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

	"github.com/hybridrag/hybridrag/internal/actions"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
)

// Bounds of the demo's confirmation state.
const (
	// maxPendingConfirmations bounds the confirmations kept waiting for a
	// reply; when full, expired ones go first, then the oldest of the
	// client holding the most.
	maxPendingConfirmations = 1000
	// maxPendingPerClient bounds the confirmations one client (one
	// rate-limit key: an IPv4 address or an IPv6 /64) keeps waiting; past
	// it the client's own oldest goes, never another client's.
	maxPendingPerClient = 10
	// maxQuotesKept bounds the submitted quotes kept in memory (the count
	// goes on).
	maxQuotesKept = 200
	// maxConfirmationIDLen bounds confirmation_id in a request.
	maxConfirmationIDLen = 128
)

// confirmations holds the pending confirmations of agentic turns,
// server-side, by ID, in memory (a server with replicas would keep them in
// a shared store such as Redis): the client sees
// only the ID, the tool, its arguments and the question, never the
// transcript in PendingConfirmation.Request, and it can send back only
// the ID. Each is used once and dropped at its ExpiresAt.
//
// Each is bound to the client it was given to (its rate-limit key,
// clientKey): only that client can use it, another client naming the ID
// starts a new turn and leaves it pending. And each client has its own
// quota (perClient): one client flooding agentic turns drops its own
// oldest confirmations, not another user's. It is safe for concurrent
// use.
type confirmations struct {
	limit, perClient int
	now              func() time.Time

	mu sync.Mutex
	m  map[string]pendingEntry
	// count is the number of confirmations of each client.
	count map[string]int
}

// pendingEntry is a confirmation and the client it was given to.
type pendingEntry struct {
	p      *llm.PendingConfirmation
	client string
}

func newConfirmations(limit, perClient int) *confirmations {
	return &confirmations{limit: limit, perClient: perClient, now: time.Now,
		m: map[string]pendingEntry{}, count: map[string]int{}}
}

// put keeps p for client until it expires or is taken; putting the same
// ID again replaces it (a Decide failure returns the same confirmation).
// A client at its quota loses its oldest confirmation; when the table is
// full, expired confirmations go, then the oldest of the client holding
// the most.
func (c *confirmations) put(client string, p *llm.PendingConfirmation) {
	if p == nil || p.ID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[p.ID]; ok {
		c.remove(p.ID, old)
	}
	now := c.now()
	if c.count[client] >= c.perClient {
		c.sweep(now)
		for c.count[client] > 0 && c.count[client] >= c.perClient {
			c.dropOldest(client)
		}
	}
	if len(c.m) >= c.limit {
		c.sweep(now)
		for len(c.m) > 0 && len(c.m) >= c.limit {
			c.dropOldest(c.heaviest())
		}
	}
	c.m[p.ID] = pendingEntry{p: p, client: client}
	c.count[client]++
}

// take removes and returns the confirmation id names for client; nil when
// it is unknown, already used, expired, or another client's (which stays
// pending for its own client).
func (c *confirmations) take(client, id string) *llm.PendingConfirmation {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || e.client != client {
		return nil
	}
	c.remove(id, e)
	if expired(e.p, c.now()) {
		return nil
	}
	return e.p
}

// pending counts the confirmations waiting, expired ones dropped first.
func (c *confirmations) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(c.now())
	return len(c.m)
}

// remove deletes the entry e of id. c.mu is held.
func (c *confirmations) remove(id string, e pendingEntry) {
	delete(c.m, id)
	if c.count[e.client]--; c.count[e.client] <= 0 {
		delete(c.count, e.client)
	}
}

func (c *confirmations) sweep(now time.Time) {
	for id, e := range c.m {
		if expired(e.p, now) {
			c.remove(id, e)
		}
	}
}

// heaviest is the client holding the most confirmations (ties: the
// smallest key, so that the choice is deterministic).
func (c *confirmations) heaviest() string {
	var who string
	most := 0
	for client, n := range c.count {
		if n > most || (n == most && client < who) {
			who, most = client, n
		}
	}
	return who
}

// dropOldest drops client's oldest confirmation.
func (c *confirmations) dropOldest(client string) {
	var oldest string
	var at time.Time
	for id, e := range c.m {
		if e.client != client {
			continue
		}
		if oldest == "" || e.p.CreatedAt.Before(at) || (e.p.CreatedAt.Equal(at) && id < oldest) {
			oldest, at = id, e.p.CreatedAt
		}
	}
	if oldest == "" { // cannot happen: count said client has one
		delete(c.count, client)
		return
	}
	c.remove(oldest, c.m[oldest])
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
// submits to book, besides the searches. The server chats in pt-BR, the
// tool's default language.
func withQuoteAction(opts rag.AgentOptions, book *quoteBook) (rag.AgentOptions, error) {
	quote, err := actions.NewQuoteTool(book.submit, actions.QuoteOptions{})
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
