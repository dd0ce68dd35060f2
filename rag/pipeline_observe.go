package rag

import (
	"context"
	"iter"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/trace"
)

// The chat side's tracing and token counting (the search side's logging
// and tracing are in observe.go).

// countTokens counts text's tokens with the Pipeline's TokenCounter.
func (p *Pipeline) countTokens(text string) int {
	if p.opts.TokenCounter != nil {
		return p.opts.TokenCounter.CountTokens(text)
	}
	return llm.EstimateTokens(text)
}

// turnTokens counts the tokens of the turns' contents.
func (p *Pipeline) turnTokens(turns []Turn) int {
	n := 0
	for _, t := range turns {
		n += p.countTokens(t.Content)
	}
	return n
}

// modelStart starts tracing a model call of step; promptTokens is called
// only when there is a tracer. end, nil without a tracer, ends the call.
func (p *Pipeline) modelStart(ctx context.Context, step string, promptTokens func() int) (context.Context, func(trace.ModelEndData)) {
	t := p.opts.Tracer
	if t == nil {
		return ctx, nil
	}
	ctx = t.TraceModelStart(ctx, trace.ModelStartData{Step: step, PromptTokens: promptTokens()})
	return ctx, func(d trace.ModelEndData) { t.TraceModelEnd(ctx, d) }
}

// tracedModel traces each call of an agentic turn's model with
// PipelineOptions.Tracer.
type tracedModel struct {
	llm.ChatModel
	tracer trace.ModelTracer
	count  func(string) int
}

func (m tracedModel) start(ctx context.Context, req llm.Request) context.Context {
	n := 0
	for _, msg := range req.Messages {
		n += m.count(msg.Content)
	}
	return m.tracer.TraceModelStart(ctx, trace.ModelStartData{Step: stepTools, Model: req.Model, PromptTokens: n})
}

// Complete traces one model call.
func (m tracedModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx = m.start(ctx, req)
	resp, err := m.ChatModel.Complete(ctx, req)
	m.tracer.TraceModelEnd(ctx, trace.ModelEndData{Model: resp.Model, Usage: resp.Usage, FinishReason: resp.FinishReason, Err: err})
	return resp, err
}

// Stream traces one streamed model call: it ends with the stream's done
// event or error, or when the caller stops ranging.
func (m tracedModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		ctx := m.start(ctx, req)
		var end trace.ModelEndData
		defer func() { m.tracer.TraceModelEnd(ctx, end) }()
		for ev, err := range m.ChatModel.Stream(ctx, req) {
			if err != nil {
				end.Err = err
			} else if ev.Kind == llm.StreamDone && ev.Response != nil {
				end.Model, end.Usage, end.FinishReason = ev.Response.Model, ev.Response.Usage, ev.Response.FinishReason
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
