package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"unicode"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// The write API: PUT creates or replaces one record, DELETE removes it,
// both through the backend's ingest.Indexer, so that a record's chunks
// always follow its text: changed text is re-chunked and re-embedded (only
// the chunks whose text changed), unchanged text is neither embedded nor
// written again, and a deleted record's chunks go with it. Writing a record
// with the store's raw Apply (records alone) would keep the
// chunks of its old text: the vector leg would still find the old words.
//
// Writes need a bearer token: without -token or CHAT_TOKEN they are 403
// writes_disabled, so that an open demo cannot be written to. The writes
// of one record are serialized (server.writeLocks; a document's also with
// those of the same content, so that two concurrent PUTs of one text
// cannot both pass the duplicate check), writes of different records run
// concurrently, and after each one the Searcher's derived
// state (vocabularies, calibration samples) is refreshed, so the next
// search sees the change; the query-embedding cache holds query vectors
// only and stays valid.

// itemWrite is the body of PUT /api/items/{id}: the catalog record of
// testdata/catalog.jsonl without its ID (which the path gives).
type itemWrite struct {
	writeHeader
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Category     string            `json:"category"`
	Manufacturer string            `json:"manufacturer"`
	Tags         []string          `json:"tags"`
	Price        *float64          `json:"price"`
	Metadata     map[string]string `json:"metadata"`
	// Files are the texts attached to the item (labels, leaflets).
	Files []fileWrite `json:"files"`
}

// writeHeader holds the fields every write body has.
type writeHeader struct {
	// ID is optional; when given it must equal the path's.
	ID string `json:"id"`
	// Status is active (default) or inactive (ativo/inativo too).
	Status string `json:"status"`
}

func (h *writeHeader) header() *writeHeader { return h }

// writeBody is a write request body (itemWrite, faqWrite, documentWrite).
type writeBody interface{ header() *writeHeader }

// decodeWrite decodes a write body for the record id of the path and
// parses its status; on a bad body it writes the error and reports false.
func decodeWrite(w http.ResponseWriter, r *http.Request, id string, b writeBody) (storage.Status, bool) {
	if e := decodeJSON(r, b); e != nil {
		writeError(w, e)
		return "", false
	}
	h := b.header()
	if e := bodyID(h.ID, id); e != nil {
		writeError(w, e)
		return "", false
	}
	st, e := parseStatus(h.Status)
	if e != nil {
		writeError(w, e)
		return "", false
	}
	return st, true
}

// fileWrite is one attached file of an item.
type fileWrite struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// faqWrite is the body of PUT /api/faqs/{id}.
type faqWrite struct {
	writeHeader
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Category string   `json:"category"`
	Keywords []string `json:"keywords"`
	Priority int      `json:"priority"`
}

// documentWrite is the body of PUT /api/documents/{id}.
type documentWrite struct {
	writeHeader
	Title string `json:"title"`
	// Content is the document's text; with Format "markdown" its headings
	// make the sections the structural chunker keeps.
	Content string `json:"content"`
	// Source says where the document comes from (a file, a URL); default
	// "api".
	Source   string            `json:"source"`
	Metadata map[string]string `json:"metadata"`
	// Format is text (default) or markdown.
	Format string `json:"format"`
}

// writeResponse is the body of a successful PUT.
type writeResponse struct {
	// Kind is item, faq or document.
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Created is true when no record had the ID (status 201), false when
	// one was replaced (200).
	Created bool `json:"created"`
	// Index says what the Indexer did.
	Index writeIndexJSON `json:"index"`
}

// writeIndexJSON is the ingest.Stats of one write.
type writeIndexJSON struct {
	// Chunks is the number of chunks of the record; Embedded those whose
	// text was embedded now, Skipped those whose stored vector was kept.
	Chunks   int `json:"chunks"`
	Embedded int `json:"embedded"`
	Skipped  int `json:"skipped"`
	// Unchanged reports a record equal to the stored one: nothing was
	// embedded or written.
	Unchanged  bool    `json:"unchanged"`
	DurationMS float64 `json:"duration_ms"`
}

