package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a compiled JSON Schema for tool arguments and structured output.
//
// Parsing, $ref resolution and validation are done by
// github.com/google/jsonschema-go, which implements drafts 2020-12 (the
// default) and 07: all assertion and applicator keywords, and $ref by JSON
// pointer, anchor or $id into $defs, definitions or any other part of the
// document. "format" is an annotation and is not checked; "pattern" uses
// Go's RE2 syntax. References to other documents are not loaded: a schema
// that needs one does not compile.
//
// This package adds what a model-facing validator needs: violations that
// say where in the value it is wrong, in a deterministic order (see
// ValidationError), and a compile-time rejection of schemas that would make
// validation recurse forever.
//
// A Schema is immutable and safe for concurrent use.
type Schema struct {
	raw      json.RawMessage // the schema document, compact
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
	draft7   bool
	// nodes maps the JSON pointer of every subschema ("" for the root) to
	// it. bases, resources, anchors and dynamic resolve references the way
	// the library does: the base URI of each subschema, the pointer of the
	// schema resource named by a URI ($id), anchors by resource pointer +
	// "#" + name, and $dynamicAnchor names to every schema that has one.
	// patterns holds the compiled patternProperties. All are read-only
	// after compilation.
	nodes     map[string]*jsonschema.Schema
	bases     map[string]*url.URL
	resources map[string]string
	anchors   map[string]string
	dynamic   map[string][]string
	patterns  map[string]*regexp.Regexp

	mu  sync.Mutex
	sub map[string]resolvedSub // subschemas resolved on demand, to explain failures
}

// Supported values of "$schema"; an empty one means draft 2020-12.
var supportedDrafts = []string{
	"",
	"https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
}

var knownTypes = []string{"object", "string", "number", "integer", "boolean", "array", "null"}

// CompileSchema parses and resolves a JSON Schema document. An empty or null
// document compiles to a schema that accepts any JSON value.
//
// Errors wrap ErrInvalidSchema: malformed JSON, a wrongly typed keyword, an
// unknown type name, a negative length or count, a non-positive multipleOf, a
// pattern that is not valid RE2, an unresolvable or remote $ref, an
// unsupported "$schema", or a cycle of $ref and in-place applicators (allOf,
// anyOf, oneOf, not, if/then/else, dependentSchemas) that never descends into
// the value, which would make validation recurse forever.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("true")
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	switch v.(type) {
	case map[string]any, bool:
	default:
		return nil, fmt.Errorf("%w: a schema must be a JSON object or a boolean", ErrInvalidSchema)
	}
	root := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, root); err != nil {
		return nil, schemaDecodeError(err)
	}
	if !slices.Contains(supportedDrafts, root.Schema) {
		return nil, fmt.Errorf("%w: unsupported $schema %q (want draft 2020-12 or draft-07)", ErrInvalidSchema, truncate(root.Schema, 100))
	}
	s := &Schema{
		root:      root,
		draft7:    strings.Contains(root.Schema, "draft-07"),
		nodes:     map[string]*jsonschema.Schema{},
		bases:     map[string]*url.URL{},
		resources: map[string]string{"": ""},
		anchors:   map[string]string{},
		dynamic:   map[string][]string{},
		patterns:  map[string]*regexp.Regexp{},
	}
	if err := s.index("", root, &url.URL{}, ""); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	if err := s.checkCycles(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	if s.resolved, err = root.Resolve(nil); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, raw) // raw was decoded above
	s.raw = buf.Bytes()
	return s, nil
}

// SchemaFor infers the JSON Schema of the Go type T, as encoding/json would
// marshal it, and compiles it. Struct fields become properties named by
// their json tags; fields without omitempty or omitzero are required; extra
// properties are not allowed; a `jsonschema:"..."` tag becomes the
// property's description. Slices and pointers also accept null. Types that
// JSON cannot represent (functions, channels, complex numbers, maps without
// string keys) and recursive types make SchemaFor fail with
// ErrInvalidSchema.
//
// For OpenAI strict mode (ToolDefinition.Strict, ResponseFormat.Strict) every
// field must be required: leave omitempty off.
func SchemaFor[T any]() (*Schema, error) {
	inferred, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	raw, err := json.Marshal(inferred)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return CompileSchema(raw)
}

