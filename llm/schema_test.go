package llm_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
)

// searchKnowledgeSchema is seed 003 §6.2's search_knowledge parameters.
const searchKnowledgeSchema = `{
	"type": "object",
	"properties": {
		"query": {"type": "string", "minLength": 1, "description": "O que buscar"},
		"type":  {"type": "string", "enum": ["fact", "preference", "memory", "insight", "person"]},
		"limit": {"type": "integer", "minimum": 1, "maximum": 10, "default": 5},
		"tags":  {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 2},
		"score": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
		"exact": {"type": "boolean"},
		"code":  {"type": "string", "pattern": "^[A-Z]{2}-[0-9]+$"},
		"note":  {"type": ["string", "null"]}
	},
	"required": ["query"],
	"additionalProperties": false
}`

func TestSchemaValidate(t *testing.T) {
	s, err := llm.CompileSchema(json.RawMessage(searchKnowledgeSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		doc  string
		want []string // violation texts, in order; nil means valid
	}{
		{"minimal", `{"query":"peso"}`, nil},
		{"all fields", `{"query":"peso","type":"fact","limit":10,"tags":["a","b"],"score":0.5,"exact":true,"code":"BR-12","note":null}`, nil},
		{"integer written as float", `{"query":"x","limit":3.0}`, nil},
		{"accented string length in runes", `{"query":"x","tags":["ação!"]}`, nil},
		{"missing required", `{}`, []string{`$: missing required property "query"`}},
		{"wrong type", `{"query":42}`, []string{`$.query: must be string (got number)`}},
		{"not an object", `[1]`, []string{`$: must be object (got array)`}},
		{"enum", `{"query":"x","type":"fato"}`, []string{`$.type: must be one of ["fact","preference","memory","insight","person"] (got "fato")`}},
		{"maximum", `{"query":"x","limit":12}`, []string{`$.limit: must be <= 10 (got 12)`}},
		{"minimum", `{"query":"x","limit":0}`, []string{`$.limit: must be >= 1 (got 0)`}},
		{"not an integer", `{"query":"x","limit":2.5}`, []string{`$.limit: must be integer (got number)`}},
		{"exclusive bounds", `{"query":"x","score":1}`, []string{`$.score: must be < 1 (got 1)`}},
		{"minLength", `{"query":""}`, []string{`$.query: must have at least 1 characters (got 0)`}},
		{"maxItems and item maxLength", `{"query":"x","tags":["a","b","abcdef"]}`, []string{
			`$.tags: must have at most 2 items (got 3)`,
			`$.tags[2]: must have at most 5 characters (got 6)`,
		}},
		{"pattern", `{"query":"x","code":"br-1"}`, []string{`$.code: must match pattern "^[A-Z]{2}-[0-9]+$"`}},
		{"additional property", `{"query":"x","area":"health"}`, []string{`$.area: property is not allowed`}},
		{"boolean type", `{"query":"x","exact":"yes"}`, []string{`$.exact: must be boolean (got string)`}},
		{"type list", `{"query":"x","note":1}`, []string{`$.note: must be string or null (got number)`}},
		{"not JSON", `{"query":`, []string{`$: not valid JSON: unexpected EOF`}},
		{"trailing data", `{"query":"x"} {}`, []string{`$: not valid JSON: unexpected data after the JSON value`}},
		{"empty", ``, []string{`$: not valid JSON: empty document`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate([]byte(tt.doc))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate(%s) = %v, want nil", tt.doc, err)
				}
				return
			}
			var verr *llm.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Validate(%s) = %v, want *ValidationError", tt.doc, err)
			}
			var got []string
			for _, v := range verr.Violations {
				got = append(got, v.Path+": "+v.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("violations:\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

func TestSchemaCombinatorsAndNesting(t *testing.T) {
	s, err := llm.CompileSchema(json.RawMessage(`{
		"type": "object",
		"properties": {
			"id":   {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 3}]},
			"kind": {"oneOf": [{"const": "a"}, {"enum": ["a", "b"]}]},
			"all":  {"allOf": [{"type": "number"}, {"maximum": 5}]},
			"meta": {"type": "object", "additionalProperties": {"type": "string"}},
			"never": false,
			"point": {"enum": [{"x": 1, "tags": [2]}]},
			"options": {"type": "array", "minItems": 1, "items": {
				"type": "object", "required": ["title"],
				"properties": {"title": {"type": "string"}, "pros": {"type": "array", "items": {"type": "string"}}}
			}}
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"anyOf integer", `{"id":7}`, ""},
		{"anyOf string", `{"id":"abc"}`, ""},
		{"anyOf none", `{"id":"ab"}`, "$.id: must match at least one of 2 alternatives"},
		{"oneOf exactly one", `{"kind":"b"}`, ""},
		{"oneOf two match", `{"kind":"a"}`, "$.kind: must match exactly one of 2 alternatives (matched 2)"},
		{"allOf", `{"all":6}`, "$.all: must be <= 5 (got 6)"},
		{"additionalProperties schema", `{"meta":{"a":"x","b":1}}`, "$.meta.b: must be string (got number)"},
		{"false schema", `{"never":1}`, "$.never: no value is allowed here"},
		{"nested array of objects", `{"options":[{"title":"Aceitar","pros":["salário"]},{"pros":[1]}]}`,
			`$.options[1]: missing required property "title"; $.options[1].pros[0]: must be string (got number)`},
		{"minItems", `{"options":[]}`, "$.options: must have at least 1 items (got 0)"},
		{"object enum matches numerically", `{"point":{"x":1.0,"tags":[2]}}`, ""},
		{"object enum mismatch", `{"point":{"x":2,"tags":[2]}}`, `$.point: must be one of [{"tags":[2],"x":1}] (got {"tags":[2],"x":2})`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate([]byte(tt.doc))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate(%s) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

func TestCompileSchemaErrors(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"ref", `{"$ref":"#/$defs/x"}`, `keyword "$ref" is not supported`},
		{"not", `{"properties":{"a":{"not":{}}}}`, `#/properties/a: keyword "not" is not supported`},
		{"unknown type", `{"type":"float"}`, `unknown type "float"`},
		{"bad maximum", `{"maximum":"10"}`, `#/maximum: must be a number`},
		{"negative minLength", `{"minLength":-1}`, `#/minLength: must be a non-negative integer`},
		{"bad pattern", `{"pattern":"("}`, `#/pattern`},
		{"empty enum", `{"enum":[]}`, `#/enum: must be a non-empty list`},
		{"not JSON", `{`, `unexpected EOF`},
		{"not a schema", `"x"`, `a schema must be an object or a boolean`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := llm.CompileSchema(json.RawMessage(tt.schema))
			if !errors.Is(err, llm.ErrInvalidSchema) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CompileSchema(%s) = %v, want ErrInvalidSchema containing %q", tt.schema, err, tt.want)
			}
		})
	}
	t.Run("empty accepts anything", func(t *testing.T) {
		s, err := llm.CompileSchema(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate([]byte(`[1,"a",null]`)); err != nil {
			t.Error(err)
		}
	})
	t.Run("annotations ignored", func(t *testing.T) {
		_, err := llm.CompileSchema(json.RawMessage(`{"$schema":"x","title":"t","format":"date","x-extra":1,"$defs":{"a":{}},"examples":[1]}`))
		if err != nil {
			t.Error(err)
		}
	})
}

func TestValidationErrorCapsViolations(t *testing.T) {
	s, err := llm.CompileSchema(json.RawMessage(`{"type":"array","items":{"type":"string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := "[" + strings.Repeat("1,", 99) + "1]"
	var verr *llm.ValidationError
	if !errors.As(s.Validate([]byte(doc)), &verr) || len(verr.Violations) != 10 {
		t.Fatalf("want 10 violations, got %v", verr)
	}
}

func FuzzSchemaValidate(f *testing.F) {
	s, err := llm.CompileSchema(json.RawMessage(searchKnowledgeSchema))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{`{"query":"x"}`, `{"limit":1e400}`, `[]`, `{"tags":[{"a":[]}]}`, `nul`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		err := s.Validate([]byte(doc))
		if err != nil && err.Error() == "" {
			t.Error("empty error text")
		}
		if json.Valid([]byte(doc)) == false && err == nil {
			t.Errorf("invalid JSON %q accepted", doc)
		}
	})
}

func TestSchemaHugeNumbers(t *testing.T) {
	s, err := llm.CompileSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":10},"f":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate([]byte(`{"n":1e400,"f":-1e400}`))
	want := "$.n: must be integer (got number)"
	if got == nil || got.Error() != want {
		t.Errorf("got %v, want %q", got, want)
	}
}
