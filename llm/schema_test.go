package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
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
	s, err := compileSchema(json.RawMessage(searchKnowledgeSchema))
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
		{"type list", `{"query":"x","note":1}`, []string{`$.note: must be null or string (got number)`}},
		{"not JSON", `{"query":`, []string{`$: not valid JSON: unexpected EOF`}},
		{"trailing data", `{"query":"x"} {}`, []string{`$: not valid JSON: unexpected data after the JSON value`}},
		{"empty", ``, []string{`$: not valid JSON: empty document`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.validateDoc([]byte(tt.doc))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate(%s) = %v, want nil", tt.doc, err)
				}
				return
			}
			var verr *ValidationError
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
	s, err := compileSchema(json.RawMessage(`{
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
		{"oneOf two match", `{"kind":"a"}`, "$.kind: must match exactly one of 2 alternatives (alternatives 0 and 1 both match)"},
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
			err := s.validateDoc([]byte(tt.doc))
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
		{"unresolvable ref", `{"$ref":"#/$defs/x"}`, `json-pointer in "#/$defs/x" not found`},
		{"remote ref", `{"$ref":"https://example.com/s.json"}`, `cannot resolve remote schemas`},
		{"ref cycle", `{"$ref":"#"}`, `#: $ref cycle`},
		{"ref cycle through allOf", `{"properties":{"a":{"allOf":[{"$ref":"#/properties/a"}]}}}`, `$ref cycle`},
		{"ref cycle through defs and anyOf", `{"$defs":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `$ref cycle`},
		{"ref cycle through an anchor", `{"$defs":{"a":{"$anchor":"loop","not":{"$ref":"#loop"}}},"properties":{"p":{"$ref":"#loop"}}}`, `#/$defs/a: $ref cycle`},
		{"ref cycle through a relative $id", `{"$id":"https://a.example/s","$ref":"s#"}`, `$ref cycle`},
		{"ref cycle in a nested resource", `{"$defs":{"n":{"$id":"https://a.example/n","if":{"$ref":"n"}}},"items":{"$ref":"https://a.example/n"}}`, `$ref cycle`},
		{"ref cycle through an odd index", `{"allOf":[{"$ref":"#/allOf/+0"}]}`, `$ref cycle`},
		{"dynamic ref cycle", `{"$dynamicAnchor":"node","anyOf":[{"$dynamicRef":"#node"}]}`, `$ref cycle`},
		{"unknown type", `{"type":"float"}`, `#/type: value must be one of`},
		{"unknown type in a list", `{"properties":{"a":{"type":["string","text"]}}}`, `#/properties/a/type: value must be one of`},
		{"bad maximum", `{"maximum":"10"}`, `#/maximum: got string, want number`},
		{"negative minLength", `{"minLength":-1}`, `#/minLength: minimum: got -1, want 0`},
		{"zero multipleOf", `{"multipleOf":0}`, `#/multipleOf: exclusiveMinimum: got 0, want 0`},
		{"bad pattern", `{"properties":{"code":{"pattern":"("}}}`, `#/properties/code/pattern: '(' is not valid regex`},
		{"bad patternProperties", `{"patternProperties":{"(":{}}}`, `#/patternProperties: invalid propertyName '(': '(' is not valid regex`},
		{"not JSON", `{`, `unexpected EOF`},
		{"not a schema", `"x"`, `a schema must be a JSON object or a boolean`},
		{"unknown meta-schema", `{"$schema":"https://example.com/meta"}`, `cannot resolve remote schemas`},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, `cannot resolve remote schemas`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileSchema(json.RawMessage(tt.schema))
			if !errors.Is(err, ErrInvalidSchema) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CompileSchema(%s) = %v, want ErrInvalidSchema containing %q", tt.schema, err, tt.want)
			}
		})
	}
	t.Run("empty accepts anything", func(t *testing.T) {
		for _, raw := range []string{"", "null", " "} {
			s, err := compileSchema(json.RawMessage(raw))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.validateDoc([]byte(`[1,"a",null]`)); err != nil {
				t.Error(err)
			}
		}
	})
	t.Run("annotations ignored", func(t *testing.T) {
		_, err := compileSchema(json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t","format":"date","x-extra":1,"$defs":{"a":{}},"examples":[1]}`))
		if err != nil {
			t.Error(err)
		}
	})
	t.Run("recursion through a property is fine", func(t *testing.T) {
		_, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"next":{"$ref":"#"}}}`))
		if err != nil {
			t.Error(err)
		}
	})
}

// optionsSchema keeps the option shape in $defs, as generators such as
// pydantic and zod-to-json-schema write it.
const optionsSchema = `{
	"type": "object",
	"$defs": {
		"option": {
			"type": "object",
			"required": ["title"],
			"properties": {
				"title": {"type": "string", "minLength": 1},
				"pros":  {"type": "array", "items": {"$ref": "#/$defs/pro"}}
			},
			"additionalProperties": false
		},
		"pro": {"type": "string", "maxLength": 20}
	},
	"properties": {
		"options": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/option"}},
		"best":    {"$ref": "#/$defs/option"},
		"next":    {"$ref": "#"}
	}
}`

func TestSchemaRefsAndDefs(t *testing.T) {
	s, err := compileSchema(json.RawMessage(optionsSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"valid", `{"options":[{"title":"Aceitar","pros":["salário"]}],"best":{"title":"Aceitar"}}`, ""},
		{"recursive valid", `{"next":{"next":{"options":[{"title":"x"}]}}}`, ""},
		{"missing property through ref", `{"options":[{"title":"a"},{"pros":[]}]}`, `$.options[1]: missing required property "title"`},
		{"nested ref", `{"options":[{"title":"a","pros":["ok",1]}]}`, `$.options[0].pros[1]: must be string (got number)`},
		{"ref bound", `{"best":{"title":"a","pros":["` + strings.Repeat("x", 21) + `"]}}`, `$.best.pros[0]: must have at most 20 characters (got 21)`},
		{"additional property through ref", `{"best":{"title":"a","cons":[]}}`, `$.best.cons: property is not allowed`},
		{"recursion", `{"next":{"next":{"options":[]}}}`, `$.next.next.options: must have at least 1 items (got 0)`},
		{"several, in document order", `{"best":{"title":""},"options":[{"title":"a","x":1}]}`,
			`$.best.title: must have at least 1 characters (got 0); $.options[0].x: property is not allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := s.validateDoc([]byte(tt.doc)); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate(%s)\n got  %q\n want %q", tt.doc, got, tt.want)
			}
		})
	}
}

