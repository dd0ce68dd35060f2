package main

import (
	"strings"
	"testing"
)

// A field of the wrong type is named with the JSON kind it takes, not a
// Go type.
func TestWrongTypeNamesJSONKind(t *testing.T) {
	const token = "tok-jsonkind-0123456789"
	h := newTestServer(t, func(c *config) { c.Token = token }, nil).routes()
	auth := []string{"Authorization", "Bearer " + token}
	for _, tc := range []struct {
		name, method, path, body, want string
	}{
		{"price", "PUT", "/api/items/prd-x", `{"name":"X","price":"caro"}`, `field \"price\" must be a number`},
		{"tags", "PUT", "/api/items/prd-x", `{"name":"X","tags":"Soja"}`, `field \"tags\" must be a list`},
		{"limit", "POST", "/api/rag/search", `{"query":"milho","limit":"5"}`, `field \"limit\" must be a whole number`},
		{"query", "POST", "/api/rag/search", `{"query":5}`, `field \"query\" must be a string`},
		{"array body", "POST", "/api/chat", `[]`, `request body must be a JSON object, not array`},
		{"number body", "POST", "/api/rag/search", `5`, `request body must be a JSON object, not number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, h, tc.method, tc.path, tc.body, auth...)
			body := rec.Body.String()
			if rec.Code != 400 || !strings.Contains(body, tc.want) {
				t.Errorf("%d %s, want 400 with %s", rec.Code, body, tc.want)
			}
			for _, goType := range []string{"float64", "int", "[]string", "bool", "map["} {
				if strings.Contains(body, "must be a "+goType) {
					t.Errorf("the error names a Go type: %s", body)
				}
			}
		})
	}
}