// deleteResponse is the body of a successful DELETE.
type deleteResponse struct {
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// Document formats of documentWrite.Format.
const (
	formatText     = "text"
	formatMarkdown = "markdown"
)

// defaultDocumentSource is the Source of a document written without one.
const defaultDocumentSource = "api"

// writeAPI serves PUT and DELETE /api/{items,faqs,documents}/{id...}: PUT
// through put, DELETE removing the record of kind.
func (s *server) writeAPI(kind storage.OwnerKind, put func(w http.ResponseWriter, r *http.Request, id string)) http.Handler {
	return s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !storage.ValidID(id) || strings.TrimSpace(id) != id {
			writeError(w, errorf(http.StatusBadRequest, codeInvalidField,
				"the path must end with the record ID (at most %d bytes of text, no surrounding space, no control or bidirectional formatting character)", storage.MaxIDLength))
			return
		}
		s.writes.Add(1)
		if r.Method == http.MethodDelete {
			s.deleteRecord(w, r, kind, id)
			return
		}
		put(w, r, id)
	})
}

// putItem answers PUT /api/items/{id}.
func (s *server) putItem(w http.ResponseWriter, r *http.Request, id string) {
	var b itemWrite
	st, ok := decodeWrite(w, r, id, &b)
	if !ok {
		return
	}
	it := storage.CatalogItem{ID: id, Name: strings.TrimSpace(b.Name), Description: b.Description, Category: strings.TrimSpace(b.Category),
		Manufacturer: strings.TrimSpace(b.Manufacturer), Tags: trimAll(b.Tags), Price: b.Price, Status: st, Metadata: b.Metadata}
	if blank(it.Name) {
		writeError(w, errorf(http.StatusBadRequest, codeInvalidRecord, "name is required"))
		return
	}
	for i, f := range b.Files {
		name := strings.TrimSpace(f.Name)
		if blank(name) || blank(f.Text) {
			writeError(w, errorf(http.StatusBadRequest, codeInvalidRecord, "files[%d] needs a name and a text", i))
			return
		}
		it.Files = append(it.Files, storage.CatalogFile{ItemID: id, Name: name, Text: f.Text})
	}
	if e := s.validateBatch(&storage.Batch{Items: []storage.CatalogItem{it}}); e != nil {
		writeError(w, e)
		return
	}
	s.putRecord(w, r, storage.OwnerRef{Kind: storage.KindItem, ID: id}, func(ctx context.Context) (ingest.Stats, error) {
		return s.be.indexer.IndexItems(ctx, []storage.CatalogItem{it})
	})
}

// putFAQ answers PUT /api/faqs/{id}.
func (s *server) putFAQ(w http.ResponseWriter, r *http.Request, id string) {
	var b faqWrite
	st, ok := decodeWrite(w, r, id, &b)
	if !ok {
		return
	}
	f := storage.FAQ{ID: id, Question: strings.TrimSpace(b.Question), Answer: strings.TrimSpace(b.Answer),
		Category: strings.TrimSpace(b.Category), Keywords: trimAll(b.Keywords), Priority: b.Priority, Status: st}
	if blank(f.Question) || blank(f.Answer) {
		writeError(w, errorf(http.StatusBadRequest, codeInvalidRecord, "question and answer are required"))
		return
	}
	if e := s.validateBatch(&storage.Batch{FAQs: []storage.FAQ{f}}); e != nil {
		writeError(w, e)
		return
	}
	s.putRecord(w, r, storage.OwnerRef{Kind: storage.KindFAQ, ID: id}, func(ctx context.Context) (ingest.Stats, error) {
		return s.be.indexer.IndexFAQs(ctx, []storage.FAQ{f})
	})
}

// putDocument answers PUT /api/documents/{id}. The content is cleaned
// like a loaded file (rag/load.ParseDocument); Markdown headings become
// the sections of the structural chunker. A document with the content of
// another stored document is 409 duplicate_document.
func (s *server) putDocument(w http.ResponseWriter, r *http.Request, id string) {
	var b documentWrite
	st, ok := decodeWrite(w, r, id, &b)
	if !ok {
		return
	}
	var name string
	switch strings.ToLower(strings.TrimSpace(b.Format)) {
	case "", formatText:
		name = "api.txt"
	case formatMarkdown, "md":
		name = "api.md"
	default:
		writeError(w, errorf(http.StatusBadRequest, codeInvalidField, "format must be text or markdown"))
		return
	}
	if blank(b.Content) {
		writeError(w, errorf(http.StatusBadRequest, codeInvalidRecord, "content is required (some text besides white space and control characters)"))
		return
	}
	d, err := load.ParseDocument(name, []byte(b.Content), nil)
	if err != nil {
		writeError(w, errorf(http.StatusBadRequest, codeInvalidRecord, "content: %s", recordReason(err)))
		return
	}
	d.ID, d.File, d.Status, d.ContentHash = id, "", st, ""
	d.Source = strings.TrimSpace(b.Source)
	if d.Source == "" {
		d.Source = defaultDocumentSource
	}
	if t := strings.TrimSpace(b.Title); t != "" {
		d.Title = t
	} else if name == "api.txt" || d.Title == "api" {
		d.Title = id
	}
	for k, v := range b.Metadata {
		d.Metadata[k] = v
	}
	if e := s.validateBatch(&storage.Batch{Documents: []storage.Document{d.Document}}); e != nil {
		writeError(w, e)
		return
	}
	s.putRecord(w, r, storage.OwnerRef{Kind: storage.KindDocument, ID: id}, func(ctx context.Context) (ingest.Stats, error) {
		st, err := s.be.indexer.IndexDocuments(ctx, []load.ParsedDocument{d})
		if err == nil && len(st.Duplicates) > 0 {
			err = st.Duplicates[0]
		}
		return st, err
	}, documentContentKey(d.Content))
}

