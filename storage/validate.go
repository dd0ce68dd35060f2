package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/lexical"
)

// MaxIDLength is the longest record ID accepted, in bytes.
const MaxIDLength = 256

var tenantRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`)

// ValidateTenant checks a tenant ID: 1 to 64 characters of letters, digits,
// '_', '.', ':' and '-', starting with a letter or digit.
func ValidateTenant(tenant string) error {
	if !tenantRE.MatchString(tenant) {
		return &ValidationError{Field: "tenant", Reason: "want 1-64 of [A-Za-z0-9_.:-], got " + quote(tenant), Err: ErrInvalidTenant}
	}
	return nil
}

// ContentHash returns the hex SHA-256 of s, the hash stores and ingestion
// use to detect unchanged text.
func ContentHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ValidText reports whether s is text every store can hold: valid UTF-8
// without NUL bytes (PostgreSQL's text type accepts neither). Stores reject
// records and chunks with other text (ErrInvalidRecord); callers repair user
// text beforehand (lexical.Normalize and the ingestion loaders do).
func ValidText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// ValidID reports whether id is an ID a record can have: not blank, at most
// MaxIDLength bytes, ValidText, and without control characters (newline,
// tab, DEL, C1) or bidirectional formatting characters (U+202E and the
// other Bidi_Control characters), which make an ID print as another one
// in logs, URLs and terminals. Stores look no other ID up: for them a
// record with such an ID does not exist.
func ValidID(id string) bool {
	return idProblem(id) == ""
}

// idProblem says what is wrong with id, or "".
func idProblem(id string) string {
	switch {
	case strings.TrimSpace(id) == "":
		return "empty"
	case len(id) > MaxIDLength:
		return "longer than 256 bytes"
	}
	if p := textProblem(id); p != "" {
		return p
	}
	for _, r := range id {
		switch {
		case unicode.IsControl(r):
			return "contains a control character"
		case unicode.Is(unicode.Bidi_Control, r):
			return "contains a bidirectional formatting character"
		}
	}
	return ""
}

// blankText reports whether s has no character but white space, control
// and format characters: nothing a search can match or a reader see.
func blankText(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// textProblem says why s is not ValidText, or "".
func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "contains a NUL byte"
	}
	return ""
}

func validateID(owner OwnerRef) error {
	if p := idProblem(owner.ID); p != "" {
		return &ValidationError{Owner: owner, Field: "id", Reason: p, Err: ErrInvalidRecord}
	}
	return nil
}

// textCheck checks the texts of one owner's record or chunks with
// textProblem and keeps the first failure in err.
type textCheck struct {
	owner OwnerRef
	err   error
}

// text checks fieldsAndValues, pairs of a field name and its text.
func (c *textCheck) text(fieldsAndValues ...string) {
	for i := 0; i+1 < len(fieldsAndValues) && c.err == nil; i += 2 {
		if p := textProblem(fieldsAndValues[i+1]); p != "" {
			c.err = &ValidationError{Owner: c.owner, Field: fieldsAndValues[i], Reason: p, Err: ErrInvalidRecord}
		}
	}
}

// list checks every element of a list field: field[i].
func (c *textCheck) list(field string, ss []string) {
	for i, s := range ss {
		c.text(field+"["+itoa(i)+"]", s)
	}
}

// dict checks the keys ("field key") and values (field["key"]) of a map
// field, in key order so that the error is the same on every run.
func (c *textCheck) dict(field string, m map[string]string) {
	if c.err != nil || len(m) == 0 {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		c.text(field+" key", k, field+"["+quote(k)+"]", m[k])
	}
}

func checkItemText(it *CatalogItem) error {
	c := textCheck{owner: OwnerRef{Kind: KindItem, ID: it.ID}}
	c.text("name", it.Name, "description", it.Description, "category", it.Category, "manufacturer", it.Manufacturer)
	c.list("tags", it.Tags)
	c.dict("metadata", it.Metadata)
	for j, f := range it.Files {
		at := "files[" + itoa(j) + "]."
		c.text(at+"name", f.Name, at+"text", f.Text)
	}
	return c.err
}

func checkFAQText(f *FAQ) error {
	c := textCheck{owner: OwnerRef{Kind: KindFAQ, ID: f.ID}}
	c.text("question", f.Question, "answer", f.Answer, "category", f.Category)
	c.list("keywords", f.Keywords)
	return c.err
}

func checkDocumentText(d *Document) error {
	c := textCheck{owner: OwnerRef{Kind: KindDocument, ID: d.ID}}
	c.text("source", d.Source, "title", d.Title, "content", d.Content, "content_hash", d.ContentHash)
	c.dict("metadata", d.Metadata)
	if c.err == nil && d.Content != "" && blankText(d.Content) {
		c.err = &ValidationError{Owner: c.owner, Field: "content", Reason: "no text: only white space, control or format characters", Err: ErrInvalidRecord}
	}
	return c.err
}

// checkChunkText checks the texts of chunk i of owner.
func checkChunkText(owner OwnerRef, i int, ch *Chunk) error {
	c := textCheck{owner: owner}
	at := "chunks[" + itoa(i) + "]."
	c.text(at+"content", ch.Content, at+"source", string(ch.Source), at+"content_hash", ch.ContentHash, at+"file", ch.File)
	c.list(at+"heading_path", ch.HeadingPath)
	c.dict(at+"metadata", ch.Metadata)
	return c.err
}

// ValidateOwnerRef checks that ref has a known kind and a valid ID.
func ValidateOwnerRef(ref OwnerRef) error {
	if !ref.Kind.Valid() {
		return &ValidationError{Owner: ref, Field: "kind", Reason: "want item|faq|document", Err: ErrInvalidRecord}
	}
	return validateID(ref)
}

// validateVector checks an embedding against the store's dimensions and
// rejects NaN and ±Inf. A nil vector is valid (the chunk is not searchable by
// vector).
func validateVector(v []float32, dims int) error {
	if v == nil {
		return nil
	}
	if len(v) != dims {
		return &ValidationError{Field: "embedding", Reason: "length " + itoa(len(v)) + ", want " + itoa(dims), Err: ErrDimensionMismatch}
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return &ValidationError{Field: "embedding[" + itoa(i) + "]", Reason: "not finite", Err: ErrInvalidVector}
		}
	}
	return nil
}

// ValidateQueryVector checks a query vector: non-empty, of the store's
// dimensions, all finite.
func ValidateQueryVector(v []float32, dims int) error {
	if len(v) == 0 {
		return &ValidationError{Field: "vector", Reason: "empty", Err: ErrDimensionMismatch}
	}
	return validateVector(v, dims)
}

// validateChunks checks the chunks that will replace owner's chunks: the
// owner reference, every chunk's owner (empty means owner), source, Seq and
// Start (not negative), the uniqueness of (source, seq), every text
// (ValidText: content, source, hash, file, heading path, metadata) and
// every embedding.
func validateChunks(owner OwnerRef, chunks []Chunk, dims int) error {
	if err := ValidateOwnerRef(owner); err != nil {
		return err
	}
	type key struct {
		src ChunkSource
		seq int
	}
	seen := make(map[key]bool, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		if c.Owner != (OwnerRef{}) && c.Owner != owner {
			return &ValidationError{Owner: owner, Field: "chunks[" + itoa(i) + "].owner", Reason: "belongs to another owner", Err: ErrInvalidRecord}
		}
		if c.Source == "" {
			return &ValidationError{Owner: owner, Field: "chunks[" + itoa(i) + "].source", Reason: "empty", Err: ErrInvalidRecord}
		}
		if c.Seq < 0 {
			return &ValidationError{Owner: owner, Field: "chunks[" + itoa(i) + "].seq", Reason: "negative", Err: ErrInvalidRecord}
		}
		if c.Start < 0 {
			return &ValidationError{Owner: owner, Field: "chunks[" + itoa(i) + "].start", Reason: "negative", Err: ErrInvalidRecord}
		}
		k := key{c.Source, c.Seq}
		if seen[k] {
			return &ValidationError{Owner: owner, Field: "chunks[" + itoa(i) + "]", Reason: "duplicate source and seq", Err: ErrInvalidRecord}
		}
		seen[k] = true
		if err := checkChunkText(owner, i, c); err != nil {
			return err
		}
		if err := validateVector(c.Embedding, dims); err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				ve.Owner = owner
				ve.Field = "chunks[" + itoa(i) + "]." + ve.Field
			}
			return err
		}
	}
	return nil
}

// ValidateBatch checks every record, chunk and deletion of b against dims,
// so that a store can reject the batch before writing anything: IDs
// (ValidID), statuses, prices, every text field (ValidText: no NUL byte, no
// invalid UTF-8, in values, list elements and map keys alike), a
// document's content (when not empty, some text besides white space and
// control characters), the record limits (MaxTags and the others: a
// *ValidationError wrapping ErrLimitExceeded), chunks (as validateChunks says) and
// deletions (ValidateOwnerRef).
func ValidateBatch(b *Batch, dims int) error {
	for i := range b.Items {
		it := &b.Items[i]
		ref := OwnerRef{KindItem, it.ID}
		if err := validateRecord(ref, it.Status); err != nil {
			return err
		}
		if it.Price != nil && (math.IsNaN(*it.Price) || math.IsInf(*it.Price, 0) || *it.Price < 0) {
			return &ValidationError{Owner: ref, Field: "price", Reason: "want a finite number >= 0", Err: ErrInvalidRecord}
		}
		for j, f := range it.Files {
			if f.ItemID != "" && f.ItemID != it.ID {
				return &ValidationError{Owner: ref, Field: "files[" + itoa(j) + "].item_id", Reason: "belongs to another item", Err: ErrInvalidRecord}
			}
		}
		if err := checkItemText(it); err != nil {
			return err
		}
		if err := checkItemLimits(it); err != nil {
			return err
		}
	}
	for i := range b.FAQs {
		if err := validateRecord(OwnerRef{KindFAQ, b.FAQs[i].ID}, b.FAQs[i].Status); err != nil {
			return err
		}
		if err := checkFAQText(&b.FAQs[i]); err != nil {
			return err
		}
		if err := checkFAQLimits(&b.FAQs[i]); err != nil {
			return err
		}
	}
	for i := range b.Documents {
		if err := validateRecord(OwnerRef{KindDocument, b.Documents[i].ID}, b.Documents[i].Status); err != nil {
			return err
		}
		if err := checkDocumentText(&b.Documents[i]); err != nil {
			return err
		}
		if err := checkDocumentLimits(&b.Documents[i]); err != nil {
			return err
		}
	}
	for _, oc := range b.Chunks {
		if err := validateChunks(oc.Owner, oc.Chunks, dims); err != nil {
			return err
		}
	}
	for _, d := range b.Deletes {
		if err := ValidateOwnerRef(d); err != nil {
			return err
		}
	}
	return nil
}

// validateRecord checks what every owner record has: its ID and its status.
func validateRecord(ref OwnerRef, status Status) error {
	if err := validateID(ref); err != nil {
		return err
	}
	if !status.valid() {
		return &ValidationError{Owner: ref, Field: "status", Reason: "want active|inactive, got " + quote(string(status)), Err: ErrInvalidRecord}
	}
	return nil
}

// ItemSearchText is the normalized text lexical search matches for an item:
// name, description, category, manufacturer, each tag and each file's name
// and text, normalized with lexical.Normalize and joined by "\n". Normalized
// terms never contain "\n", so a term cannot match across two fields.
func ItemSearchText(it *CatalogItem) string {
	parts := []string{it.Name, it.Description, it.Category, it.Manufacturer}
	parts = append(parts, it.Tags...)
	for _, f := range it.Files {
		parts = append(parts, f.Name, f.Text)
	}
	return joinNormalized(parts)
}

// FAQSearchText is the normalized text lexical search matches for a FAQ:
// question, answer, category and keywords.
func FAQSearchText(f *FAQ) string {
	parts := []string{f.Question, f.Answer, f.Category}
	parts = append(parts, f.Keywords...)
	return joinNormalized(parts)
}

// DocumentSearchText is the normalized text lexical search matches for a
// document: title and content.
func DocumentSearchText(d *Document) string {
	return joinNormalized([]string{d.Title, d.Content})
}

func joinNormalized(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		n := lexical.Normalize(p)
		if n == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(n)
	}
	return b.String()
}
