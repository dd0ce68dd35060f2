package llm

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schema is a compiled JSON Schema for tool arguments and structured output.
//
// Compilation and validation are done by github.com/santhosh-tekuri/jsonschema/v6,
// which implements drafts 4, 6, 7, 2019-09 and 2020-12 (the default when
// "$schema" is absent) and reports every violation with the location of the
// value and of the schema keyword that failed. $ref resolves by JSON pointer,
// anchor or $id inside the document; references to other documents are never
// loaded (not from the network, not from files), so a schema that needs one
// does not compile. "format" is checked only where the draft makes it an
// assertion (drafts 4 to 7); "pattern" uses Go's RE2 syntax.
// github.com/google/jsonschema-go infers schemas from Go types (SchemaFor).
//
// This package adds what a model-facing validator needs: short messages at
// the value's location in a deterministic order (see ValidationError), and a
// compile-time rejection of schemas whose references loop without descending
// into the value.
//
// A schema is immutable and safe for concurrent use.
type schema struct {
	raw      json.RawMessage // the schema document, compact
	compiled *sjs.Schema
	// byLocation maps the absolute location of every compiled subschema to
	// it, to phrase a violation from the schema keyword that failed.
	byLocation map[string]*sjs.Schema
}

// schemaURL names the document being compiled; ".invalid" never resolves
// and the loader fetches nothing anyway. Messages show locations relative
// to it ("#/properties/a").
const schemaURL = "https://hybridrag.invalid/schema.json"

// noLoader refuses every document but the one being compiled.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("cannot resolve remote schemas (%s): references to other documents are not loaded", truncate(url, 200))
}

// compileSchema parses and compiles a JSON Schema document. An empty or null
// document compiles to a schema that accepts any JSON value.
//
// Errors wrap ErrInvalidSchema: malformed JSON, a document that is not a
// valid schema for its draft (a wrongly typed keyword, an unknown type name,
// a negative length or count, a non-positive multipleOf, a pattern that is
// not valid RE2; the message names the keyword's location, "#/type: ..."),
// an unresolvable or remote $ref or "$schema", or a cycle of $ref and
// in-place applicators (allOf, anyOf, oneOf, not, if/then/else,
// dependentSchemas) that never descends into the value.
func compileSchema(raw json.RawMessage) (*schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("true")
	}
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, fmt.Errorf("%w: a schema must be a JSON object or a boolean", ErrInvalidSchema)
	}
	c := sjs.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	compiled, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidSchema, compileMessage(err))
	}
	s := &schema{compiled: compiled, byLocation: map[string]*sjs.Schema{}}
	if err := s.checkCycles(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, raw) // raw was decoded above
	s.raw = buf.Bytes()
	return s, nil
}

// SchemaFor infers the JSON Schema of the Go type T, as encoding/json would
// marshal it, and returns the compact schema document, ready for
// ToolDefinition.Parameters or ResponseFormat.Schema. Struct fields become
// properties named by their json tags; fields without omitempty or omitzero
// are required; extra properties are not allowed; a `jsonschema:"..."` tag
// becomes the property's description. Slices and pointers also accept null.
// Types that JSON cannot represent (functions, channels, complex numbers,
// maps without string keys) and recursive types make SchemaFor fail with
// ErrInvalidSchema.
//
// For OpenAI strict mode (ToolDefinition.Strict, ResponseFormat.Strict) every
// field must be required: leave omitempty off.
func SchemaFor[T any]() (json.RawMessage, error) {
	s, err := schemaFor[T]()
	if err != nil {
		return nil, err
	}
	return s.document(), nil
}

// schemaFor infers and compiles the schema of T (see SchemaFor).
func schemaFor[T any]() (*schema, error) {
	inferred, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	raw, err := json.Marshal(inferred)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return compileSchema(raw)
}

// document returns the schema document, compact; for a schema compiled from
// an empty document it is "true". The caller may modify the returned slice.
func (s *schema) document() json.RawMessage { return bytes.Clone(s.raw) }

// objectOnly reports whether the schema admits only JSON objects.
func (s *schema) objectOnly() bool {
	t := s.compiled.Types
	return t != nil && slices.Equal(t.ToStrings(), []string{"object"})
}

// english prints the library's messages for the keywords this package does
// not phrase itself.
var english = message.NewPrinter(language.English)

