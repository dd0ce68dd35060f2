package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// fieldError is a bad field inside a well-formed record.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }

func invalid(field, format string, args ...any) *fieldError {
	return &fieldError{field, fmt.Errorf("%w: "+format, append([]any{storage.ErrInvalidRecord}, args...)...)}
}

// object is a decoded JSON record with lower-cased keys; values are
// string, json.Number, bool, nil, []any or map[string]any.
type object map[string]any

// parseObject decodes one JSON object in a single pass.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: unexpected end of JSON input", ErrSyntax)
		}
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrSyntax)
	}
	return toObject(v)
}

// toObject checks that v is a JSON object and lower-cases its keys. Two
// keys that differ only in case ("Id" and "ID") are an ErrSyntax error, not
// a choice left to map order.
func toObject(v any) (object, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: want a JSON object, got %s", ErrSyntax, kindOf(v))
	}
	out := make(object, len(m))
	seen := make(map[string]string, len(m))
	// In key order: with two pairs of such keys, the error names the same
	// pair on every run.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		x := m[k]
		lk := strings.ToLower(k)
		if other, dup := seen[lk]; dup {
			a, b := min(k, other), max(k, other)
			return nil, fmt.Errorf("%w: keys %q and %q differ only in case", ErrSyntax, a, b)
		}
		seen[lk] = k
		out[lk] = x
	}
	return out, nil
}

// scalar returns a string, number or boolean as text; nil is "".
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// str returns the key's value as text (strings, numbers and booleans are
// accepted; absent and null give "").
func (o object) str(key string) (string, *fieldError) {
	s, ok := scalar(o[key])
	if !ok {
		return "", invalid(key, "want a string, got %s", kindOf(o[key]))
	}
	return s, nil
}

// list returns an array of scalars, or a single string split at any rune of
// seps.
func (o object) list(key, seps string) ([]string, *fieldError) {
	switch v := o[key].(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, 0, len(v))
		for i, e := range v {
			s, ok := scalar(e)
			if !ok {
				return nil, invalid(key+"["+strconv.Itoa(i)+"]", "want a string, got %s", kindOf(e))
			}
			out = append(out, s)
		}
		return out, nil
	case string:
		return splitList(v, seps), nil
	default:
		return nil, invalid(key, "want an array of strings, got %s", kindOf(v))
	}
}

// price returns a number, a numeric string (see parsePrice) or nil.
func (o object) price(key string) (*float64, *fieldError) {
	switch v := o[key].(type) {
	case nil:
		return nil, nil
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil {
			return nil, invalid(key, "%s is not a number", v)
		}
		return checkPrice(key, f)
	case string:
		return parsePrice(key, v)
	default:
		return nil, invalid(key, "want a number or null, got %s", kindOf(v))
	}
}

// integer returns an integral number or numeric string; absent/null is 0.
func (o object) integer(key string) (int, *fieldError) {
	s, ok := scalar(o[key])
	if !ok {
		return 0, invalid(key, "want an integer, got %s", kindOf(o[key]))
	}
	return parseInt(key, s)
}

// boolean returns the key's truth value and whether it was present.
func (o object) boolean(key string) (val, present bool, ferr *fieldError) {
	v := o[key]
	if v == nil {
		return false, false, nil
	}
	if b, ok := v.(bool); ok {
		return b, true, nil
	}
	s, ok := scalar(v)
	if !ok {
		return false, true, invalid(key, "want a boolean, got %s", kindOf(v))
	}
	b, err := parseBool(key, s)
	return b, true, err
}

// strMap returns an object whose values are scalars.
func (o object) strMap(key string, c cleaner) (map[string]string, *fieldError) {
	v := o[key]
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid(key, "want an object of strings, got %s", kindOf(v))
	}
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	from := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := scalar(e)
		if !ok {
			return nil, invalid(key+"."+k, "want a string, got %s", kindOf(e))
		}
		ck := c.field(k)
		if other, dup := from[ck]; dup {
			a, b := min(k, other), max(k, other)
			return nil, invalid(key, "keys %q and %q are the same key %q once cleaned", a, b, ck)
		}
		from[ck] = k
		out[ck] = c.field(s)
	}
	return out, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