func TestSchemaDraft07(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": {"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false}},
		"type": "object",
		"properties": {"at": {"$ref": "#/definitions/point", "description": "ignored beside $ref in draft-07"}}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.validateDoc([]byte(`{"at":[1.5,2]}`)); err != nil {
		t.Errorf("valid point: %v", err)
	}
	want := `$.at[1]: must be number (got string)`
	if err := s.validateDoc([]byte(`{"at":[1,"2"]}`)); err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	if err := s.validateDoc([]byte(`{"at":[1,2,3,4]}`)); err == nil || err.Error() != "$.at[2]: item is not allowed; $.at[3]: item is not allowed" {
		t.Errorf("additional items: got %v", err)
	}
}

// Drafts before 2019-09 are compiled by their own rules: draft-04's boolean
// exclusiveMaximum, and "format" as an assertion (2020-12 only annotates).
func TestSchemaOlderDraftsAndFormat(t *testing.T) {
	tests := []struct {
		name, schema, doc, want string
	}{
		{"draft-04 exclusiveMaximum", `{"$schema":"http://json-schema.org/draft-04/schema#","maximum":10,"exclusiveMaximum":true}`, `10`, "$: must be < 10 (got 10)"},
		{"draft-07 format asserted", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"date"}}}`, `{"d":"31/12/2024"}`, "$.d: '31/12/2024' is not valid date: "},
		{"2020-12 format annotated", `{"properties":{"d":{"format":"date"}}}`, `{"d":"31/12/2024"}`, ""},
		{"unreachable cycle compiles", `{"$defs":{"a":{"$anchor":"loop","not":{"$ref":"#loop"}}}}`, `1`, ""},
		{"oneOf none", `{"oneOf":[{"type":"string"},{"type":"boolean"}]}`, `1`, "$: must match exactly one of 2 alternatives (none matched)"},
		{"unevaluatedProperties", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, "$.b: property is not allowed"},
		{"required before the value's other failures", `{"required":["a","b"],"minProperties":3}`, `{"c":1}`,
			`$: missing required property "a"; $: missing required property "b"; $: must have at least 3 properties (got 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := validationMessage(t, tt.schema, tt.doc)
			if got != tt.want && (tt.want == "" || !strings.HasPrefix(got, tt.want)) {
				t.Errorf("Validate(%s) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

// Violations come in a fixed order although the validator visits properties
// in map order.
func TestSchemaViolationsAreDeterministic(t *testing.T) {
	s, err := compileSchema(json.RawMessage(searchKnowledgeSchema))
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"query":"","type":"x","limit":99,"score":2,"exact":1,"code":"a","note":3,"z":1}`)
	first := s.validateDoc(doc).Error()
	for range 50 {
		if got := s.validateDoc(doc).Error(); got != first {
			t.Fatalf("violations changed between runs:\n%s\n%s", first, got)
		}
	}
	want := `$.code: must match pattern "^[A-Z]{2}-[0-9]+$"; $.exact: must be boolean (got number); ` +
		`$.limit: must be <= 10 (got 99); $.note: must be null or string (got number); ` +
		`$.query: must have at least 1 characters (got 0); $.score: must be < 1 (got 2); ` +
		`$.type: must be one of ["fact","preference","memory","insight","person"] (got "x"); $.z: property is not allowed`
	if first != want {
		t.Errorf("got  %s\nwant %s", first, want)
	}
}

// Values quoted in messages are cut to 200 bytes; the cut never splits a
// UTF-8 sequence, whatever the width of the character at the limit.
func TestValidationErrorTruncatesOnRuneBoundary(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"v":{"enum":["a"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, wide := range []string{"ç", "€", "😀"} {
		for pad := 190; pad < 205; pad++ {
			value := strings.Repeat("a", pad) + strings.Repeat(wide, 20)
			doc, _ := json.Marshal(map[string]string{"v": value})
			err := s.validateDoc(doc)
			if err == nil {
				t.Fatalf("pad %d: value accepted", pad)
			}
			msg := err.Error()
			if !utf8.ValidString(msg) {
				t.Fatalf("%q pad %d: message is not valid UTF-8: %q", wide, pad, msg[len(msg)-20:])
			}
			if !strings.Contains(msg, "…") || len(msg) > 300 {
				t.Errorf("%q pad %d: value not cut to 200 bytes (%d bytes): %q", wide, pad, len(msg), msg)
			}
		}
	}
}

func TestSchemaConcurrentUse(t *testing.T) {
	s, err := compileSchema(json.RawMessage(optionsSchema))
	if err != nil {
		t.Fatal(err)
	}
	want := `$.options[0].pros[0]: must be string (got number)`
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if err := s.validateDoc([]byte(`{"options":[{"title":"a","pros":[1]}]}`)); err == nil || err.Error() != want {
					t.Errorf("got %v", err)
				}
			}
		})
	}
	wg.Wait()
}

func TestValidationErrorCapsViolations(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"array","items":{"type":"string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := "[" + strings.Repeat("1,", 99) + "1]"
	var verr *ValidationError
	if !errors.As(s.validateDoc([]byte(doc)), &verr) || len(verr.Violations) != 10 {
		t.Fatalf("want 10 violations, got %v", verr)
	}
}

func FuzzSchemaValidate(f *testing.F) {
	s, err := compileSchema(json.RawMessage(searchKnowledgeSchema))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{`{"query":"x"}`, `{"limit":1e400}`, `[]`, `{"tags":[{"a":[]}]}`, `nul`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		err := s.validateDoc([]byte(doc))
		if err != nil && err.Error() == "" {
			t.Error("empty error text")
		}
		if json.Valid([]byte(doc)) == false && err == nil {
			t.Errorf("invalid JSON %q accepted", doc)
		}
	})
}

func TestSchemaHugeNumbers(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":10},"f":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.validateDoc([]byte(`{"n":1e400,"f":-1e400,"ok":1e300}`))
	want := "$.f: number out of range (got -1e400); $.n: number out of range (got 1e400)"
	if got == nil || got.Error() != want {
		t.Errorf("got %v, want %q", got, want)
	}
}

// FuzzCompileSchema checks that no schema makes CompileSchema or Validate
// panic or recurse without end.
func FuzzCompileSchema(f *testing.F) {
	for _, seed := range []string{optionsSchema, searchKnowledgeSchema, `{"$ref":"#"}`, `{"allOf":[{"$ref":"#/allOf/0"}]}`,
		`{"$defs":{"a":{"$anchor":"x","$ref":"#x"}}}`, `{"$dynamicRef":"#"}`, `{"$id":"https://a.example/s","$ref":"https://a.example/s#"}`,
		`{"items":[{"$ref":"#"}],"$schema":"http://json-schema.org/draft-07/schema#"}`, `false`, `{"not":{}}`,
		`{"$id":"https://a.example/s","$defs":{"n":{"$id":"n","$anchor":"x","properties":{"a":{"$ref":"#x"}}}},"$ref":"n"}`,
		`{"$dynamicAnchor":"node","properties":{"kids":{"items":{"$dynamicRef":"#node"}}}}`} {
		f.Add(seed, `{"options":[{"title":1}],"next":{"a":[null,true,1.5]}}`)
	}
	f.Fuzz(func(t *testing.T, schema, doc string) {
		s, err := compileSchema(json.RawMessage(schema))
		if err != nil {
			if !errors.Is(err, ErrInvalidSchema) {
				t.Errorf("error %v does not wrap ErrInvalidSchema", err)
			}
			return
		}
		if err := s.validateDoc([]byte(doc)); err != nil && (err.Error() == "" || !utf8.ValidString(err.Error())) {
			t.Errorf("bad error text %q", err.Error())
		}
	})
}

func TestSchemaFor(t *testing.T) {
	type filter struct {
		Area string `json:"area"`
	}
	type args struct {
		Query  string   `json:"query" jsonschema:"O que buscar"`
		Limit  int      `json:"limit,omitempty" jsonschema:"Quantos resultados"`
		Tags   []string `json:"tags,omitempty"`
		Filter *filter  `json:"filter,omitempty"`
		Secret string   `json:"-"`
	}
	s, err := schemaFor[args]()
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"O que buscar"},` +
		`"limit":{"type":"integer","description":"Quantos resultados"},` +
		`"tags":{"type":["null","array"],"items":{"type":"string"}},` +
		`"filter":{"type":["null","object"],"properties":{"area":{"type":"string"}},"required":["area"],"additionalProperties":false}},` +
		`"required":["query"],"additionalProperties":false}`
	if got := string(s.document()); got != wantJSON {
		t.Errorf("JSON()\n got  %s\n want %s", got, wantJSON)
	}
	if raw, err := SchemaFor[args](); err != nil || string(raw) != wantJSON {
		t.Errorf("SchemaFor = %s, %v", raw, err)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"required only", `{"query":"adubo"}`, ""},
		{"all fields", `{"query":"adubo","limit":3,"tags":["npk"],"filter":{"area":"soja"}}`, ""},
		{"nulls for slices and pointers", `{"query":"adubo","tags":null,"filter":null}`, ""},
		{"missing required", `{}`, `$: missing required property "query"`},
		{"json:\"-\" is not a property", `{"query":"x","Secret":"s"}`, `$.Secret: property is not allowed`},
		{"nested", `{"query":"x","limit":"3","filter":{}}`, `$.filter: missing required property "area"; $.limit: must be integer (got string)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := s.validateDoc([]byte(tt.doc)); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate(%s) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
	t.Run("decodes what it accepts", func(t *testing.T) {
		doc := []byte(`{"query":"adubo","limit":3,"filter":{"area":"soja"}}`)
		var in args
		if err := s.validateDoc(doc); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(doc, &in); err != nil || in.Query != "adubo" || in.Limit != 3 || in.Filter.Area != "soja" {
			t.Errorf("decoded %+v, %v", in, err)
		}
	})
	type node struct {
		Next *node `json:"next"`
	}
	for name, infer := range map[string]func() (*schema, error){
		"func field":     schemaFor[struct{ F func() }],
		"int map keys":   schemaFor[map[int]string],
		"recursive type": schemaFor[node],
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := infer(); !errors.Is(err, ErrInvalidSchema) {
				t.Errorf("err = %v, want ErrInvalidSchema", err)
			}
		})
	}
}

func TestSchemaJSONOfCompiledSchema(t *testing.T) {
	s, err := compileSchema(json.RawMessage("{\n  \"type\": \"string\"\n}"))
	if err != nil {
		t.Fatal(err)
	}
	got := s.document()
	if string(got) != `{"type":"string"}` {
		t.Errorf("JSON() = %s", got)
	}
	got[0] = 'x' // the caller owns the copy
	if string(s.document()) != `{"type":"string"}` {
		t.Error("JSON() shares its bytes with the schema")
	}
	if s, _ := compileSchema(nil); string(s.document()) != "true" {
		t.Errorf("empty schema JSON() = %s, want true", s.document())
	}
}

// Explaining a failure costs the square of the nesting depth, so values
// nested deeper than 64 levels are rejected before validation.
func TestSchemaRejectsDeepNesting(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	nest := func(depth int) []byte {
		return []byte(strings.Repeat(`{"a":`, depth-1) + "{}" + strings.Repeat("}", depth-1))
	}
	if err := s.validateDoc(nest(64)); err != nil {
		t.Errorf("64 levels: %v", err)
	}
	for _, depth := range []int{65, 5000} {
		err := s.validateDoc(nest(depth))
		want := "$" + strings.Repeat(".a", 64) + ": nested too deeply (more than 64 levels)"
		if err == nil || err.Error() != want {
			t.Errorf("%d levels: got %v, want %q", depth, err, want)
		}
	}
}

// A schema with several mistakes names the first three by location, the
// same every time although the meta-schema visits properties in map order.
func TestCompileSchemaErrorsAreDeterministic(t *testing.T) {
	schema := json.RawMessage(`{"properties":{"e":{"minLength":-1},"d":{"type":"text"},"c":{"maximum":"1"},"b":{"pattern":"("},"a":{"minItems":-2}}}`)
	want := `llm: invalid or unsupported JSON schema: #/properties/a/minItems: minimum: got -2, want 0; ` +
		`#/properties/b/pattern: '(' is not valid regex: error parsing regexp: missing closing ): ` + "`(`" + `; #/properties/c/maximum: got string, want number`
	for range 20 {
		if _, err := compileSchema(schema); err == nil || err.Error() != want {
			t.Fatalf("got  %v\nwant %s", err, want)
		}
	}
}

// Each violation names the schema keyword that failed, after $ref: where to
// look in the schema, beside where to look in the value.
func TestViolationKeyword(t *testing.T) {
	s, err := compileSchema(json.RawMessage(optionsSchema))
	if err != nil {
		t.Fatal(err)
	}
	var verr *ValidationError
	doc := `{"options":[{"pros":["` + strings.Repeat("x", 21) + `"]}],"best":{"title":"a","cons":1},"next":{"options":[]},"x":false}`
	if !errors.As(s.validateDoc([]byte(doc)), &verr) {
		t.Fatal("document accepted")
	}
	var got []string
	for _, v := range verr.Violations {
		got = append(got, v.Path+" "+v.Keyword)
	}
	want := []string{
		"$.best.cons #/$defs/option/additionalProperties",
		"$.next.options #/properties/options/minItems",
		`$.options[0] #/$defs/option/required`,
		"$.options[0].pros[0] #/$defs/pro/maxLength",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("keywords:\n got  %q\n want %q", got, want)
	}
	if err := s.validateDoc([]byte(`{`)); !errors.As(err, &verr) || verr.Violations[0].Keyword != "" {
		t.Errorf("not JSON: %+v, want no keyword", verr.Violations)
	}
}

// TestValidateDocExamples keeps the messages the package documents: a $ref
// into $defs reports the value's location, not the schema's, and violations
// come in document order.
func TestValidateDocExamples(t *testing.T) {
	tests := []struct {
		name, schema, doc, want string
	}{
		{"refs", `{
			"$defs": {"option": {"type": "object", "required": ["title"],
				"properties": {"title": {"type": "string"}, "pros": {"type": "array", "items": {"type": "string"}}}}},
			"type": "object",
			"properties": {"options": {"type": "array", "items": {"$ref": "#/$defs/option"}}}
		}`, `{"options":[{"title":"Aceitar","pros":["salário"]},{"pros":[1]}]}`,
			`$.options[1]: missing required property "title"; $.options[1].pros[0]: must be string (got number)`},
		{"valid", `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":10}},
			"required":["query"],"additionalProperties":false}`, `{"query":"adubo","limit":3}`, ""},
		{"several", `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":10}},
			"required":["query"],"additionalProperties":false}`, `{"limit":12,"area":"x"}`,
			`$: missing required property "query"; $.area: property is not allowed; $.limit: must be <= 10 (got 12)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := validationMessage(t, tt.schema, tt.doc)
			if got != tt.want {
				t.Errorf("validateDoc = %q, want %q", got, tt.want)
			}
		})
	}
}

// validationMessage compiles schema and validates doc against it: the
// error's text, "" when doc is valid.
func validationMessage(t *testing.T, schema, doc string) string {
	t.Helper()
	s, err := compileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.validateDoc([]byte(doc)); err != nil {
		return err.Error()
	}
	return ""
}