// compileMessage shortens a compilation error: a document that fails its
// draft's meta-schema becomes its first three violations in location order,
// each at the keyword's location in the document ("#/minLength: minimum:
// got -1, want 0").
func compileMessage(err error) string {
	var se *sjs.SchemaValidationError
	var ve *sjs.ValidationError
	if !errors.As(err, &se) || !errors.As(se.Err, &ve) {
		return strings.ReplaceAll(err.Error(), schemaURL, "")
	}
	var parts []string
	var walk func(e *sjs.ValidationError)
	walk = func(e *sjs.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.AnyOf, *kind.OneOf: // the first alternative says enough
			if len(e.Causes) > 0 {
				walk(e.Causes[0])
				return
			}
		}
		if _, names := e.ErrorKind.(*kind.PropertyNames); names || len(e.Causes) == 0 {
			parts = append(parts, "#"+pointer(e.InstanceLocation)+": "+leafText(e))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(parts)
	parts = slices.Compact(parts)
	return strings.Join(parts[:min(len(parts), 3)], "; ")
}

// leafText is the library's message for e, with the causes of a
// propertyNames failure (the name's own violation) folded in.
func leafText(e *sjs.ValidationError) string {
	msg := e.ErrorKind.LocalizedString(english)
	if _, ok := e.ErrorKind.(*kind.PropertyNames); ok && len(e.Causes) > 0 {
		msg += ": " + leafText(e.Causes[0])
	}
	return msg
}

// pointer renders instance location tokens as a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// subschemas yields the schemas directly inside n, each with whether it
// applies to the same value as n (references and in-place applicators) or
// to a part of it (properties, items, ...).
func subschemas(n *sjs.Schema, yield func(sub *sjs.Schema, inPlace bool)) {
	one := func(sub *sjs.Schema, inPlace bool) {
		if sub != nil {
			yield(sub, inPlace)
		}
	}
	anyOne := func(v any) { // the fields that hold a bool, a *Schema or a []*Schema
		switch t := v.(type) {
		case *sjs.Schema:
			one(t, false)
		case []*sjs.Schema:
			for _, sub := range t {
				one(sub, false)
			}
		}
	}
	for _, sub := range []*sjs.Schema{n.Ref, n.RecursiveRef, n.Not, n.If, n.Then, n.Else} {
		one(sub, true)
	}
	if n.DynamicRef != nil {
		one(n.DynamicRef.Ref, true)
	}
	for _, list := range [][]*sjs.Schema{n.AllOf, n.AnyOf, n.OneOf} {
		for _, sub := range list {
			one(sub, true)
		}
	}
	for _, k := range sortedKeys(n.DependentSchemas) {
		one(n.DependentSchemas[k], true)
	}
	for _, k := range sortedKeys(n.Dependencies) {
		if sub, ok := n.Dependencies[k].(*sjs.Schema); ok {
			one(sub, true)
		}
	}
	for _, k := range sortedKeys(n.Properties) {
		one(n.Properties[k], false)
	}
	for _, sub := range n.PatternProperties {
		one(sub, false)
	}
	for _, sub := range n.PrefixItems {
		one(sub, false)
	}
	anyOne(n.AdditionalProperties)
	anyOne(n.Items)
	anyOne(n.AdditionalItems)
	for _, sub := range []*sjs.Schema{n.PropertyNames, n.UnevaluatedProperties, n.Contains, n.Items2020, n.UnevaluatedItems, n.ContentSchema} {
		one(sub, false)
	}
}

// checkCycles indexes the compiled schemas by location and rejects a cycle of
// in-place edges. The library stops such a cycle while validating, but a
// schema with one would fail every value that reaches it, so it is refused
// up front. A $dynamicRef may also reach any schema with its anchor name.
func (s *schema) checkCycles() error {
	var all []*sjs.Schema
	var index func(n *sjs.Schema)
	index = func(n *sjs.Schema) {
		if _, seen := s.byLocation[n.Location]; seen {
			return
		}
		s.byLocation[n.Location] = n
		all = append(all, n)
		subschemas(n, func(sub *sjs.Schema, _ bool) { index(sub) })
	}
	index(s.compiled)
	const visiting, done = 1, 2
	state := map[*sjs.Schema]int{}
	var visit func(n *sjs.Schema) error
	visit = func(n *sjs.Schema) error {
		switch state[n] {
		case visiting:
			return fmt.Errorf("%s: $ref cycle that never descends into the value (validation would not terminate)", relative(n.Location))
		case done:
			return nil
		}
		state[n] = visiting
		var next []*sjs.Schema
		subschemas(n, func(sub *sjs.Schema, inPlace bool) {
			if inPlace {
				next = append(next, sub)
			}
		})
		if n.DynamicRef != nil && n.DynamicRef.Anchor != "" {
			for _, m := range all {
				if m.DynamicAnchor == n.DynamicRef.Anchor {
					next = append(next, m)
				}
			}
		}
		for _, m := range next {
			if err := visit(m); err != nil {
				return err
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range all {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// relative shows a schema location inside the compiled document as "#/...".
func relative(loc string) string { return strings.TrimPrefix(loc, schemaURL) }

// Violation is one way a JSON value fails a tool's or an answer's JSON
// Schema.
type Violation struct {
	// Path locates the value, e.g. "$.options[1].title".
	Path string
	// Message says what is wrong, e.g. "must be <= 10 (got 12)".
	Message string
	// Keyword locates the schema keyword that failed, as a JSON pointer
	// into the schema document after following $ref, e.g.
	// "#/$defs/option/properties/limit/maximum" (a schema resource with an
	// absolute $id is named by it). Empty for a value that is not valid
	// JSON or breaks the checks every schema makes (numbers beyond float64's
	// range, values nested more than 64 levels deep).
	Keyword string
}

// ValidationError lists why a JSON value does not satisfy a JSON Schema. RunTools
// returns it (wrapped with ErrInvalidArguments) to the model as the tool
// result, so the messages are short and precise.
type ValidationError struct {
	// Violations are the problems found, at most 10, in document order:
	// for each value its missing required properties and its own failure
	// (type, bounds, enum, anyOf, ...), then the problems inside it by
	// property name or array index. Values quoted in messages are cut to
	// 200 bytes, on a UTF-8 boundary.
	Violations []Violation
}

// maxViolations bounds the error text for hostile input.
const maxViolations = 10

// Error implements error: "$.limit: must be <= 10 (got 12); $: ...".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.Path + ": " + v.Message
	}
	return strings.Join(parts, "; ")
}

// validateDoc checks a JSON document against s. It returns a *ValidationError
// when the document is valid JSON that breaks the schema, and a
// *ValidationError with one violation at "$" when it is not JSON at all.
func (s *schema) validateDoc(doc []byte) error {
	v, err := decodeJSON(doc)
	if err != nil {
		return &ValidationError{Violations: []Violation{{Path: "$", Message: "not valid JSON: " + truncate(err.Error(), 200)}}}
	}
	return s.validateValue(v)
}

// validateValue checks a decoded JSON value against s: map[string]any,
// []any, string, bool, nil, and numbers as json.Number (encoding/json with
// UseNumber), float64 or any Go integer type. Integers written as 3.0 count
// as integers. Numbers beyond float64's range, non-finite floats and objects
// or arrays nested more than 64 levels deep are violations whatever the
// schema.
func (s *schema) validateValue(v any) error {
	var bad []Violation
	checkValue(v, "$", 1, &bad)
	if len(bad) > 0 {
		return &ValidationError{Violations: bad}
	}
	err := validate(s.compiled, v)
	if err == nil {
		return nil
	}
	var ve *sjs.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Violations: []Violation{{Path: "$", Message: truncate(err.Error(), 300)}}}
	}
	var out []located
	s.collect(ve, v, &out)
	slices.SortStableFunc(out, compareLocated)
	verr := &ValidationError{}
	for _, l := range out {
		if len(verr.Violations) == maxViolations {
			break
		}
		verr.Violations = append(verr.Violations, l.Violation)
	}
	if len(verr.Violations) == 0 { // cannot happen; never return an empty error
		verr.Violations = []Violation{{Path: "$", Message: truncate(ve.Error(), 300)}}
	}
	return verr
}

// validate runs the library; a panic in it becomes an error.
func validate(s *sjs.Schema, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("validator failed: %v", p)
		}
	}()
	return s.Validate(v)
}

