package chunkagg

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/vector"
)

func TestAggregateModes(t *testing.T) {
	// Owner a: similarities 0.9, 0.5, 0.4; owner b: 0.8, 0.7, 0.6; owner c: 0.85.
	chunks := []ScoredChunk{
		{OwnerID: "a", Content: "a1", Distance: -0.9, Seq: 0},
		{OwnerID: "b", Content: "b2", Distance: -0.7, Seq: 2},
		{OwnerID: "a", Content: "a2", Distance: -0.5, Seq: 1},
		{OwnerID: "b", Content: "b1", Distance: -0.8, Seq: 1},
		{OwnerID: "c", Content: "c1", Distance: -0.85, Seq: 0},
		{OwnerID: "a", Content: "a3", Distance: -0.4, Seq: 2},
		{OwnerID: "b", Content: "b3", Distance: -0.6, Seq: 3},
	}
	tests := []struct {
		name      string
		opts      Options
		wantOrder []string
		wantScore []float64
	}{
		// max: a 0.9, c 0.85, b 0.8.
		{name: "max", opts: Options{}, wantOrder: []string{"a", "c", "b"}, wantScore: []float64{0.9, 0.85, 0.8}},
		// sum: b 0.8+0.7+0.6 = 2.1, a 0.9+0.5+0.4 = 1.8, c 0.85.
		{name: "sum", opts: Options{Mode: vector.AggregateSum}, wantOrder: []string{"b", "a", "c"}, wantScore: []float64{2.1, 1.8, 0.85}},
		// top-2 mean: c 0.85 (one chunk), b (0.8+0.7)/2 = 0.75, a (0.9+0.5)/2 = 0.7.
		{name: "top-2 mean", opts: Options{Mode: vector.AggregateTopKMean, MeanTopK: 2}, wantOrder: []string{"c", "b", "a"}, wantScore: []float64{0.85, 0.75, 0.7}},
		// top-3 mean (default k): c 0.85, b 2.1/3 = 0.7, a 1.8/3 = 0.6.
		{name: "top-k mean default", opts: Options{Mode: vector.AggregateTopKMean}, wantOrder: []string{"c", "b", "a"}, wantScore: []float64{0.85, 0.7, 0.6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(chunks)
			got := Aggregate(chunks, tt.opts)
			if !slices.Equal(chunks, before) {
				t.Fatal("Aggregate modified its input")
			}
			var ids []string
			for i, h := range got {
				ids = append(ids, h.OwnerID)
				if math.Abs(h.Score-tt.wantScore[i]) > 1e-6 {
					t.Errorf("%s score = %v, want %v", h.OwnerID, h.Score, tt.wantScore[i])
				}
			}
			if !slices.Equal(ids, tt.wantOrder) {
				t.Errorf("order = %v, want %v", ids, tt.wantOrder)
			}
			for _, h := range got {
				if h.OwnerID == "b" {
					if h.Distance != -0.8 || h.Matched != 3 || len(h.Chunks) != 1 || h.Chunks[0].Content != "b1" || h.Snippet != "b1" {
						t.Errorf("hit b = %+v, want best chunk b1 only", h)
					}
				}
			}
		})
	}
}