func splitList(s, seps string) []string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// cleanList cleans and trims every element, dropping empty ones.
func cleanList(in []string, c cleaner) []string {
	var out []string
	for _, s := range in {
		if s = c.field(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// parsePrice reads a price written either way: "1.234,56" (pt-BR) or
// "1234.56" / "1,234.56" (en). A currency prefix ("R$", "$", "US$") and
// spaces are ignored. When both '.' and ',' occur, the last one is the
// decimal separator; a lone ',' is decimal; several '.' with no ',' are
// thousands separators ("1.234.567"), a single '.' is decimal. Empty text
// is no price (nil).
func parsePrice(field, s string) (*float64, *fieldError) {
	t := strings.TrimSpace(s)
	for _, p := range []string{"US$", "R$", "$", "€"} {
		t = strings.TrimSpace(strings.TrimPrefix(t, p))
	}
	t = strings.NewReplacer(" ", "", "\u00a0", "").Replace(t)
	if t == "" {
		return nil, nil
	}
	dot, comma := strings.LastIndexByte(t, '.'), strings.LastIndexByte(t, ',')
	switch {
	case dot >= 0 && comma >= 0 && comma > dot: // 1.234,56
		t = strings.ReplaceAll(t, ".", "")
		t = strings.Replace(t, ",", ".", 1)
	case dot >= 0 && comma >= 0: // 1,234.56
		t = strings.ReplaceAll(t, ",", "")
	case comma >= 0: // 1234,56
		if strings.Count(t, ",") > 1 {
			return nil, invalid(field, "price %q has several ','", s)
		}
		t = strings.Replace(t, ",", ".", 1)
	case strings.Count(t, ".") > 1: // 1.234.567
		t = strings.ReplaceAll(t, ".", "")
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return nil, invalid(field, "price %q is not a number", s)
	}
	return checkPrice(field, f)
}

func checkPrice(field string, f float64) (*float64, *fieldError) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return nil, invalid(field, "price %v must be a finite number >= 0", f)
	}
	return &f, nil
}

func parseInt(field, s string) (int, *fieldError) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, invalid(field, "%q is not an integer", s)
	}
	return int(f), nil
}

// parseBool accepts true/false, sim/não, yes/no, 1/0, ativo/inativo,
// active/inactive, s/n, y/n, in any case and with or without accents.
func parseBool(field, s string) (bool, *fieldError) {
	switch lexical.Normalize(s) {
	case "true", "t", "1", "sim", "s", "yes", "y", "ativo", "ativa", "active", "on":
		return true, nil
	case "false", "f", "0", "nao", "n", "no", "inativo", "inativa", "inactive", "off":
		return false, nil
	}
	return false, invalid(field, "%q is not a boolean", s)
}

// checkID validates a record ID: what the stores accept (storage.ValidID),
// so that a loaded record's ID never fails the write.
func checkID(id string) *fieldError {
	switch {
	case id == "":
		return invalid("id", "empty")
	case len(id) > storage.MaxIDLength:
		return invalid("id", "longer than %d bytes", storage.MaxIDLength)
	case !storage.ValidID(id):
		return invalid("id", "%s holds a control or bidirectional formatting character", storage.QuoteID(id))
	}
	return nil
}

// strReader reads several string fields of one object and keeps the first
// error, so a decoder can read every field and check once.
type strReader struct {
	obj object
	err *fieldError
}

// str returns the string field key, or "" once an error was recorded.
func (r *strReader) str(key string) string {
	if r.err != nil {
		return ""
	}
	s, err := r.obj.str(key)
	r.err = err
	return s
}
