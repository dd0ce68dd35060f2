package storage

import "unicode/utf8"

// Record limits. ValidateBatch, which every store runs on every write,
// rejects a record over one of them with a *ValidationError wrapping
// ErrLimitExceeded (and so ErrInvalidRecord) whose Field names the field
// and whose Reason names the limit and the record's value. They are far
// above what a real catalog holds and bound what one write can cost: a
// record of 380,000 tags or 50,000 metadata keys is refused before
// anything is written. Lengths count characters (runes), not bytes.
const (
	// MaxTags bounds the tags of an item and the keywords of a FAQ.
	MaxTags = 256
	// MaxTagLength bounds one tag or keyword.
	MaxTagLength = 200
	// MaxMetadataKeys bounds the metadata keys of an item or a document.
	MaxMetadataKeys = 64
	// MaxMetadataKeyLength bounds one metadata key.
	MaxMetadataKeyLength = 128
	// MaxMetadataValueLength bounds one metadata value.
	MaxMetadataValueLength = 4000
	// MaxNameLength bounds the short text fields: an item's name,
	// category and manufacturer, a FAQ's question and category, a
	// document's title and source, a file's name.
	MaxNameLength = 1000
	// MaxDescriptionLength bounds an item's description and a FAQ's
	// answer.
	MaxDescriptionLength = 100_000
	// MaxFiles bounds the files attached to an item.
	MaxFiles = 100
	// MaxContentLength bounds a document's content and the text of one
	// attached file (8 Mi characters: twice the demo server's default
	// write body).
	MaxContentLength = 8 << 20
)

// limitCheck checks the limits of one owner's record and keeps the first
// failure in err.
type limitCheck struct {
	owner OwnerRef
	err   error
}

// fail records that field's value (got) is over the limit named limit.
func (c *limitCheck) fail(field, limit, unit string, max, got int) {
	c.err = &ValidationError{Owner: c.owner, Field: field,
		Reason: itoa(got) + " " + unit + ", at most " + itoa(max) + " (" + limit + ")", Err: ErrLimitExceeded}
}

// length checks the length of fieldsAndValues, pairs of a field name and
// its text, against max (named limit).
func (c *limitCheck) length(limit string, max int, fieldsAndValues ...string) {
	for i := 0; i+1 < len(fieldsAndValues) && c.err == nil; i += 2 {
		// Bytes bound runes from above: count runes only when needed.
		if s := fieldsAndValues[i+1]; len(s) > max {
			if n := utf8.RuneCountInString(s); n > max {
				c.fail(fieldsAndValues[i], limit, "characters", max, n)
			}
		}
	}
}

// list checks the number of elements of a list field and their lengths.
func (c *limitCheck) list(field string, ss []string) {
	if c.err != nil {
		return
	}
	if len(ss) > MaxTags {
		c.fail(field, "MaxTags", "entries", MaxTags, len(ss))
		return
	}
	for i, s := range ss {
		c.length("MaxTagLength", MaxTagLength, field+"["+itoa(i)+"]", s)
	}
}

// dict checks the number of keys of a map field and the lengths of its
// keys and values.
func (c *limitCheck) dict(field string, m map[string]string) {
	if c.err != nil {
		return
	}
	if len(m) > MaxMetadataKeys {
		c.fail(field, "MaxMetadataKeys", "keys", MaxMetadataKeys, len(m))
		return
	}
	for k, v := range m {
		c.length("MaxMetadataKeyLength", MaxMetadataKeyLength, field+" key", k)
		c.length("MaxMetadataValueLength", MaxMetadataValueLength, field+"["+quote(k)+"]", v)
	}
}

func checkItemLimits(it *CatalogItem) error {
	c := limitCheck{owner: OwnerRef{Kind: KindItem, ID: it.ID}}
	c.length("MaxNameLength", MaxNameLength, "name", it.Name, "category", it.Category, "manufacturer", it.Manufacturer)
	c.length("MaxDescriptionLength", MaxDescriptionLength, "description", it.Description)
	c.list("tags", it.Tags)
	c.dict("metadata", it.Metadata)
	if c.err == nil && len(it.Files) > MaxFiles {
		c.fail("files", "MaxFiles", "files", MaxFiles, len(it.Files))
	}
	for j := 0; j < len(it.Files) && c.err == nil; j++ {
		at := "files[" + itoa(j) + "]."
		c.length("MaxNameLength", MaxNameLength, at+"name", it.Files[j].Name)
		c.length("MaxContentLength", MaxContentLength, at+"text", it.Files[j].Text)
	}
	return c.err
}

func checkFAQLimits(f *FAQ) error {
	c := limitCheck{owner: OwnerRef{Kind: KindFAQ, ID: f.ID}}
	c.length("MaxNameLength", MaxNameLength, "question", f.Question, "category", f.Category)
	c.length("MaxDescriptionLength", MaxDescriptionLength, "answer", f.Answer)
	c.list("keywords", f.Keywords)
	return c.err
}

func checkDocumentLimits(d *Document) error {
	c := limitCheck{owner: OwnerRef{Kind: KindDocument, ID: d.ID}}
	c.length("MaxNameLength", MaxNameLength, "title", d.Title, "source", d.Source)
	c.length("MaxContentLength", MaxContentLength, "content", d.Content)
	c.dict("metadata", d.Metadata)
	return c.err
}