// JSON returns the schema document, compact; for a schema compiled from an
// empty document it is "true". Use it as ToolDefinition.Parameters or
// ResponseFormat.Schema. The caller may modify the returned slice.
func (s *Schema) JSON() json.RawMessage { return bytes.Clone(s.raw) }

// MarshalJSON implements json.Marshaler with the schema document.
func (s *Schema) MarshalJSON() ([]byte, error) { return s.JSON(), nil }

// schemaDecodeError turns the error of unmarshaling a schema into a short
// ErrInvalidSchema (the library's type errors name internal Go types).
func schemaDecodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		if field == "" {
			return fmt.Errorf("%w: a JSON %s is not a schema", ErrInvalidSchema, te.Value)
		}
		return fmt.Errorf("%w: keyword %q cannot be a JSON %s", ErrInvalidSchema, field, te.Value)
	}
	return fmt.Errorf("%w: %w", ErrInvalidSchema, err)
}

// subschemas yields every schema directly inside s with the JSON pointer
// segments that lead to it ("/properties/name"), in a fixed order.
func subschemas(s *jsonschema.Schema) iter.Seq2[string, *jsonschema.Schema] {
	return func(yield func(string, *jsonschema.Schema) bool) {
		one := func(kw string, sub *jsonschema.Schema) bool {
			return sub == nil || yield("/"+kw, sub)
		}
		list := func(kw string, subs []*jsonschema.Schema) bool {
			for i, sub := range subs {
				if !one(kw+"/"+strconv.Itoa(i), sub) {
					return false
				}
			}
			return true
		}
		dict := func(kw string, subs map[string]*jsonschema.Schema) bool {
			for _, k := range sortedKeys(subs) {
				if !one(kw+"/"+escapePointer(k), subs[k]) {
					return false
				}
			}
			return true
		}
		_ = dict("$defs", s.Defs) && dict("definitions", s.Definitions) &&
			dict("properties", s.Properties) && dict("patternProperties", s.PatternProperties) &&
			one("additionalProperties", s.AdditionalProperties) && one("propertyNames", s.PropertyNames) &&
			one("unevaluatedProperties", s.UnevaluatedProperties) &&
			dict("dependentSchemas", s.DependentSchemas) && dict("dependencies", s.DependencySchemas) &&
			list("prefixItems", s.PrefixItems) && one("items", s.Items) && list("items", s.ItemsArray) &&
			one("additionalItems", s.AdditionalItems) && one("contains", s.Contains) &&
			one("unevaluatedItems", s.UnevaluatedItems) &&
			list("allOf", s.AllOf) && list("anyOf", s.AnyOf) && list("oneOf", s.OneOf) && one("not", s.Not) &&
			one("if", s.If) && one("then", s.Then) && one("else", s.Else) && one("contentSchema", s.ContentSchema)
	}
}

