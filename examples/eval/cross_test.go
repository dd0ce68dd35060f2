package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/internal/testenv"
)

// sharedData is the public data sets' directory, beside the repository.
const sharedData = "../../../shared/data"

func TestCrossDomainCases(t *testing.T) {
	root := "../.."
	d := crossDomains[0] // agro-store: testdata's queries and judgements
	own, err := crossCases(d, sharedData, root, 0, true, "pt")
	if err != nil {
		t.Fatal(err)
	}
	other, err := crossCases(d, sharedData, root, 5, false, "pt")
	if err != nil {
		t.Fatal(err)
	}
	if len(own) != 24 {
		t.Errorf("%d own cases, want the 24 judged queries", len(own))
	}
	for _, c := range own {
		if c.Expect.Abstain || len(c.Expect.Sources) == 0 || !strings.HasPrefix(c.ID, "agro-store/") {
			t.Errorf("own case %+v: want the judged sources, no abstention", c)
		}
	}
	if len(other) != 5 {
		t.Errorf("%d cases with -cross-max 5, want 5", len(other))
	}
	for _, c := range other {
		if !c.Expect.Abstain || len(c.Expect.Sources) > 0 {
			t.Errorf("other-domain case %+v: want an abstention", c)
		}
	}
	// The sample spans the file: not its first five questions.
	if other[1].ID == own[1].ID {
		t.Errorf("sampled %s second, the file's second question: want every len/max-th", other[1].ID)
	}
}

// TestCrossDomainEnglishCases: every English translation is of a judged
// question of its set (same ID), so -cross-lang en expects the same
// sources as the Portuguese question.
func TestCrossDomainEnglishCases(t *testing.T) {
	root := "../.."
	want := map[string]int{"agro-store": 24, "irpf": 15}
	for _, d := range crossDomains {
		if d.english == "" || strings.HasPrefix(d.qrels, "shared:") {
			continue // FaQuAD's judgements are in ../shared/data (TestCrossDomainReport)
		}
		en, err := crossCases(d, sharedData, root, 0, true, "en")
		if err != nil {
			t.Fatal(err)
		}
		pt, err := crossCases(d, sharedData, root, 0, true, "pt")
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string][]string{}
		for _, c := range pt {
			sources[c.ID] = c.Expect.Sources
		}
		if len(en) != want[d.name] {
			t.Errorf("%s: %d English cases, want %d", d.name, len(en), want[d.name])
		}
		for _, c := range en {
			if s, ok := sources[c.ID]; !ok || !slices.Equal(s, c.Expect.Sources) {
				t.Errorf("%s: English case %s expects %v; the Portuguese one %v", d.name, c.ID, c.Expect.Sources, s)
			}
		}
	}
	if cs, err := crossCases(crossDomains[1], sharedData, root, 0, true, "en"); err != nil || len(cs) != 0 {
		t.Errorf("AGROFIT has no English questions: %d cases, %v", len(cs), err)
	}
}

func TestCrossDomainReport(t *testing.T) {
	if _, err := os.Stat(filepath.Join(sharedData, "faquad", "documents.jsonl")); err != nil {
		testenv.Skip(t, testenv.Data, "shared data not available: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-cross", sharedData, "-cross-max", "8", "-cross-stores", "agro-store,irpf,faquad", "-json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep crossReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Stores) != 3 {
		t.Fatalf("%d stores, want the 3 of -cross-stores", len(rep.Stores))
	}
	for _, s := range rep.Stores {
		if s.Own.Questions == 0 || s.Other.Questions == 0 || s.Own.WithExpect != s.Own.Questions {
			t.Errorf("%s: own %d, other %d questions: want both asked and judged", s.Store, s.Own.Questions, s.Other.Questions)
		}
		if _, same := s.OtherByDomain[s.Store]; same {
			t.Errorf("%s is asked its own questions as another domain's", s.Store)
		}
	}
	// agro-store and agrofit are one domain: not asked each other's;
	// the AGROFIT questions are asked of the other stores.
	if _, ok := rep.Stores[0].OtherByDomain["agrofit"]; ok {
		t.Error("agro-store asked the AGROFIT questions expecting an abstention")
	}
	if _, ok := rep.Stores[1].OtherByDomain["agrofit"]; !ok {
		t.Error("irpf was not asked the AGROFIT questions")
	}
	var text bytes.Buffer
	if err := writeCrossText(&text, &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\nirpf ") || !strings.Contains(text.String(), "\nall ") {
		t.Errorf("text report:\n%s", text.String())
	}
}
