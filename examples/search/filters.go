package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/storage"
)

// metaFlags is the repeatable -meta key=value flag.
type metaFlags []storage.Filter

func (m *metaFlags) String() string {
	if m == nil {
		return ""
	}
	s := make([]string, len(*m))
	for i, f := range *m {
		s[i] = f.Key + "=" + f.Value
	}
	return strings.Join(s, ",")
}

// errBadMeta is the parse error of a -meta value without "=".
var errBadMeta = errors.New("want key=value")

func (m *metaFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	k, val = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(val)
	if !ok || k == "" || val == "" {
		return errBadMeta
	}
	*m = append(*m, storage.Filter{Field: storage.FieldMetadata, Key: k, Value: val})
	return nil
}

// chunkFlags is the repeatable -chunk key=value flag.
type chunkFlags []storage.ChunkFilter

func (c *chunkFlags) String() string {
	if c == nil {
		return ""
	}
	s := make([]string, len(*c))
	for i, f := range *c {
		s[i] = f.Key + "=" + f.Value
	}
	return strings.Join(s, ",")
}

func (c *chunkFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	k, val = strings.TrimSpace(k), strings.TrimSpace(val)
	if !ok || k == "" || val == "" {
		return errBadMeta
	}
	*c = append(*c, storage.ChunkFilter{Key: k, Value: val})
	return nil
}

// docIDFlags is the repeatable -doc-id flag.
type docIDFlags []string

func (d *docIDFlags) String() string {
	if d == nil {
		return ""
	}
	return strings.Join(*d, ",")
}

// errEmptyDocID is the parse error of a blank -doc-id.
var errEmptyDocID = errors.New("empty document ID")

func (d *docIDFlags) Set(v string) error {
	if v = strings.TrimSpace(v); v == "" {
		return errEmptyDocID
	}
	*d = append(*d, v)
	return nil
}

// maxDocIDs is the most -doc-id flags (rag.Query.DocumentIDs' bound).
const maxDocIDs = 100

// filterFlags are the filter flags as given.
type filterFlags struct {
	category, manufacturer, tag, source string
	meta                                metaFlags
	chunk                               chunkFlags
	docIDs                              docIDFlags
}

// ownerKinds maps the search kinds to the stores' owner kinds.
var ownerKinds = map[string]storage.OwnerKind{
	kindCatalog: storage.KindItem,
	kindFAQ:     storage.KindFAQ,
	kindDoc:     storage.KindDocument,
}

// filters builds the store filters of kind from the flags: category,
// manufacturer, tag, source, then the -meta filters in the order given;
// the metadata keys named are the store's allowlist (this is a local
// debugging tool: every key the user names is allowed). A filter the kind
// does not have is a usage error naming the flag.
func (ff *filterFlags) filters(kind string) ([]storage.Filter, []string, error) {
	var out []storage.Filter
	for _, x := range []struct {
		field storage.FilterField
		value string
	}{
		{storage.FieldCategory, ff.category}, {storage.FieldManufacturer, ff.manufacturer},
		{storage.FieldTag, ff.tag}, {storage.FieldSource, ff.source},
	} {
		if v := strings.TrimSpace(x.value); v != "" {
			out = append(out, storage.Filter{Field: x.field, Value: v})
		}
	}
	var keys []string
	for _, f := range ff.meta {
		out = append(out, f)
		if !slices.Contains(keys, f.Key) {
			keys = append(keys, f.Key)
		}
	}
	if err := storage.ValidateFilters(ownerKinds[kind], out, keys); err != nil {
		var ve *storage.ValidationError
		if errors.As(err, &ve) {
			var i int
			if _, serr := fmt.Sscanf(ve.Field, "filters[%d]", &i); serr == nil && i < len(out) {
				flag := "-" + string(out[i].Field)
				if out[i].Field == storage.FieldMetadata {
					flag = "-meta " + out[i].Key
				}
				return nil, nil, usagef("%s: %s (kind %s)", flag, ve.Reason, kind)
			}
		}
		return nil, nil, usagef("filters: %v", err)
	}
	return out, keys, nil
}

// filterReport is one filter of the search, in the JSON report.
type filterReport struct {
	Field string `json:"field"`
	Key   string `json:"key,omitempty"`
	Value string `json:"value"`
}

// filterReports converts the filters for the report; nil without any.
func filterReports(filters []storage.Filter) []filterReport {
	var out []filterReport
	for _, f := range filters {
		out = append(out, filterReport{Field: string(f.Field), Key: f.Key, Value: f.Value})
	}
	return out
}

// chunkFilterReports converts the chunk filters for the report (field
// "chunk"); nil without any.
func chunkFilterReports(filters []storage.ChunkFilter) []filterReport {
	var out []filterReport
	for _, f := range filters {
		out = append(out, filterReport{Field: "chunk", Key: f.Key, Value: f.Value})
	}
	return out
}

// docIDReports converts the document IDs for the report (field
// "document_id"); nil without any.
func docIDReports(ids []string) []filterReport {
	var out []filterReport
	for _, id := range ids {
		out = append(out, filterReport{Field: "document_id", Value: id})
	}
	return out
}

// filterText is the filters on one line of the human report:
// category=Fungicida, metadata.formulacao=SC, chunk.artigo=5.
func filterText(filters []filterReport) string {
	s := make([]string, len(filters))
	for i, f := range filters {
		name := f.Field
		if f.Key != "" {
			name += "." + f.Key
		}
		s[i] = name + "=" + f.Value
	}
	return strings.Join(s, ", ")
}