func TestAggregateSnippets(t *testing.T) {
	long := strings.Repeat("á", 500)
	tests := []struct {
		name        string
		chunks      []ScoredChunk
		opts        Options
		wantSnippet string
		wantChunks  int
	}{
		{
			name: "two chunks joined best first",
			chunks: []ScoredChunk{
				{OwnerID: "x", Content: " segundo ", Distance: -0.6, Seq: 1},
				{OwnerID: "x", Content: "primeiro", Distance: -0.7, Seq: 0},
				{OwnerID: "x", Content: "terceiro", Distance: -0.5, Seq: 2},
			},
			opts:        Options{ChunksPerOwner: 2},
			wantSnippet: "primeiro … segundo",
			wantChunks:  2,
		},
		{
			name: "duplicate contents kept once",
			chunks: []ScoredChunk{
				{OwnerID: "x", Content: "igual", Distance: -0.7, Seq: 0},
				{OwnerID: "x", Content: "igual ", Distance: -0.6, Seq: 1},
				{OwnerID: "x", Content: "outro", Distance: -0.5, Seq: 2},
			},
			opts:        Options{ChunksPerOwner: 2},
			wantSnippet: "igual … outro",
			wantChunks:  2,
		},
		{
			name: "equal distances ordered by seq",
			chunks: []ScoredChunk{
				{OwnerID: "x", Content: "depois", Distance: -0.5, Seq: 7},
				{OwnerID: "x", Content: "antes", Distance: -0.5, Seq: 3},
			},
			opts:        Options{ChunksPerOwner: 2},
			wantSnippet: "antes … depois",
			wantChunks:  2,
		},
		{
			name: "repeated long chunk kept once",
			chunks: []ScoredChunk{
				{OwnerID: "x", Content: long, Distance: -0.9},
				{OwnerID: "x", Content: long, Distance: -0.8, Seq: 1},
			},
			opts:        Options{ChunksPerOwner: 3},
			wantSnippet: long,
			wantChunks:  1,
		},
		{
			name: "default 800 runes",
			chunks: []ScoredChunk{
				{OwnerID: "x", Content: long, Distance: -0.9},
				{OwnerID: "x", Content: long + "b", Distance: -0.8, Seq: 1},
			},
			opts:        Options{ChunksPerOwner: 2},
			wantSnippet: long + " … " + strings.Repeat("á", 800-500-3-1) + "…",
			wantChunks:  2,
		},
		{
			name: "custom limit trims trailing space",
			chunks: []ScoredChunk{
				{OwnerID: "x", Content: "abc def ghi", Distance: -0.9},
			},
			opts:        Options{SnippetMaxChars: 5},
			wantSnippet: "abc…",
			wantChunks:  1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Aggregate(tt.chunks, tt.opts)
			if len(got) != 1 {
				t.Fatalf("got %d hits", len(got))
			}
			h := got[0]
			if h.Snippet != tt.wantSnippet {
				t.Errorf("snippet = %q\nwant      %q", h.Snippet, tt.wantSnippet)
			}
			if !utf8.ValidString(h.Snippet) {
				t.Error("snippet is not valid UTF-8")
			}
			if len(h.Chunks) != tt.wantChunks {
				t.Errorf("kept %d chunks, want %d", len(h.Chunks), tt.wantChunks)
			}
		})
	}
}

func TestAggregateEdges(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		if got := Aggregate(nil, Options{}); got != nil {
			t.Errorf("Aggregate(nil) = %v", got)
		}
	})
	t.Run("ignores bad chunks", func(t *testing.T) {
		got := Aggregate([]ScoredChunk{
			{OwnerID: "", Content: "x", Distance: -1},
			{OwnerID: "a", Content: "x", Distance: math.NaN()},
			{OwnerID: "b", Content: "y", Distance: -0.5},
		}, Options{})
		if len(got) != 1 || got[0].OwnerID != "b" {
			t.Errorf("got %+v, want only b", got)
		}
	})
	t.Run("ties by distance then owner id", func(t *testing.T) {
		chunks := []ScoredChunk{
			{OwnerID: "z", Distance: -0.5},
			{OwnerID: "m", Distance: -0.5},
			{OwnerID: "a", Distance: -0.5},
			// Same sum as the others (0.5) but a worse best chunk.
			{OwnerID: "b", Distance: -0.25, Seq: 0},
			{OwnerID: "b", Distance: -0.25, Seq: 1},
		}
		for range 3 {
			var ids []string
			for _, h := range Aggregate(chunks, Options{Mode: vector.AggregateSum}) {
				ids = append(ids, h.OwnerID)
			}
			if want := []string{"a", "m", "z", "b"}; !slices.Equal(ids, want) {
				t.Fatalf("order = %v, want %v", ids, want)
			}
		}
	})
}
