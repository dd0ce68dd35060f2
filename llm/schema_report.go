package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// This file explains a failed validation. Whether a value is valid is always
// the library's answer, but the library reports only its first failure, as
// text, without the value's location, and visits properties in random order
// (google/jsonschema-go issue 53). The reporter walks the value instead: for
// each value it asks the library about the value's own constraints (a copy
// of the subschema without the keywords for properties and items) and then
// about each property and item in a fixed order, descending into the ones
// that fail, and phrases each failure from the typed subschema.

// reporter collects the Violations of one failed validation.
type reporter struct {
	s   *Schema
	out []Violation
}

func (r *reporter) add(path, msg string) { addViolation(&r.out, path, msg) }

func (r *reporter) full() bool { return len(r.out) >= maxViolations }

// report records why v, which fails the subschema at ptr, fails it: the
// object's missing required properties, the failure of v's own constraints
// (type, bounds, combinators, ...), then each failing part, by property name
// or index.
func (r *reporter) report(ptr string, v any, path string) {
	group := r.s.conjuncts(ptr)
	before := len(r.out)
	if obj, ok := v.(map[string]any); ok {
		seen := map[string]bool{}
		for _, p := range group {
			for _, name := range r.s.nodes[p].Required {
				if _, ok := obj[name]; !ok && !seen[name] {
					seen[name] = true
					r.add(path, fmt.Sprintf("missing required property %q", truncate(name, 64)))
				}
			}
		}
	}
	// unevaluatedProperties and unevaluatedItems depend on the parts, so
	// with them v's own failure is reported only when no part fails.
	separable := !slices.ContainsFunc(group, func(p string) bool {
		n := r.s.nodes[p]
		return n.UnevaluatedProperties != nil || n.UnevaluatedItems != nil
	})
	if separable {
		if rs, err := r.s.subschema(ptr, true); err == nil {
			if err := validate(rs, v); err != nil {
				r.local(group, err, v, path)
			}
		}
	}
	reported := map[string]bool{}
	for _, c := range r.s.parts(group, v, path) {
		if r.full() {
			return
		}
		if !reported[c.path] && r.s.validateAt(c.ptr, c.value) != nil {
			reported[c.path] = true
			r.report(c.ptr, c.value, c.path)
		}
	}
	if len(r.out) == before {
		r.local(group, r.s.validateAt(ptr, v), v, path)
	}
}

// conjuncts returns ptr and the subschemas that must hold for the same value
// with it: local $ref targets and allOf members, recursively. (Draft-07
// ignores the keywords beside a $ref.)
func (s *Schema) conjuncts(ptr string) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(p string)
	visit = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		n := s.nodes[p]
		ignoreSiblings := s.draft7 && n.Ref != ""
		if !ignoreSiblings {
			out = append(out, p)
		}
		if t, ok := s.lookupRef(p, n.Ref); ok {
			visit(t)
		}
		if !ignoreSiblings {
			for i := range n.AllOf {
				visit(p + "/allOf/" + strconv.Itoa(i))
			}
		}
	}
	visit(ptr)
	return out
}

// part is a property value or array item with the subschema it must satisfy.
type part struct {
	ptr, path string
	value     any
}

// parts lists the parts of v with the subschemas of group that apply to
// them, properties by name and items by index.
func (s *Schema) parts(group []string, v any, path string) []part {
	var out []part
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			kp := path + "." + truncate(k, 64)
			for _, p := range group {
				n := s.nodes[p]
				matched := false
				if _, ok := n.Properties[k]; ok {
					out = append(out, part{p + "/properties/" + escapePointer(k), kp, t[k]})
					matched = true
				}
				for _, re := range sortedKeys(n.PatternProperties) {
					if s.patterns[re].MatchString(k) {
						out = append(out, part{p + "/patternProperties/" + escapePointer(re), kp, t[k]})
						matched = true
					}
				}
				if !matched && n.AdditionalProperties != nil {
					out = append(out, part{p + "/additionalProperties", kp, t[k]})
				}
			}
		}
	case []any:
		for i, e := range t {
			ip := path + "[" + strconv.Itoa(i) + "]"
			for _, p := range group {
				n := s.nodes[p]
				switch {
				case s.draft7 && n.ItemsArray != nil && i < len(n.ItemsArray):
					out = append(out, part{p + "/items/" + strconv.Itoa(i), ip, e})
				case s.draft7 && n.ItemsArray != nil && n.AdditionalItems != nil:
					out = append(out, part{p + "/additionalItems", ip, e})
				case !s.draft7 && i < len(n.PrefixItems):
					out = append(out, part{p + "/prefixItems/" + strconv.Itoa(i), ip, e})
				case n.Items != nil:
					out = append(out, part{p + "/items", ip, e})
				}
			}
		}
	}
	return out
}

