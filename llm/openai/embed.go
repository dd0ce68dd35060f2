package openai

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"github.com/hybridrag/hybridrag/llm"
)

// Embedding defaults: OpenAI's small embedding model at its native size,
// cheap and good enough for catalog and FAQ retrieval.
const (
	defaultEmbeddingModel = "text-embedding-3-small"
	defaultDimensions     = 1536
	// defaultMaxBatch is OpenAI's limit of inputs per embeddings request.
	defaultMaxBatch = 2048
)

// EmbedderOptions configures an Embedder. The zero value works with OpenAI:
// its small embedding model (text-embedding-3-small) at its native size,
// cheap and good enough for catalog and FAQ retrieval.
type EmbedderOptions struct {
	// Model is the embedding model; "" means "text-embedding-3-small".
	Model string
	// Dimensions is the vector length, sent as the "dimensions" parameter
	// and checked on every returned vector; 0 means 1536.
	Dimensions int
	// OmitDimensions stops sending the "dimensions" parameter, for models
	// and servers that reject it (text-embedding-ada-002, many local
	// models). Returned vectors are still checked against Dimensions.
	OmitDimensions bool
	// MaxBatch is the maximum number of texts per request; larger inputs
	// are split into several requests. 0 means 2048.
	MaxBatch int
}

// Embedder implements vector.Embedder on the OpenAI embeddings API. Vectors
// are returned as the API gives them; OpenAI's are unit length. It is
// immutable and safe for concurrent use.
type Embedder struct {
	client oai.Client
	opts   EmbedderOptions
}

// NewEmbedder returns an Embedder using client, which must be ready to use.
// NewEmbedder does no I/O.
func NewEmbedder(client oai.Client, opts EmbedderOptions) *Embedder {
	opts.Model = cmp.Or(opts.Model, defaultEmbeddingModel)
	if opts.Dimensions <= 0 {
		opts.Dimensions = defaultDimensions
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = defaultMaxBatch
	}
	return &Embedder{client: client, opts: opts}
}

// Dimensions returns the length of every vector Embed returns.
func (e *Embedder) Dimensions() int { return e.opts.Dimensions }

// Model returns the embedding model name.
func (e *Embedder) Model() string { return e.opts.Model }

// Embed returns one vector per text, in input order (the API's "index" field
// is used to place each vector). An empty or blank text is rejected before
// anything is sent (ErrInvalidRequest). A response with a missing, duplicate
// or out-of-range index, a vector whose length is not Dimensions, or a
// non-finite component wraps llm.ErrInvalidResponse. API failures are
// *llm.APIError; retries are the client's (option.WithMaxRetries).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return nil, fmt.Errorf("openai: embeddings: %w: text %d is empty", llm.ErrInvalidRequest, i)
		}
	}
	out := make([][]float32, 0, len(texts))
	for batch := range slices.Chunk(texts, e.opts.MaxBatch) {
		vecs, err := e.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	params := oai.EmbeddingNewParams{
		Model: e.opts.Model,
		Input: oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
	}
	if !e.opts.OmitDimensions {
		params.Dimensions = oai.Int(int64(e.opts.Dimensions))
	}
	res, err := e.client.Embeddings.New(ctx, params)
	if err != nil {
		return nil, mapError("embeddings", err)
	}
	if res == nil || len(res.Data) != len(texts) {
		got := 0
		if res != nil {
			got = len(res.Data)
		}
		return nil, fmt.Errorf("openai: embeddings: %w: %d vectors for %d texts", llm.ErrInvalidResponse, got, len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("openai: embeddings: %w: bad or duplicate index %d", llm.ErrInvalidResponse, d.Index)
		}
		if len(d.Embedding) != e.opts.Dimensions {
			return nil, fmt.Errorf("openai: embeddings: %w: vector %d has %d dimensions, want %d", llm.ErrInvalidResponse, d.Index, len(d.Embedding), e.opts.Dimensions)
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			f := float32(x)
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("openai: embeddings: %w: vector %d has a non-finite component", llm.ErrInvalidResponse, d.Index)
			}
			v[j] = f
		}
		out[d.Index] = v
	}
	return out, nil
}