// documentContentKey is the lock key of a document's content: two
// documents of one text written at once are serialized, so the second
// sees the first and is 409 duplicate_document.
func documentContentKey(content string) string {
	return recordKey("document-content", storage.ContentHash(content))
}

// putRecord runs index under the record's write lock (and the locks of
// the extra keys) and answers: 201 for a new record, 200 for a replaced
// one, with what the Indexer did.
func (s *server) putRecord(w http.ResponseWriter, r *http.Request, owner storage.OwnerRef, index func(context.Context) (ingest.Stats, error), extra ...string) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ChatTimeout)
	defer cancel()
	unlock, err := s.writeLocks.lock(ctx, append(extra, recordKey(string(owner.Kind), owner.ID))...)
	if err != nil {
		writeError(w, s.writeFailed(ctx, owner, err))
		return
	}
	defer unlock()
	exists, err := s.exists(ctx, owner)
	if err != nil {
		writeError(w, s.writeFailed(ctx, owner, err))
		return
	}
	st, err := index(ctx)
	if st.Written > 0 || st.Failed > 0 {
		// Even a failed write may follow one that succeeded; refreshing
		// is cheap (the next search rebuilds what it needs).
		s.be.searcher.Refresh()
	}
	if err != nil {
		writeError(w, s.writeFailed(ctx, owner, err))
		return
	}
	status := http.StatusOK
	if !exists {
		status = http.StatusCreated
	}
	writeJSON(w, status, writeResponse{Kind: string(owner.Kind), ID: owner.ID, Created: !exists, Index: writeIndexJSON{
		Chunks: st.Chunks, Embedded: st.Embedded, Skipped: st.Skipped, Unchanged: st.Unchanged > 0, DurationMS: ms(st.Duration)}})
}

// deleteRecord answers DELETE on a record: 404 not_found when the tenant
// has no record of kind with the ID; otherwise the record, its files and
// its chunks are removed in one transaction.
func (s *server) deleteRecord(w http.ResponseWriter, r *http.Request, kind storage.OwnerKind, id string) {
	owner := storage.OwnerRef{Kind: kind, ID: id}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ChatTimeout)
	defer cancel()
	unlock, err := s.writeLocks.lock(ctx, recordKey(string(kind), id))
	if err != nil {
		writeError(w, s.writeFailed(ctx, owner, err))
		return
	}
	defer unlock()
	exists, err := s.exists(ctx, owner)
	if err == nil && !exists {
		err = storage.ErrNotFound
	}
	if err == nil {
		err = s.be.indexer.Delete(ctx, owner)
	}
	if err != nil {
		writeError(w, s.writeFailed(ctx, owner, err))
		return
	}
	s.be.searcher.Refresh()
	writeJSON(w, http.StatusOK, deleteResponse{Kind: string(kind), ID: id, Deleted: true})
}

// exists reports whether the store holds the owner's record.
func (s *server) exists(ctx context.Context, owner storage.OwnerRef) (bool, error) {
	ids := []string{owner.ID}
	var (
		n   int
		err error
	)
	switch owner.Kind {
	case storage.KindItem:
		var got []storage.CatalogItem
		got, err = s.be.store.Items().GetMany(ctx, ids)
		n = len(got)
	case storage.KindFAQ:
		var got []storage.FAQ
		got, err = s.be.store.FAQs().GetMany(ctx, ids)
		n = len(got)
	default:
		var got []storage.Document
		got, err = s.be.store.Documents().GetMany(ctx, ids)
		n = len(got)
	}
	return n > 0, err
}

// validateBatch checks the records with the stores' own rules (IDs, text,
// price, status, the record limits) before anything is embedded: 400
// invalid_record, or 400 limit_exceeded naming the limit.
func (s *server) validateBatch(b *storage.Batch) *apiError {
	if err := storage.ValidateBatch(b, s.be.store.Dimensions()); err != nil {
		return recordError(err)
	}
	return nil
}

