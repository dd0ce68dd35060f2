package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Schema is a compiled JSON Schema for tool arguments and structured output.
// It enforces the subset that tool definitions use:
//
//   - type (a name or a list of names: object, string, number, integer,
//     boolean, array, null)
//   - properties, required, additionalProperties (false or a schema)
//   - enum, const
//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum
//   - minLength, maxLength (counted in Unicode code points), pattern (RE2)
//   - items, minItems, maxItems
//   - anyOf, oneOf, allOf
//
// Annotations (title, description, default, examples, format, $schema, $id,
// $defs, ...) and unknown keywords are ignored. Assertion keywords outside the
// subset ($ref, not, if/then/else, patternProperties, multipleOf, ...) make
// CompileSchema fail with ErrInvalidSchema instead of being silently skipped.
//
// A Schema is immutable and safe for concurrent use.
type Schema struct {
	types            []string
	properties       map[string]*Schema
	required         []string
	additional       *Schema // nil: any extra property allowed
	noAdditional     bool
	enum             []any
	hasConst         bool
	constVal         any
	minimum          *float64
	maximum          *float64
	exclusiveMinimum *float64
	exclusiveMaximum *float64
	minLength        int
	maxLength        int // -1: unbounded
	pattern          *regexp.Regexp
	items            *Schema
	minItems         int
	maxItems         int // -1: unbounded
	anyOf            []*Schema
	oneOf            []*Schema
	allOf            []*Schema
	never            bool
}

// unsupportedKeywords are assertions this validator does not implement.
var unsupportedKeywords = []string{
	"$ref", "$dynamicRef", "not", "if", "then", "else", "patternProperties",
	"propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
	"contains", "prefixItems", "unevaluatedProperties", "unevaluatedItems",
	"multipleOf", "minProperties", "maxProperties", "uniqueItems",
}

var knownTypes = []string{"object", "string", "number", "integer", "boolean", "array", "null"}

// CompileSchema parses a JSON Schema. An empty or null document compiles to a
// schema that accepts any JSON value. Errors wrap ErrInvalidSchema.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return &Schema{maxLength: -1, maxItems: -1}, nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return compile(v, "#")
}

func compile(v any, at string) (*Schema, error) {
	if b, ok := v.(bool); ok {
		s := &Schema{maxLength: -1, maxItems: -1}
		s.never = !b // the schema "false" accepts nothing
		return s, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s: a schema must be an object or a boolean", ErrInvalidSchema, at)
	}
	for _, k := range unsupportedKeywords {
		if _, ok := m[k]; ok {
			return nil, fmt.Errorf("%w: %s: keyword %q is not supported", ErrInvalidSchema, at, k)
		}
	}
	s := &Schema{maxLength: -1, maxItems: -1}
	bad := func(kw, want string) error {
		return fmt.Errorf("%w: %s/%s: must be %s", ErrInvalidSchema, at, kw, want)
	}
	if t, ok := m["type"]; ok {
		switch t := t.(type) {
		case string:
			s.types = []string{t}
		case []any:
			for _, e := range t {
				name, ok := e.(string)
				if !ok {
					return nil, bad("type", "a type name or a list of type names")
				}
				s.types = append(s.types, name)
			}
		default:
			return nil, bad("type", "a type name or a list of type names")
		}
		for _, name := range s.types {
			if !slices.Contains(knownTypes, name) {
				return nil, fmt.Errorf("%w: %s/type: unknown type %q", ErrInvalidSchema, at, name)
			}
		}
	}
	if p, ok := m["properties"]; ok {
		pm, ok := p.(map[string]any)
		if !ok {
			return nil, bad("properties", "an object")
		}
		s.properties = make(map[string]*Schema, len(pm))
		for name, sub := range pm {
			cs, err := compile(sub, at+"/properties/"+name)
			if err != nil {
				return nil, err
			}
			s.properties[name] = cs
		}
	}
	if r, ok := m["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return nil, bad("required", "a list of property names")
		}
		for _, e := range list {
			name, ok := e.(string)
			if !ok {
				return nil, bad("required", "a list of property names")
			}
			s.required = append(s.required, name)
		}
	}
	if a, ok := m["additionalProperties"]; ok {
		if b, ok := a.(bool); ok {
			s.noAdditional = !b
		} else {
			cs, err := compile(a, at+"/additionalProperties")
			if err != nil {
				return nil, err
			}
			s.additional = cs
		}
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return nil, bad("enum", "a non-empty list")
		}
		s.enum = list
	}
	if c, ok := m["const"]; ok {
		s.hasConst, s.constVal = true, c
	}
	for kw, dst := range map[string]**float64{
		"minimum": &s.minimum, "maximum": &s.maximum,
		"exclusiveMinimum": &s.exclusiveMinimum, "exclusiveMaximum": &s.exclusiveMaximum,
	} {
		if v, ok := m[kw]; ok {
			f, ok := toFloat(v)
			if !ok {
				return nil, bad(kw, "a number")
			}
			*dst = &f
		}
	}
	for kw, dst := range map[string]*int{
		"minLength": &s.minLength, "maxLength": &s.maxLength,
		"minItems": &s.minItems, "maxItems": &s.maxItems,
	} {
		if v, ok := m[kw]; ok {
			f, ok := toFloat(v)
			if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
				return nil, bad(kw, "a non-negative integer")
			}
			*dst = int(f)
		}
	}
	if p, ok := m["pattern"]; ok {
		str, ok := p.(string)
		if !ok {
			return nil, bad("pattern", "a string")
		}
		re, err := regexp.Compile(str)
		if err != nil {
			return nil, fmt.Errorf("%w: %s/pattern: %w", ErrInvalidSchema, at, err)
		}
		s.pattern = re
	}
	if it, ok := m["items"]; ok {
		cs, err := compile(it, at+"/items")
		if err != nil {
			return nil, err
		}
		s.items = cs
	}
	for kw, dst := range map[string]*[]*Schema{"anyOf": &s.anyOf, "oneOf": &s.oneOf, "allOf": &s.allOf} {
		if v, ok := m[kw]; ok {
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, bad(kw, "a non-empty list of schemas")
			}
			out := make([]*Schema, 0, len(list))
			for i, sub := range list {
				cs, err := compile(sub, at+"/"+kw+"/"+strconv.Itoa(i))
				if err != nil {
					return nil, err
				}
				out = append(out, cs)
			}
			*dst = out
		}
	}
	return s, nil
}

