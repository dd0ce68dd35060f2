package llm

import "strings"

// Role is the author of a Message.
type Role string

// The roles of a conversation.
const (
	// RoleSystem carries instructions for the model.
	RoleSystem Role = "system"
	// RoleUser carries what the end user wrote.
	RoleUser Role = "user"
	// RoleAssistant carries a model answer, possibly with tool calls.
	RoleAssistant Role = "assistant"
	// RoleTool carries the result of one tool call back to the model.
	RoleTool Role = "tool"
)

// Message is one entry of a conversation.
//
// Assistant messages may carry ToolCalls (and then often no Content); tool
// messages answer exactly one call, named by ToolCallID. Messages are plain
// values and JSON-serializable, so a transcript can be stored and resumed.
type Message struct {
	// Role is the author.
	Role Role `json:"role"`
	// Content is the text of the message (for tool messages: the result
	// given to the model).
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the ID of the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolName is the name of the tool a tool message answers. Optional;
	// some providers want it, OpenAI ignores it.
	ToolName string `json:"tool_name,omitempty"`
	// IsError marks a tool result that reports a failure (invalid
	// arguments, unknown tool, tool error, rejection). Providers without
	// such a flag only see Content, which then describes the error.
	IsError bool `json:"is_error,omitempty"`
}

// ToolCall is a model's request to run one tool.
type ToolCall struct {
	// ID identifies the call; the tool result message repeats it.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON text the model produced. It is not guaranteed to
	// be valid JSON; RunTools validates it against the tool's schema.
	Arguments string `json:"arguments"`
}

// SystemMessage returns a system message with the given text.
func SystemMessage(text string) Message { return Message{Role: RoleSystem, Content: text} }

// UserMessage returns a user message with the given text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Content: text} }

// AssistantMessage returns an assistant message with the given text and
// optional tool calls.
func AssistantMessage(text string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Content: text, ToolCalls: calls}
}

// ToolResultMessage returns the tool message answering call with content.
func ToolResultMessage(call ToolCall, content string, isError bool) Message {
	return Message{Role: RoleTool, ToolCallID: call.ID, ToolName: call.Name, Content: content, IsError: isError}
}

// clone returns a deep copy of m (the ToolCalls slice is not shared).
func (m Message) clone() Message {
	if m.ToolCalls != nil {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	}
	return m
}

// cloneMessages deep-copies a transcript.
func cloneMessages(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.clone()
	}
	return out
}

// isBlank reports whether s has no visible characters.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
