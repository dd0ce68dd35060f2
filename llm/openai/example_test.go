package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/hybridrag/hybridrag/llm"
	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
)

// The adapter against a local stand-in for an OpenAI-compatible server (an
// httptest server here; Ollama, vLLM or OpenRouter in real use).
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1741569952,"model":"llama3.1:8b",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Temos, sim: Fungicida Azoxistrobina 250 SC."},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":24,"completion_tokens":12,"total_tokens":36}}`)
	}))
	defer srv.Close()

	client := openai.NewClient(
		option.WithBaseURL(srv.URL+"/v1"), // e.g. http://localhost:11434/v1 for Ollama
		option.WithAPIKey("ollama"),
		option.WithMaxRetries(3),
	)
	model := llmopenai.New(client, llmopenai.Options{Model: "llama3.1:8b"})

	resp, err := model.Complete(context.Background(), llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("Você atende uma loja agropecuária."),
			llm.UserMessage("Vocês têm fungicida para soja?"),
		},
		Temperature: llm.Temperature(0.2),
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(resp.Message.Content)
	fmt.Println(resp.Model, resp.Usage.TotalTokens)
	// Output:
	// Temos, sim: Fungicida Azoxistrobina 250 SC.
	// llama3.1:8b 36
}

func ExampleNewEmbedder() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4},
			"data":[{"object":"embedding","index":1,"embedding":[0,1,0]},{"object":"embedding","index":0,"embedding":[1,0,0]}]}`)
	}))
	defer srv.Close()

	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("sk-example"))
	emb := llmopenai.NewEmbedder(client, llmopenai.EmbedderOptions{Dimensions: 3})
	vecs, err := emb.Embed(context.Background(), []string{"fungicida", "adubo"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(vecs)
	// Output: [[1 0 0] [0 1 0]]
}

// Building a client for OpenRouter, with its optional attribution headers,
// and a fallback to a second model. (Not run: it needs the network.)
func Example_openRouter() {
	client := openai.NewClient(
		option.WithBaseURL("https://openrouter.ai/api/v1"),
		option.WithAPIKey("sk-or-..."), // read it from your configuration
		option.WithHeader("HTTP-Referer", "https://shop.example.com"),
		option.WithHeader("X-Title", "Agro Shop"),
		option.WithMaxRetries(3),
	)
	primary := llmopenai.New(client, llmopenai.Options{Model: "openai/gpt-4o-mini"})
	model := llm.WithFallback(primary, primary.WithModel("anthropic/claude-3.5-haiku"))
	_ = model
}