// recordError is the 400 of a record the stores refuse: limit_exceeded
// for one over a record limit (storage.MaxTags, ...), else invalid_record.
func recordError(err error) *apiError {
	if errors.Is(err, storage.ErrLimitExceeded) {
		return errorf(http.StatusBadRequest, codeLimitExceeded, "%s", recordReason(err))
	}
	return errorf(http.StatusBadRequest, codeInvalidRecord, "%s", recordReason(err))
}

// writeFailed maps an error of the write API to an API error; the store's
// and the embedder's texts go to the log only.
func (s *server) writeFailed(ctx context.Context, owner storage.OwnerRef, err error) *apiError {
	var dup *load.DuplicateDocumentError
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return errorf(http.StatusNotFound, codeNotFound, "no %s with ID %s", owner.Kind, storage.QuoteID(owner.ID))
	case errors.As(err, &dup):
		return errorf(http.StatusConflict, codeDuplicate, "document %s has the same content", storage.QuoteID(dup.ExistingID))
	case errors.Is(err, storage.ErrInvalidRecord):
		return recordError(err)
	case errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusGatewayTimeout, codeTimeout, "the write took longer than %s", s.cfg.ChatTimeout)
	case errors.Is(err, context.Canceled):
		return errorf(http.StatusServiceUnavailable, codeCanceled, "the request was cancelled")
	case s.storeDown(ctx, err):
		s.log.Warn("write: store unavailable", "kind", owner.Kind, "error", err)
		return errStoreUnavailable()
	case isEmbedFailure(err):
		s.log.Warn("write: embedding failed; nothing written", "kind", owner.Kind, "id", owner.ID, "error", err)
		return errorf(http.StatusBadGateway, codeUpstream, "the embedding model failed; nothing was written, try again")
	}
	s.log.Error("write failed", "kind", owner.Kind, "id", owner.ID, "error", err)
	return errorf(http.StatusInternalServerError, codeInternal, "internal error")
}

// recordReason is the client's view of a validation error: the field and
// the reason of a *storage.ValidationError or *load.RecordError, else a
// generic text.
func recordReason(err error) string {
	var ve *storage.ValidationError
	if errors.As(err, &ve) {
		if ve.Field != "" {
			return ve.Field + ": " + ve.Reason
		}
		return ve.Reason
	}
	var re *load.RecordError
	if errors.As(err, &re) && re.Err != nil {
		return strings.TrimPrefix(re.Err.Error(), "storage: ")
	}
	return "the record is not valid"
}

// bodyID checks the optional ID of a write body against the path's.
func bodyID(body, path string) *apiError {
	if body != "" && body != path {
		return errorf(http.StatusBadRequest, codeInvalidField, "id %s in the body differs from the path's %s",
			storage.QuoteID(body), storage.QuoteID(path))
	}
	return nil
}

// parseStatus reads a record status (active/inactive, ativo/inativo;
// empty is active).
func parseStatus(s string) (storage.Status, *apiError) {
	st, err := storage.ParseStatus(s)
	if err != nil {
		return "", errorf(http.StatusBadRequest, codeInvalidField, "status must be active or inactive (ativo or inativo)")
	}
	return st, nil
}

// blank reports whether s has no character but white space, control and
// format characters: a required field holding only such characters is
// missing.
func blank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// trimAll trims every string and drops the blank ones.
func trimAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// embedError marks an error the embedder returned to the Indexer, so that
// the write API answers 502 upstream_error instead of 500.
type embedError struct{ err error }

func (e *embedError) Error() string { return e.err.Error() }

func (e *embedError) Unwrap() error { return e.err }

// markedEmbedder is the Indexer's embedder: e, with its errors marked as
// *embedError (context errors of a done ctx are left as they are).
type markedEmbedder struct{ vector.Embedder }

// Embed embeds texts with the wrapped embedder and marks its errors.
func (m markedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := m.Embedder.Embed(ctx, texts)
	if err != nil && ctx.Err() == nil {
		err = &embedError{err}
	}
	return v, err
}

// isEmbedFailure reports an error of the embedder: one it returned, a
// panic, or a vector breaking its contract.
func isEmbedFailure(err error) bool {
	var (
		ee *embedError
		ve *vector.VectorError
	)
	return errors.As(err, &ee) || errors.As(err, &ve) || errors.Is(err, ingest.ErrEmbedderPanic)
}
