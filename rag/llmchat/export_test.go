package llmchat

import (
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
)

// RequestForTest returns the model request an answer sends, for the
// prompt golden tests.
func (a *Answerer) RequestForTest(req rag.AnswerRequest) (llm.Request, error) {
	return a.request(req)
}