// index records n at ptr, with the base URI and resource it inherits, and
// checks what the library leaves to its meta-schema: type names,
// non-negative counts, multipleOf and patterns.
func (s *Schema) index(ptr string, n *jsonschema.Schema, base *url.URL, resource string) error {
	at := "#" + ptr
	s.nodes[ptr] = n
	draft7Anchor := s.draft7 && strings.HasPrefix(n.ID, "#")
	if n.ID != "" && !draft7Anchor && !(s.draft7 && n.Ref != "") {
		id, err := url.Parse(n.ID)
		if err != nil {
			return fmt.Errorf("%s/$id: %w", at, err)
		}
		base = base.ResolveReference(id)
		base.Fragment, base.RawFragment = "", ""
		resource = ptr
		s.resources[base.String()] = ptr
	}
	s.bases[ptr] = base
	if n.Anchor != "" {
		s.anchors[resource+"#"+n.Anchor] = ptr
	}
	if n.DynamicAnchor != "" {
		s.anchors[resource+"#"+n.DynamicAnchor] = ptr
		s.dynamic[n.DynamicAnchor] = append(s.dynamic[n.DynamicAnchor], ptr)
	}
	if draft7Anchor {
		s.anchors[resource+n.ID] = ptr
	}
	for _, t := range append([]string{n.Type}, n.Types...) {
		if t != "" && !slices.Contains(knownTypes, t) {
			return fmt.Errorf("%s/type: unknown type %q", at, truncate(t, 100))
		}
	}
	for kw, v := range map[string]*int{
		"minLength": n.MinLength, "maxLength": n.MaxLength, "minItems": n.MinItems, "maxItems": n.MaxItems,
		"minProperties": n.MinProperties, "maxProperties": n.MaxProperties,
		"minContains": n.MinContains, "maxContains": n.MaxContains,
	} {
		if v != nil && *v < 0 {
			return fmt.Errorf("%s/%s: must be a non-negative integer", at, kw)
		}
	}
	if n.MultipleOf != nil && !(*n.MultipleOf > 0) {
		return fmt.Errorf("%s/multipleOf: must be greater than 0", at)
	}
	if n.Pattern != "" {
		if _, err := regexp.Compile(n.Pattern); err != nil {
			return fmt.Errorf("%s/pattern: %w", at, err)
		}
	}
	for _, re := range sortedKeys(n.PatternProperties) {
		c, err := regexp.Compile(re)
		if err != nil {
			return fmt.Errorf("%s/patternProperties: %w", at, err)
		}
		s.patterns[re] = c
	}
	for seg, sub := range subschemas(n) {
		if err := s.index(ptr+seg, sub, base, resource); err != nil {
			return err
		}
	}
	return nil
}

// lookupRef returns the pointer of the subschema that ref, written in the
// subschema at from, names: resolved against from's base URI, then a JSON
// pointer or an anchor inside the schema resource that the URI names. It
// reports false for a reference outside the document.
func (s *Schema) lookupRef(from, ref string) (string, bool) {
	if ref == "" {
		return "", false
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	u := s.bases[from].ResolveReference(r)
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	res, ok := s.resources[u.String()]
	if !ok {
		return "", false
	}
	if frag == "" || frag[0] == '/' {
		return s.derefPointer(res, frag)
	}
	ptr, ok := s.anchors[res+"#"+frag]
	return ptr, ok
}

// derefPointer returns the canonical pointer (as index builds it) of the
// subschema at the JSON pointer frag inside the subschema at res. It reads
// array indexes the way the library does, so "/allOf/+0" is "/allOf/0".
func (s *Schema) derefPointer(res, frag string) (string, bool) {
	if frag == "" {
		return res, true
	}
	segs := strings.Split(frag[1:], "/")
	ptr := res
	for i := 0; i < len(segs); i++ {
		n := s.nodes[ptr]
		kw := segs[i]
		switch {
		case kw == "$defs" || kw == "definitions" || kw == "properties" || kw == "patternProperties" ||
			kw == "dependentSchemas" || kw == "dependencies":
			if i++; i == len(segs) {
				return "", false
			}
			key := strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i])
			ptr += "/" + kw + "/" + escapePointer(key)
		case kw == "allOf" || kw == "anyOf" || kw == "oneOf" || kw == "prefixItems" || (kw == "items" && n.Items == nil):
			if i++; i == len(segs) {
				return "", false
			}
			idx, err := strconv.Atoi(segs[i])
			if err != nil || idx < 0 || (len(segs[i]) > 1 && segs[i][0] == '0') {
				return "", false
			}
			ptr += "/" + kw + "/" + strconv.Itoa(idx)
		default:
			ptr += "/" + kw
		}
		if _, ok := s.nodes[ptr]; !ok {
			return "", false
		}
	}
	return ptr, true
}

// inPlaceEdges returns the pointers of the schemas that apply to the same
// value as the schema at ptr: its references (a $dynamicRef may also reach
// any schema with the same $dynamicAnchor) and in-place applicators.
func (s *Schema) inPlaceEdges(ptr string) []string {
	n := s.nodes[ptr]
	var out []string
	for _, ref := range []string{n.Ref, n.DynamicRef} {
		if t, ok := s.lookupRef(ptr, ref); ok {
			out = append(out, t)
		}
	}
	if _, frag, ok := strings.Cut(n.DynamicRef, "#"); ok {
		out = append(out, s.dynamic[frag]...)
	}
	for seg := range subschemas(n) {
		kw, _, _ := strings.Cut(seg[1:], "/")
		switch kw {
		case "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies":
			out = append(out, ptr+seg)
		}
	}
	return out
}

