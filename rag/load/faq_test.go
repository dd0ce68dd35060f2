package load

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/storage"
)

func TestReadFAQsJSONL(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"f1","question":"Como declarar?","answer":"Pelo programa.","category":"IRPF","keywords":["declarar","programa"],"priority":10}`,
		`{"id":"f2","question":"Prazo?","answer":"Maio.","keywords":"prazo; data","priority":"3","active":false}`,
		`{"question":"Sem id?","answer":"Derivado da pergunta.","active":"sim"}`,
	}, "\n")
	faqs, err := readFAQsJSONL(context.Background(), strings.NewReader(in), "f.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []storage.FAQ{
		{ID: "f1", Question: "Como declarar?", Answer: "Pelo programa.", Category: "IRPF", Keywords: []string{"declarar", "programa"}, Priority: 10, Status: storage.StatusActive},
		{ID: "f2", Question: "Prazo?", Answer: "Maio.", Keywords: []string{"prazo", "data"}, Priority: 3, Status: storage.StatusInactive},
		{ID: faqID("Sem id?"), Question: "Sem id?", Answer: "Derivado da pergunta.", Status: storage.StatusActive},
	}
	if diff := cmp.Diff(want, faqs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFAQID(t *testing.T) {
	a, b := faqID("Qual é o prazo?"), faqID("  qual E o PRAZO? ")
	if a != b {
		t.Errorf("faqID not stable under case/accents/spaces: %q vs %q", a, b)
	}
	if !strings.HasPrefix(a, "faq-") || len(a) != 4+16 {
		t.Errorf("faqID = %q", a)
	}
	if faqID("outra") == a {
		t.Error("different questions share an ID")
	}
}

func TestReadFAQsJSONLBadRecords(t *testing.T) {
	tests := []struct {
		name, line, field string
		target            error
	}{
		{"no question", `{"id":"x","answer":"a"}`, "question", storage.ErrInvalidRecord},
		{"no answer", `{"id":"x","question":"q"}`, "answer", storage.ErrInvalidRecord},
		{"fractional priority", `{"id":"x","question":"q","answer":"a","priority":1.5}`, "priority", storage.ErrInvalidRecord},
		{"priority text", `{"id":"x","question":"q","answer":"a","priority":"alta"}`, "priority", storage.ErrInvalidRecord},
		{"active not boolean", `{"id":"x","question":"q","answer":"a","active":"talvez"}`, "active", storage.ErrInvalidRecord},
		{"keywords object", `{"id":"x","question":"q","answer":"a","keywords":{}}`, "keywords", storage.ErrInvalidRecord},
		{"broken JSON", `{"id":"x",`, "", ErrSyntax},
		{"duplicate id", `{"id":"ok","question":"q2","answer":"a"}`, "id", ErrDuplicateID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"id":"ok","question":"q","answer":"a"}` + "\n" + tt.line + "\n" + `{"id":"ok2","question":"q3","answer":"a"}`
			faqs, err := readFAQsJSONL(context.Background(), strings.NewReader(in), "faqs.jsonl", nil)
			e := wantRecordError(t, err, "faqs.jsonl", 2, tt.target)
			if e.Field != tt.field {
				t.Errorf("field = %q, want %q", e.Field, tt.field)
			}
			if len(faqs) != 2 {
				t.Errorf("loaded %d, want 2", len(faqs))
			}
		})
	}
}

func TestReadFAQsCSV(t *testing.T) {
	tests := []struct {
		name string
		opts *Options
		in   string
		want []storage.FAQ
	}{
		{
			"Portuguese headers",
			nil,
			"Pergunta;Resposta;Categoria;Palavras-chave;Prioridade;Ativo\n" +
				"Qual o prazo?;Até maio.;Prazos;prazo|maio;5;não\n",
			[]storage.FAQ{{ID: faqID("Qual o prazo?"), Question: "Qual o prazo?", Answer: "Até maio.", Category: "Prazos",
				Keywords: []string{"prazo", "maio"}, Priority: 5, Status: storage.StatusInactive}},
		},
		{
			"English headers with id",
			nil,
			"id,question,answer,keywords,priority,active\n" + "f1,Q?,A.,a;b,,true\n",
			[]storage.FAQ{{ID: "f1", Question: "Q?", Answer: "A.", Keywords: []string{"a", "b"}, Status: storage.StatusActive}},
		},
		{
			"named columns",
			&Options{CSVColumns: map[string]string{"question": "q", "answer": "r", "keywords": "kw"}},
			"q,r,kw\nQ?,A.,x|y\n",
			[]storage.FAQ{{ID: faqID("Q?"), Question: "Q?", Answer: "A.", Keywords: []string{"x", "y"}, Status: storage.StatusActive}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faqs, err := readFAQsCSV(context.Background(), strings.NewReader(tt.in), "f.csv", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, faqs); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("bad rows", func(t *testing.T) {
		in := "question,answer,priority\nQ1,A1,1\nQ2,,2\nQ3,A3\nQ4,A4,x\nQ5,A5,5\n"
		faqs, err := readFAQsCSV(context.Background(), strings.NewReader(in), "f.csv", nil)
		res := recordErrors(t, err)
		var lines []int
		for _, e := range res {
			lines = append(lines, e.Line)
		}
		if diff := cmp.Diff([]int{3, 4, 5}, lines); diff != "" {
			t.Errorf("lines (-want +got):\n%s\n%v", diff, err)
		}
		if len(faqs) != 2 {
			t.Errorf("loaded %d, want 2", len(faqs))
		}
	})
	t.Run("missing answer column", func(t *testing.T) {
		_, err := readFAQsCSV(context.Background(), strings.NewReader("question\nQ\n"), "f.csv", nil)
		wantRecordError(t, err, "f.csv", 1, ErrMissingColumn)
	})
}

func TestLoadFAQsByExtension(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.jsonl", `{"id":"a","question":"Q","answer":"A"}`)
	writeFile(t, dir, "b.json", `[{"id":"b","question":"Q","answer":"A"}]`)
	writeFile(t, dir, "c.csv", "id,question,answer\nc,Q,A\n")
	writeFile(t, dir, "d.txt", "x")
	for _, name := range []string{"a.jsonl", "b.json", "c.csv"} {
		t.Run(name, func(t *testing.T) {
			faqs, err := LoadFAQs(context.Background(), dir+"/"+name, nil)
			if err != nil || len(faqs) != 1 || faqs[0].ID != name[:1] {
				t.Errorf("faqs %+v, err %v", faqs, err)
			}
		})
	}
	if _, err := LoadFAQs(context.Background(), dir+"/d.txt", nil); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("err = %v", err)
	}
}

func TestLoadFAQsTaxQA(t *testing.T) {
	path := sharedData(t, "br_taxqa/faqs.jsonl")
	faqs, err := LoadFAQs(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(faqs) != 715 {
		t.Fatalf("loaded %d FAQs, want 715", len(faqs))
	}
	for _, f := range faqs {
		if f.ID == "" || f.Question == "" || f.Answer == "" {
			t.Fatalf("incomplete FAQ %+v", f)
		}
	}
}
