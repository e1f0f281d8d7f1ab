// Package testchat answers a Chat Completions request as a streaming
// server does, for the tests that run the openai provider against a
// scripted model.
package testchat

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// A Call is a tool call of a scripted answer; Arguments is its JSON input.
type Call struct {
	ID, Name, Arguments string
}

// Stream writes an answer of text and calls to w as server-sent events, the
// way a Chat Completions server streams one.
func Stream(w http.ResponseWriter, text string, calls []Call) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta string) {
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"scripted\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", delta)
	}
	if text != "" {
		t, _ := json.Marshal(text)
		chunk(`{"content":` + string(t) + `}`)
	}
	for i, c := range calls {
		args, _ := json.Marshal(c.Arguments)
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, i, c.ID, c.Name, args))
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