// Violation is one way a JSON value fails a Schema.
type Violation struct {
	// Path locates the value, e.g. "$.options[1].title".
	Path string
	// Message says what is wrong, e.g. "must be <= 10 (got 12)".
	Message string
}

// ValidationError lists why a JSON value does not satisfy a Schema. RunTools
// returns it (wrapped with ErrInvalidArguments) to the model as the tool
// result, so the messages are short and precise.
type ValidationError struct {
	// Violations are the problems found, at most 10.
	Violations []Violation
}

// maxViolations bounds the work and the error text for hostile input.
const maxViolations = 10

// Error implements error: "$.limit: must be <= 10 (got 12); $: ...".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.Path + ": " + v.Message
	}
	return strings.Join(parts, "; ")
}

// Validate checks a JSON document against s. It returns a *ValidationError
// when the document is valid JSON that breaks the schema, and a
// *ValidationError with one violation at "$" when it is not JSON at all.
func (s *Schema) Validate(doc []byte) error {
	v, err := decodeJSON(doc)
	if err != nil {
		return &ValidationError{Violations: []Violation{{Path: "$", Message: "not valid JSON: " + err.Error()}}}
	}
	return s.ValidateValue(v)
}

// ValidateValue checks a decoded JSON value (as produced by encoding/json
// with UseNumber: map[string]any, []any, string, json.Number, bool, nil;
// float64 and int are accepted too) against s.
func (s *Schema) ValidateValue(v any) error {
	var c checker
	c.check(s, v, "$")
	if len(c.out) == 0 {
		return nil
	}
	return &ValidationError{Violations: c.out}
}

type checker struct{ out []Violation }

func (c *checker) add(path, format string, args ...any) {
	if len(c.out) < maxViolations {
		c.out = append(c.out, Violation{Path: path, Message: fmt.Sprintf(format, args...)})
	}
}

func (c *checker) full() bool { return len(c.out) >= maxViolations }