// checkCycles rejects a cycle of in-place edges: the library would follow it
// without end and overflow the stack, which no recover can catch.
func (s *Schema) checkCycles() error {
	const (
		visiting = 1
		done     = 2
	)
	state := make(map[string]int, len(s.nodes))
	var visit func(ptr string) error
	visit = func(ptr string) error {
		switch state[ptr] {
		case visiting:
			return fmt.Errorf("#%s: $ref cycle that never descends into the value (validation would not terminate)", ptr)
		case done:
			return nil
		}
		state[ptr] = visiting
		for _, next := range s.inPlaceEdges(ptr) {
			if err := visit(next); err != nil {
				return err
			}
		}
		state[ptr] = done
		return nil
	}
	for _, ptr := range sortedKeys(s.nodes) {
		if err := visit(ptr); err != nil {
			return err
		}
	}
	return nil
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
	// Violations are the problems found, at most 10, in document order:
	// for each value its missing required properties and its own failure
	// (type, bounds, enum, anyOf, ...), then the problems inside it by
	// property name or array index. Values quoted in messages are cut to
	// 200 bytes, on a UTF-8 boundary.
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
		return &ValidationError{Violations: []Violation{{Path: "$", Message: "not valid JSON: " + truncate(err.Error(), 200)}}}
	}
	return s.ValidateValue(v)
}

// ValidateValue checks a decoded JSON value against s: map[string]any,
// []any, string, bool, nil, and numbers as json.Number (encoding/json with
// UseNumber), float64 or any Go integer type. Integers written as 3.0 count
// as integers. Numbers beyond float64's range, non-finite floats and objects
// or arrays nested more than 64 levels deep are violations whatever the
// schema.
func (s *Schema) ValidateValue(v any) error {
	var bad []Violation
	v = normalize(v, "$", 1, &bad)
	if len(bad) > 0 {
		return &ValidationError{Violations: bad}
	}
	err := s.validateAt("", v)
	if err == nil {
		return nil
	}
	r := reporter{s: s}
	r.report("", v, "$")
	if len(r.out) == 0 { // cannot happen; never return an empty error
		r.add("$", truncate(leafMessage(err), 300))
	}
	return &ValidationError{Violations: r.out}
}

// validateAt validates v against the subschema at ptr with the library; a
// panic in the library becomes an error.
func (s *Schema) validateAt(ptr string, v any) error {
	if ptr == "" {
		return validate(s.resolved, v)
	}
	rs, err := s.subschema(ptr, false)
	if err != nil {
		return err
	}
	return validate(rs, v)
}

func validate(rs *jsonschema.Resolved, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("validator failed: %v", p)
		}
	}()
	return rs.Validate(v)
}

// subschemaBase names the root document for the references of subschema
// wrappers; ".invalid" never resolves, and nothing is fetched.
const subschemaBase = "https://hybridrag.invalid/schema.json"

