package main

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/storage"
)

// ownerKinds maps the search kinds to the stores' owner kinds.
var ownerKinds = map[string]storage.OwnerKind{
	kindCatalog: storage.KindItem,
	kindFAQ:     storage.KindFAQ,
	kindDoc:     storage.KindDocument,
}

// searchFilters turns the filters of a search request into store filters
// for kind (catalog, faq or doc): category, manufacturer, tag, source,
// then the metadata keys in sorted order. Blank values are ignored. A
// metadata key outside the allowlist is 400 metadata_key_not_allowed; a
// filter the kind does not have (manufacturer on FAQs, ...) or a value
// over 256 bytes is 400 invalid_filter.
func (s *server) searchFilters(kind string, f *filtersJSON) ([]storage.Filter, *apiError) {
	if f == nil {
		return nil, nil
	}
	var out []storage.Filter
	for _, x := range []struct {
		field storage.FilterField
		value string
	}{
		{storage.FieldCategory, f.Category}, {storage.FieldManufacturer, f.Manufacturer},
		{storage.FieldTag, f.Tag}, {storage.FieldSource, f.Source},
	} {
		if v := strings.TrimSpace(x.value); v != "" {
			out = append(out, storage.Filter{Field: x.field, Value: v})
		}
	}
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := strings.TrimSpace(f.Metadata[k])
		if v == "" {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(k))
		if !slices.Contains(s.cfg.MetadataKeys, key) {
			allowed := "none"
			if len(s.cfg.MetadataKeys) > 0 {
				allowed = strings.Join(s.cfg.MetadataKeys, ", ")
			}
			return nil, errorf(http.StatusBadRequest, codeMetadataNotAllowed,
				"metadata key %q is not filterable on this server (allowed: %s; see -metadata-keys)", k, allowed)
		}
		out = append(out, storage.Filter{Field: storage.FieldMetadata, Key: key, Value: v})
	}
	if err := storage.ValidateFilters(ownerKinds[kind], out, s.cfg.MetadataKeys); err != nil {
		return nil, errorf(http.StatusBadRequest, codeInvalidFilter, "%s", filterReason(err, out))
	}
	return out, nil
}

// filterReason is the client's view of a filter validation error: the
// filter's field and the reason.
func filterReason(err error, filters []storage.Filter) string {
	r := recordReason(err)
	for i, f := range filters {
		prefix := "filters[" + strconv.Itoa(i) + "]: "
		if strings.HasPrefix(r, prefix) {
			name := string(f.Field)
			if f.Key != "" {
				name += "." + f.Key
			}
			return "filters." + name + ": " + strings.TrimPrefix(r, prefix)
		}
	}
	return r
}

// chunkFilters turns the chunk filters of a search request into
// rag.ChunkFilters sorted by key; blank values are ignored. The Searcher
// validates them (an empty or over-long key or value is 400
// invalid_field, through rag.ErrInvalidQuery).
func chunkFilters(m map[string]string) []storage.ChunkFilter {
	var out []storage.ChunkFilter
	for k, v := range m {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, storage.ChunkFilter{Key: strings.TrimSpace(k), Value: v})
		}
	}
	slices.SortFunc(out, func(a, b storage.ChunkFilter) int { return strings.Compare(a.Key, b.Key) })
	return out
}