// located is a Violation with the value's location as tokens, for sorting.
type located struct {
	Violation
	loc      []string
	required bool
}

// compareLocated orders violations in document order: a value before its
// parts, properties by name and items by index, and for one value its
// missing properties before its other failures.
func compareLocated(a, b located) int {
	for i := range min(len(a.loc), len(b.loc)) {
		x, errX := strconv.Atoi(a.loc[i])
		y, errY := strconv.Atoi(b.loc[i])
		if errX == nil && errY == nil {
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
		} else if c := strings.Compare(a.loc[i], b.loc[i]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(a.loc), len(b.loc)); c != 0 {
		return c
	}
	if a.required != b.required {
		if a.required {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Message, b.Message)
}

// collect turns the library's tree of errors into violations at the value's
// location. Failed combinators (anyOf, oneOf, not) are one violation at the
// value, not the failures of each alternative.
func (s *schema) collect(e *sjs.ValidationError, root any, out *[]located) {
	path, v := locate(root, e.InstanceLocation)
	keyword := relative(e.SchemaURL) + pointer(e.ErrorKind.KeywordPath())
	add := func(path, msg string, loc []string, required bool) {
		*out = append(*out, located{Violation{path, truncate(msg, 300), keyword}, loc, required})
	}
	rat := func(r *big.Rat) string { f, _ := r.Float64(); return strconv.FormatFloat(f, 'g', -1, 64) }
	count := func(bound string, want int, noun string, got int) string {
		return fmt.Sprintf("must have %s %d %s (got %d)", bound, want, noun, got)
	}
	alternatives := func(pick func(*sjs.Schema) []*sjs.Schema) int {
		if n := s.byLocation[e.SchemaURL]; n != nil {
			return len(pick(n))
		}
		return 0
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, c := range e.Causes {
			s.collect(c, root, out)
		}
	case *kind.Required:
		for _, name := range k.Missing {
			add(path, fmt.Sprintf("missing required property %q", truncate(name, 64)), e.InstanceLocation, true)
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			add(path+"."+truncate(name, 64), "property is not allowed", append(slices.Clone(e.InstanceLocation), name), false)
		}
	case *kind.AdditionalItems:
		arr, _ := v.([]any)
		for i := len(arr) - k.Count; i >= 0 && i < len(arr); i++ {
			add(path+"["+strconv.Itoa(i)+"]", "item is not allowed", append(slices.Clone(e.InstanceLocation), strconv.Itoa(i)), false)
		}
	case *kind.FalseSchema:
		msg := "no value is allowed here"
		if loc := e.SchemaURL; strings.HasSuffix(loc, "/additionalProperties") || strings.HasSuffix(loc, "/unevaluatedProperties") {
			msg = "property is not allowed"
		} else if strings.HasSuffix(loc, "/items") || strings.HasSuffix(loc, "/additionalItems") || strings.HasSuffix(loc, "/unevaluatedItems") {
			msg = "item is not allowed"
		}
		add(path, msg, e.InstanceLocation, false)
	case *kind.Type:
		add(path, fmt.Sprintf("must be %s (got %s)", strings.Join(k.Want, " or "), k.Got), e.InstanceLocation, false)
	case *kind.Enum:
		add(path, fmt.Sprintf("must be one of %s (got %s)", compactJSON(k.Want), compactJSON(v)), e.InstanceLocation, false)
	case *kind.Const:
		add(path, fmt.Sprintf("must be %s (got %s)", compactJSON(k.Want), compactJSON(v)), e.InstanceLocation, false)
	case *kind.Minimum:
		add(path, fmt.Sprintf("must be >= %s (got %s)", rat(k.Want), rat(k.Got)), e.InstanceLocation, false)
	case *kind.Maximum:
		add(path, fmt.Sprintf("must be <= %s (got %s)", rat(k.Want), rat(k.Got)), e.InstanceLocation, false)
	case *kind.ExclusiveMinimum:
		add(path, fmt.Sprintf("must be > %s (got %s)", rat(k.Want), rat(k.Got)), e.InstanceLocation, false)
	case *kind.ExclusiveMaximum:
		add(path, fmt.Sprintf("must be < %s (got %s)", rat(k.Want), rat(k.Got)), e.InstanceLocation, false)
	case *kind.MultipleOf:
		add(path, fmt.Sprintf("must be a multiple of %s (got %s)", rat(k.Want), rat(k.Got)), e.InstanceLocation, false)
	case *kind.MinLength:
		add(path, count("at least", k.Want, "characters", k.Got), e.InstanceLocation, false)
	case *kind.MaxLength:
		add(path, count("at most", k.Want, "characters", k.Got), e.InstanceLocation, false)
	case *kind.MinItems:
		add(path, count("at least", k.Want, "items", k.Got), e.InstanceLocation, false)
	case *kind.MaxItems:
		add(path, count("at most", k.Want, "items", k.Got), e.InstanceLocation, false)
	case *kind.MinProperties:
		add(path, count("at least", k.Want, "properties", k.Got), e.InstanceLocation, false)
	case *kind.MaxProperties:
		add(path, count("at most", k.Want, "properties", k.Got), e.InstanceLocation, false)
	case *kind.Pattern:
		add(path, fmt.Sprintf("must match pattern %q", truncate(k.Want, 200)), e.InstanceLocation, false)
	case *kind.UniqueItems:
		add(path, fmt.Sprintf("must not contain duplicate items (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1]), e.InstanceLocation, false)
	case *kind.Not:
		add(path, `must not match the "not" schema`, e.InstanceLocation, false)
	case *kind.AnyOf:
		n := alternatives(func(n *sjs.Schema) []*sjs.Schema { return n.AnyOf })
		add(path, fmt.Sprintf("must match at least one of %d alternatives", n), e.InstanceLocation, false)
	case *kind.OneOf:
		n := alternatives(func(n *sjs.Schema) []*sjs.Schema { return n.OneOf })
		matched := "none matched"
		if len(k.Subschemas) == 2 {
			matched = fmt.Sprintf("alternatives %d and %d both match", k.Subschemas[0], k.Subschemas[1])
		}
		add(path, fmt.Sprintf("must match exactly one of %d alternatives (%s)", n, matched), e.InstanceLocation, false)
	default: // contains, dependencies, propertyNames, format, a reference cycle, ...
		add(path, strings.ReplaceAll(leafText(e), schemaURL, ""), e.InstanceLocation, false)
	}
}

// locate returns the path ("$.options[1].title") and the value at the
// instance location tokens inside root.
func locate(root any, tokens []string) (string, any) {
	path, v := "$", root
	for _, t := range tokens {
		switch c := v.(type) {
		case []any:
			i, _ := strconv.Atoi(t)
			path += "[" + t + "]"
			if i >= 0 && i < len(c) {
				v = c[i]
			}
		case map[string]any:
			path += "." + truncate(t, 64)
			v = c[t]
		default:
			path += "." + truncate(t, 64)
		}
	}
	return path, v
}

// maxDepth bounds the nesting of validated values (and so the size of the
// library's error tree, whose every node copies the value's location); tool
// arguments and structured answers never nest this deep.
const maxDepth = 64

// checkValue records numbers that do not fit a float64 (callers decode into
// Go numbers), non-finite floats and values nested deeper than maxDepth.
func checkValue(v any, path string, depth int, bad *[]Violation) {
	add := func(msg string) {
		if len(*bad) < maxViolations {
			*bad = append(*bad, Violation{Path: path, Message: msg})
		}
	}
	switch t := v.(type) {
	case map[string]any:
		if depth > maxDepth {
			add(fmt.Sprintf("nested too deeply (more than %d levels)", maxDepth))
			return
		}
		for _, k := range sortedKeys(t) {
			checkValue(t[k], path+"."+truncate(k, 64), depth+1, bad)
		}
	case []any:
		if depth > maxDepth {
			add(fmt.Sprintf("nested too deeply (more than %d levels)", maxDepth))
			return
		}
		for i, e := range t {
			checkValue(e, path+"["+strconv.Itoa(i)+"]", depth+1, bad)
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			add("not a number: " + compactJSON(string(t)))
		case math.IsInf(f, 0):
			add("number out of range (got " + truncate(string(t), 200) + ")")
		}
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			add("must be a finite number")
		}
	case float32:
		checkValue(float64(t), path, depth, bad)
	}
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

// compactJSON renders v for a message, cut to 200 bytes.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return truncate(fmt.Sprint(v), 200)
	}
	return truncate(strings.TrimSuffix(buf.String(), "\n"), 200)
}

// truncate cuts s to at most max bytes plus "…", never inside a UTF-8
// sequence.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