func (c *checker) check(s *Schema, v any, path string) {
	if c.full() {
		return
	}
	if s.never {
		c.add(path, "no value is allowed here")
		return
	}
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		c.add(path, "must be %s (got %s)", strings.Join(s.types, " or "), typeName(v))
		return
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return jsonEqual(e, v) }) {
		c.add(path, "must be one of %s (got %s)", compactJSON(s.enum), compactJSON(v))
	}
	if s.hasConst && !jsonEqual(s.constVal, v) {
		c.add(path, "must be %s (got %s)", compactJSON(s.constVal), compactJSON(v))
	}
	switch v := v.(type) {
	case map[string]any:
		c.checkObject(s, v, path)
	case []any:
		if len(v) < s.minItems {
			c.add(path, "must have at least %d items (got %d)", s.minItems, len(v))
		}
		if s.maxItems >= 0 && len(v) > s.maxItems {
			c.add(path, "must have at most %d items (got %d)", s.maxItems, len(v))
		}
		if s.items != nil {
			for i, e := range v {
				c.check(s.items, e, path+"["+strconv.Itoa(i)+"]")
			}
		}
	case string:
		n := utf8.RuneCountInString(v)
		if n < s.minLength {
			c.add(path, "must have at least %d characters (got %d)", s.minLength, n)
		}
		if s.maxLength >= 0 && n > s.maxLength {
			c.add(path, "must have at most %d characters (got %d)", s.maxLength, n)
		}
		if s.pattern != nil && !s.pattern.MatchString(v) {
			c.add(path, "must match pattern %q", s.pattern.String())
		}
	default:
		if f, ok := toFloat(v); ok {
			c.checkNumber(s, f, path)
		}
	}
	c.checkCombinators(s, v, path)
}

func (c *checker) checkObject(s *Schema, v map[string]any, path string) {
	for _, name := range s.required {
		if _, ok := v[name]; !ok {
			c.add(path, "missing required property %q", name)
		}
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic messages
	for _, k := range keys {
		sub := path + "." + k
		if ps, ok := s.properties[k]; ok {
			c.check(ps, v[k], sub)
			continue
		}
		switch {
		case s.noAdditional:
			c.add(sub, "property is not allowed")
		case s.additional != nil:
			c.check(s.additional, v[k], sub)
		}
	}
}

func (c *checker) checkNumber(s *Schema, f float64, path string) {
	got := strconv.FormatFloat(f, 'g', -1, 64)
	if s.minimum != nil && f < *s.minimum {
		c.add(path, "must be >= %s (got %s)", fmtNum(*s.minimum), got)
	}
	if s.maximum != nil && f > *s.maximum {
		c.add(path, "must be <= %s (got %s)", fmtNum(*s.maximum), got)
	}
	if s.exclusiveMinimum != nil && f <= *s.exclusiveMinimum {
		c.add(path, "must be > %s (got %s)", fmtNum(*s.exclusiveMinimum), got)
	}
	if s.exclusiveMaximum != nil && f >= *s.exclusiveMaximum {
		c.add(path, "must be < %s (got %s)", fmtNum(*s.exclusiveMaximum), got)
	}
}

func (c *checker) checkCombinators(s *Schema, v any, path string) {
	for _, sub := range s.allOf {
		c.check(sub, v, path)
	}
	if s.anyOf != nil {
		if !slices.ContainsFunc(s.anyOf, func(sub *Schema) bool { return sub.ValidateValue(v) == nil }) {
			c.add(path, "must match at least one of %d alternatives", len(s.anyOf))
		}
	}
	if s.oneOf != nil {
		n := 0
		for _, sub := range s.oneOf {
			if sub.ValidateValue(v) == nil {
				n++
			}
		}
		if n != 1 {
			c.add(path, "must match exactly one of %d alternatives (matched %d)", len(s.oneOf), n)
		}
	}
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := toFloat(v)
		return ok
	case "integer":
		f, ok := toFloat(v)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	}
	return false
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	if _, ok := toFloat(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		// Out-of-range numbers parse to ±Inf, which still compare correctly.
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil || errors.Is(err, strconv.ErrRange)
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// jsonEqual compares decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	return reflect.DeepEqual(normalizeNumbers(a), normalizeNumbers(b))
}

func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalizeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalizeNumbers(e)
		}
		return out
	}
	if f, ok := toFloat(v); ok {
		return f
	}
	return v
}

// compactJSON renders v for a message, truncated to 200 bytes.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// decodeJSON decodes exactly one JSON value with UseNumber.
func decodeJSON(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty document")
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}