// local records err, the library's report of v failing a subschema whose
// conjuncts are group.
func (r *reporter) local(group []string, err error, v any, path string) {
	if err == nil {
		return
	}
	loc, leaf := splitValidationError(err)
	if loc == "root" || (loc == r.s.root.ID && loc != "") {
		loc = ""
	}
	if rest, ok := strings.CutPrefix(loc, r.s.shallowDefs()); ok { // a copy made by subschema
		num, tail, _ := strings.Cut(rest, "/")
		if i, err := strconv.Atoi(num); err == nil && i < len(group) {
			loc = group[i]
			if tail != "" {
				loc += "/" + tail
			}
		}
	}
	kw, _, _ := strings.Cut(leaf, ":")
	n, known := r.s.nodes[loc]
	switch {
	case !known:
	case kw == "not" && isFalseSchema(n.Not):
		r.add(path, falseSchemaMessage(loc))
		return
	case slices.Contains(group, loc):
		if msg := r.s.phrase(kw, loc, n, v); msg != "" {
			r.add(path, msg)
			return
		}
	}
	r.add(path, truncate(leaf, 300))
}

// splitValidationError returns the innermost schema location the library
// names ("validating /properties/a: ...") and its innermost message.
func splitValidationError(err error) (loc, leaf string) {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return loc, err.Error()
		}
		if prefix, ok := strings.CutSuffix(err.Error(), ": "+inner.Error()); ok {
			if at, ok := strings.CutPrefix(prefix, "validating "); ok {
				loc = at
			}
		}
		err = inner
	}
}

// leafMessage returns the innermost message of a library validation error.
func leafMessage(err error) string {
	_, leaf := splitValidationError(err)
	return leaf
}

// phrase words the failure of keyword kw of the subschema n (at ptr) for v,
// or returns "" to use the library's text.
func (s *Schema) phrase(kw, ptr string, n *jsonschema.Schema, v any) string {
	count := func(kw string, limit *int, noun string, got int) string {
		if limit == nil {
			return ""
		}
		bound := "at least"
		if strings.HasPrefix(kw, "max") {
			bound = "at most"
		}
		return fmt.Sprintf("must have %s %d %s (got %d)", bound, *limit, noun, got)
	}
	bound := func(op string, limit *float64) string {
		if limit == nil {
			return ""
		}
		return fmt.Sprintf("must be %s %s (got %s)", op, fmtNum(*limit), compactJSON(v))
	}
	str, isStr := v.(string)
	arr, isArr := v.([]any)
	obj, isObj := v.(map[string]any)
	switch {
	case kw == "type":
		want := n.Types
		if n.Type != "" {
			want = []string{n.Type}
		}
		return fmt.Sprintf("must be %s (got %s)", strings.Join(want, " or "), jsonTypeName(v))
	case kw == "enum":
		return fmt.Sprintf("must be one of %s (got %s)", compactJSON(n.Enum), compactJSON(v))
	case kw == "const" && n.Const != nil:
		return fmt.Sprintf("must be %s (got %s)", compactJSON(*n.Const), compactJSON(v))
	case kw == "multipleOf" && n.MultipleOf != nil:
		return fmt.Sprintf("must be a multiple of %s (got %s)", fmtNum(*n.MultipleOf), compactJSON(v))
	case kw == "minimum":
		return bound(">=", n.Minimum)
	case kw == "maximum":
		return bound("<=", n.Maximum)
	case kw == "exclusiveMinimum":
		return bound(">", n.ExclusiveMinimum)
	case kw == "exclusiveMaximum":
		return bound("<", n.ExclusiveMaximum)
	case kw == "minLength" && isStr:
		return count(kw, n.MinLength, "characters", utf8.RuneCountInString(str))
	case kw == "maxLength" && isStr:
		return count(kw, n.MaxLength, "characters", utf8.RuneCountInString(str))
	case kw == "pattern" && isStr:
		return fmt.Sprintf("must match pattern %q", truncate(n.Pattern, 200))
	case kw == "minItems" && isArr:
		return count(kw, n.MinItems, "items", len(arr))
	case kw == "maxItems" && isArr:
		return count(kw, n.MaxItems, "items", len(arr))
	case kw == "uniqueItems":
		return "must not contain duplicate items"
	case kw == "minProperties" && isObj:
		return count(kw, n.MinProperties, "properties", len(obj))
	case kw == "maxProperties" && isObj:
		return count(kw, n.MaxProperties, "properties", len(obj))
	case kw == "not":
		return `must not match the "not" schema`
	case kw == "anyOf":
		return fmt.Sprintf("must match at least one of %d alternatives", len(n.AnyOf))
	case kw == "oneOf":
		matched := 0
		for i := range n.OneOf {
			if s.validateAt(ptr+"/oneOf/"+strconv.Itoa(i), v) == nil {
				matched++
			}
		}
		return fmt.Sprintf("must match exactly one of %d alternatives (matched %d)", len(n.OneOf), matched)
	}
	return ""
}

// isFalseSchema reports whether n is {} (so that {"not": n} is the schema
// false, which accepts nothing).
func isFalseSchema(n *jsonschema.Schema) bool {
	return n != nil && reflect.ValueOf(*n).IsZero()
}

func falseSchemaMessage(ptr string) string {
	switch {
	case strings.HasSuffix(ptr, "/additionalProperties"):
		return "property is not allowed"
	case strings.HasSuffix(ptr, "/unevaluatedProperties"):
		return "has a property that is not allowed"
	case strings.HasSuffix(ptr, "/unevaluatedItems"):
		return "has an item that is not allowed"
	}
	return "no value is allowed here"
}

func jsonTypeName(v any) string {
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
	return "number"
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

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
