package main

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/examples/internal/assist"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/storage"
)

// Limits of an assist request.
const (
	assistMaxFieldChars = 2000
	assistMaxFiles      = 5
	assistMaxFileChars  = 20000
	assistMaxTags       = 50
	categoryPageSize    = 500
	maxCategoryPages    = 200
)

// assistFunc suggests the missing fields of a catalog item.
type assistFunc func(ctx context.Context, item storage.CatalogItem) (*assist.Result, error)

// newAssist returns the catalog assistant on chat (field suggestions for
// catalog editors), or nil without a model.
func newAssist(chat llm.ChatModel, opts assist.Options) assistFunc {
	if chat == nil {
		return nil
	}
	return func(ctx context.Context, item storage.CatalogItem) (*assist.Result, error) {
		return assist.Assist(ctx, chat, item, opts)
	}
}

// storeCategories lists the distinct categories of the store's items.
func storeCategories(ctx context.Context, st store) []string {
	seen := map[string]bool{}
	var out []string
	page := storage.Page{Limit: categoryPageSize}
	for range maxCategoryPages {
		items, err := st.Items().List(ctx, page)
		if err != nil || len(items) == 0 {
			break
		}
		for _, it := range items {
			if c := strings.TrimSpace(it.Category); c != "" && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
		page.After = items[len(items)-1].ID
	}
	slices.Sort(out)
	return out
}

// assistRequest is the body of POST /api/catalog/assist: the item form as
// filled so far. Empty fields are the ones to suggest.
type assistRequest struct {
	Name         string     `json:"name"`
	Description  string     `json:"description"`
	Category     string     `json:"category"`
	Manufacturer string     `json:"manufacturer"`
	Price        *float64   `json:"price"`
	Tags         []string   `json:"tags"`
	Files        []fileJSON `json:"files"`
}

type fileJSON struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// assistResponse is the answer: the result and the item with the
// suggestions applied.
type assistResponse struct {
	*assist.Result
	Item assistItemJSON `json:"item"`
}

type assistItemJSON struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Category     string   `json:"category"`
	Manufacturer string   `json:"manufacturer"`
	Price        *float64 `json:"price"`
	Tags         []string `json:"tags"`
}

// handleAssist answers POST /api/catalog/assist; 501 without a model.
func (s *server) handleAssist(w http.ResponseWriter, r *http.Request) {
	var body assistRequest
	if e := decodeJSON(r, &body); e != nil {
		writeError(w, e)
		return
	}
	if s.be.assist == nil {
		writeError(w, errorf(http.StatusNotImplemented, codeNotConfigured,
			"catalog assist needs a chat model: start the server with OPENAI_API_KEY or OPENROUTER_API_KEY"))
		return
	}
	item, e := assistItem(body)
	if e != nil {
		writeError(w, e)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ChatTimeout)
	defer cancel()
	res, err := s.be.assist(ctx, item)
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		switch {
		case errors.Is(err, assist.ErrInput):
			writeError(w, errorf(http.StatusBadRequest, codeInvalidField, "name is required"))
		case errors.Is(err, context.DeadlineExceeded):
			writeError(w, errorf(http.StatusGatewayTimeout, codeTimeout, "the model took longer than %s", s.cfg.ChatTimeout))
		case errors.Is(err, llm.ErrInvalidOutput):
			s.log.Warn("assist: invalid model output", "error", err)
			writeError(w, errorf(http.StatusBadGateway, codeUpstream, "the model's answer was not usable; try again"))
		default:
			s.log.Error("assist failed", "error", err)
			writeError(w, errorf(http.StatusBadGateway, codeUpstream, "the model could not be reached; try again"))
		}
		return
	}
	out := res.Suggestions.Apply(item)
	writeJSON(w, http.StatusOK, assistResponse{Result: res, Item: assistItemJSON{
		Name: out.Name, Description: out.Description, Category: out.Category, Manufacturer: out.Manufacturer,
		Price: out.Price, Tags: nonNil(out.Tags),
	}})
}

// assistItem validates the form and turns it into a catalog item.
func assistItem(b assistRequest) (storage.CatalogItem, *apiError) {
	name := strings.TrimSpace(b.Name)
	switch {
	case name == "":
		return storage.CatalogItem{}, errorf(http.StatusBadRequest, codeInvalidField, "name is required")
	case len(b.Files) > assistMaxFiles:
		return storage.CatalogItem{}, errorf(http.StatusBadRequest, codeInvalidField, "at most %d files", assistMaxFiles)
	case len(b.Tags) > assistMaxTags:
		return storage.CatalogItem{}, errorf(http.StatusBadRequest, codeInvalidField, "at most %d tags", assistMaxTags)
	case b.Price != nil && (math.IsNaN(*b.Price) || *b.Price < 0):
		return storage.CatalogItem{}, errorf(http.StatusBadRequest, codeInvalidField, "price must not be negative")
	}
	for _, f := range []struct{ name, v string }{{"name", name}, {"description", b.Description}, {"category", b.Category}, {"manufacturer", b.Manufacturer}} {
		if utf8.RuneCountInString(f.v) > assistMaxFieldChars {
			return storage.CatalogItem{}, errorf(http.StatusBadRequest, codeInvalidField, "%s has more than %d characters", f.name, assistMaxFieldChars)
		}
	}
	it := storage.CatalogItem{Name: name, Description: strings.TrimSpace(b.Description), Category: strings.TrimSpace(b.Category),
		Manufacturer: strings.TrimSpace(b.Manufacturer), Price: b.Price}
	for _, t := range b.Tags {
		if t = strings.TrimSpace(t); t != "" {
			it.Tags = append(it.Tags, t)
		}
	}
	for i, f := range b.Files {
		if utf8.RuneCountInString(f.Text) > assistMaxFileChars {
			return storage.CatalogItem{}, errorf(http.StatusBadRequest, codeInvalidField, "files[%d].text has more than %d characters", i, assistMaxFileChars)
		}
		it.Files = append(it.Files, storage.CatalogFile{Name: f.Name, Text: f.Text})
	}
	return it, nil
}