// subschema returns the subschema at ptr resolved on its own: a wrapper that
// refers into a private copy of the root, so that the subschema's own
// references still resolve. With shallow, the wrapper instead requires
// copies of ptr and of its conjuncts, added to the copy's $defs, without
// required and the keywords that apply to properties and items: only the
// value's own constraints remain. Results, failures included, are cached;
// this runs only to explain a failure.
func (s *Schema) subschema(ptr string, shallow bool) (*jsonschema.Resolved, error) {
	key := ptr
	if shallow {
		key = "shallow:" + ptr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.sub[key]; ok {
		return r.rs, r.err
	}
	ref := func(p string) string {
		u, _ := url.Parse(subschemaBase) // a constant
		u.Fragment = p
		return u.String()
	}
	wrapper := &jsonschema.Schema{Schema: s.root.Schema}
	group := s.conjuncts(ptr)
	if shallow {
		for i := range group {
			wrapper.AllOf = append(wrapper.AllOf, &jsonschema.Schema{Ref: ref(s.shallowDefs() + strconv.Itoa(i))})
		}
	} else {
		wrapper.Ref = ref(ptr)
	}
	rs, err := wrapper.Resolve(&jsonschema.ResolveOptions{Loader: func(*url.URL) (*jsonschema.Schema, error) {
		clone := s.root.CloneSchemas() // private: Resolve may write to what it loads
		if !shallow {
			return clone, nil
		}
		nodes := map[string]*jsonschema.Schema{}
		walkSchemas("", clone, func(p string, n *jsonschema.Schema) { nodes[p] = n })
		defs := &clone.Defs
		if clone.Definitions != nil {
			defs = &clone.Definitions
		}
		if *defs == nil {
			*defs = map[string]*jsonschema.Schema{}
		}
		for i, p := range group {
			c := nodes[p].CloneSchemas()
			c.ID, c.Anchor, c.DynamicAnchor, c.Defs, c.Definitions = "", "", "", nil, nil
			c.Ref, c.AllOf, c.Required = "", nil, nil // the conjuncts are copied themselves
			c.Properties, c.PatternProperties, c.AdditionalProperties = nil, nil, nil
			c.Items, c.ItemsArray, c.PrefixItems, c.AdditionalItems = nil, nil, nil, nil
			(*defs)[shallowName+strconv.Itoa(i)] = c
		}
		return clone, nil
	}})
	if s.sub == nil {
		s.sub = map[string]resolvedSub{}
	}
	s.sub[key] = resolvedSub{rs, err}
	return rs, err
}

// resolvedSub is a cached result of Schema.subschema.
type resolvedSub struct {
	rs  *jsonschema.Resolved
	err error
}

// shallowName prefixes the names of the copies that subschema(ptr, true)
// adds to the root's $defs, followed by the conjunct's index.
const shallowName = "hybridrag-shallow-"

// shallowDefs returns the JSON pointer prefix of those copies.
func (s *Schema) shallowDefs() string {
	if s.root.Definitions != nil {
		return "/definitions/" + shallowName
	}
	return "/$defs/" + shallowName
}

// walkSchemas calls fn for n, at ptr, and every schema inside it.
func walkSchemas(ptr string, n *jsonschema.Schema, fn func(ptr string, n *jsonschema.Schema)) {
	fn(ptr, n)
	for seg, sub := range subschemas(n) {
		walkSchemas(ptr+seg, sub, fn)
	}
}

// maxDepth bounds the nesting of validated values. Explaining a failure
// re-validates each level's parts, and the library's error text grows with
// the depth, so the cost of a failure grows with the square of the depth;
// tool arguments and structured answers never nest this deep.
const maxDepth = 64

// normalize returns v with json.Number replaced by int64 or float64 (the
// library reads json.Number as a string) and records numbers that do not fit
// a float64 and values nested deeper than maxDepth.
func normalize(v any, path string, depth int, bad *[]Violation) any {
	if depth > maxDepth {
		switch v.(type) {
		case map[string]any, []any:
			addViolation(bad, path, fmt.Sprintf("nested too deeply (more than %d levels)", maxDepth))
			return v
		}
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for _, k := range sortedKeys(t) {
			out[k] = normalize(t[k], path+"."+truncate(k, 64), depth+1, bad)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e, path+"["+strconv.Itoa(i)+"]", depth+1, bad)
		}
		return out
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			addViolation(bad, path, "not a number: "+compactJSON(string(t)))
			return v
		}
		if math.IsInf(f, 0) {
			addViolation(bad, path, "number out of range (got "+truncate(string(t), 200)+")")
		}
		return f
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			addViolation(bad, path, "must be a finite number")
		}
	case float32:
		return normalize(float64(t), path, depth, bad)
	}
	return v
}

func addViolation(out *[]Violation, path, msg string) {
	if len(*out) < maxViolations {
		*out = append(*out, Violation{Path: path, Message: msg})
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

// escapePointer escapes a JSON pointer segment (RFC 6901).
func escapePointer(seg string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(seg)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
