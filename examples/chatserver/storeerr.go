package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
)

// storeRetryAfter is the Retry-After of a store_unavailable answer.
const storeRetryAfter = 5 * time.Second

// errStoreUnavailable is the answer when the store cannot be reached. Its
// text names no host, database or user: those go to the log only.
func errStoreUnavailable() *apiError {
	e := errorf(http.StatusServiceUnavailable, codeStoreUnavailable, "the store is unavailable; retry later")
	e.RetryAfter = storeRetryAfter
	return e
}

// isConnectionError reports a store error that means the store cannot be
// reached, as opposed to a bad query: a failed connect, a network error,
// a connection closed under a query, or a PostgreSQL error of class 08
// (connection exception), 57P01-57P03 (shutdown, cannot connect now) or
// 53300 (too many connections). Context errors are not.
func isConnectionError(err error) bool {
	if err == nil || isCanceled(err) {
		return false
	}
	var (
		connErr *pgconn.ConnectError
		netErr  net.Error
		pgErr   *pgconn.PgError
	)
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr):
		return true
	case errors.As(err, &pgErr):
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	return pgconn.SafeToRetry(err)
}

// storeDown reports whether err (a failed search) comes from a store that
// cannot be reached: a connection error, or any other error while the
// store does not answer a ping.
func (s *server) storeDown(ctx context.Context, err error) bool {
	if isConnectionError(err) {
		return true
	}
	return s.pingFails(ctx)
}

// pingFails pings the store (false when there is nothing to ping, as for
// the memory store).
func (s *server) pingFails(ctx context.Context) bool {
	if s.be.ping == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healthTimeout)
	defer cancel()
	if err := s.be.ping(ctx); err != nil {
		s.log.Warn("store unavailable: ping failed", "error", err)
		return true
	}
	return false
}

// searchTools are the tool names of the searches, each with the text
// debug.errors shows for its failure.
var searchTools = map[string]string{
	rag.ToolSearchFAQs:      "FAQ search failed",
	rag.ToolSearchCatalog:   "catalog search failed",
	rag.ToolSearchDocuments: "document search failed",
}

// turnStoreFailed reports whether every search of a turn failed because
// the store is down: each planned search (or, in an agentic turn, each
// search the model called) failed, and the store does not answer a ping.
// A turn that searched nothing never did.
func (s *server) turnStoreFailed(ctx context.Context, resp *rag.ChatResponse) bool {
	if resp == nil {
		return false
	}
	d := &resp.Debug
	failed := map[string]bool{}
	for _, e := range d.Errors {
		if tool, _, ok := strings.Cut(e, ": "); ok {
			if _, search := searchTools[tool]; search {
				failed[tool] = true
			}
		}
	}
	searched := 0
	if len(d.ToolCalls) > 0 { // agentic: the calls the model made
		for _, c := range d.ToolCalls {
			if _, search := searchTools[c.Name]; !search || c.Status == llm.ToolInvalidArguments || c.Status == llm.ToolUnknown {
				continue
			}
			searched++
			if c.Error == "" {
				return false
			}
		}
	} else {
		for tool, planned := range map[string]bool{rag.ToolSearchFAQs: d.Plan.FAQ, rag.ToolSearchCatalog: d.Plan.Catalog, rag.ToolSearchDocuments: d.Plan.Documents} {
			if !planned {
				continue
			}
			searched++
			if !failed[tool] {
				return false
			}
		}
	}
	return searched > 0 && s.pingFails(ctx)
}

// logTurnErrors logs the non-fatal errors of a turn, in full: the client
// sees them sanitized (sanitizeDebugError).
func (s *server) logTurnErrors(resp *rag.ChatResponse) {
	if resp == nil {
		return
	}
	d := &resp.Debug
	for _, e := range d.Errors {
		s.log.Warn("chat: step failed", "error", e)
	}
	for _, c := range d.ModelCalls {
		if c.Error != "" {
			s.log.Warn("chat: model call failed", "step", c.Step, "model", c.Model, "error", c.Error)
		}
	}
	for _, c := range d.ToolCalls {
		if c.Error != "" {
			s.log.Warn("chat: tool call failed", "tool", c.Name, "error", c.Error)
		}
	}
}

// sanitizeDebugError turns one of rag.Debug.Errors ("searchCatalog: rag:
// lexical search: postgres: …") into a fixed text naming the failed step
// only: store and model errors carry host names, users, database names,
// URLs and SQL.
func sanitizeDebugError(e string) string {
	step, _, _ := strings.Cut(e, ": ")
	if msg, ok := searchTools[step]; ok {
		return msg
	}
	switch step {
	case "summary":
		return "history summary failed"
	case "classify":
		return "classification failed; every search ran"
	case "answer":
		return "the answer failed; the fallback message was sent"
	case "confirmation":
		return "the pending confirmation was not used (unknown, used or expired, or the reply could not be read)"
	}
	return "a step of the turn failed"
}
