package postgres

import (
	"encoding/json"
	"testing"
)

// agrofitMeta is an AGROFIT item's metadata as PostgreSQL's jsonb prints it.
var agrofitMeta = []byte(`{"registro": "52625", "formulacao": "SC - Suspensão Concentrada", "ingredientes": "Benzoato de Emamectina (avermectina) (50 g/L) + Isocicloseram (Isoxazoline) (200 g/L)", "classe_ambiental": "Produto Muito Perigoso ao Meio Ambiente", "classe_toxicologica": "Categoria 4 - Produto Pouco Tóxico"}`)

// BenchmarkMetadataDecode compares stringMap with encoding/json (what pgx
// used before) on an AGROFIT item's metadata; a hybrid search decodes
// about 120 of them (the lexical candidates' and the vector hits'
// records).
func BenchmarkMetadataDecode(b *testing.B) {
	b.Run("gjson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]string
			if err := (stringMap{&m}).ScanBytes(agrofitMeta); err != nil || len(m) != 5 {
				b.Fatal(err, m)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]string
			if err := json.Unmarshal(agrofitMeta, &m); err != nil || len(m) != 5 {
				b.Fatal(err, m)
			}
		}
	})
}

// TestStringMapMatchesEncodingJSON checks stringMap against encoding/json
// on objects that need every JSON escape, and that both reject what is
// not an object of strings.
func TestStringMapMatchesEncodingJSON(t *testing.T) {
	for _, src := range []string{
		string(agrofitMeta),
		`{}`,
		`{"a": ""}`,
		`{"q\"uote": "back\\slash \/ \b\f\n\r\t \u0001 \u00e9 \ud83c\udf31 é 🌱"}`,
		`{"a": "1", "b": "2"}`,
	} {
		var want, got map[string]string
		if err := json.Unmarshal([]byte(src), &want); err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			want = nil
		}
		if err := (stringMap{&got}).ScanBytes([]byte(src)); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: got %q, want %q", src, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: got %q, want %q", src, got, want)
			}
		}
	}
	for _, src := range []string{`{"a": 1}`, `{"a": null}`, `{"a": ["x"]}`, `["a"]`, `"a"`, `5`} {
		var m map[string]string
		if err := (stringMap{&m}).ScanBytes([]byte(src)); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
	var m = map[string]string{"stale": "x"}
	if err := (stringMap{&m}).ScanBytes(nil); err != nil || m != nil {
		t.Errorf("NULL: got %v, %v; want a nil map", m, err)
	}
}
