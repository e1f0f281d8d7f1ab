package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/testchat"
)

// scriptedChat is a Chat Completions server that streams the answers of
// dir/answers.jsonl, one per request, in turn across the processes of a
// script (the count is kept in dir/.answered). It appends each request's
// body to dir/.requests.
type scriptedChat struct {
	dir string
	mu  sync.Mutex
}

type scriptedAnswer struct {
	Text      string `json:"text"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
}

func (s *scriptedChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.Open(filepath.Join(s.dir, "answers.jsonl"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, strings.ReplaceAll(l, "$WORK", s.dir))
		}
	}
	count := filepath.Join(s.dir, ".answered")
	n := 0
	if b, err := os.ReadFile(count); err == nil {
		fmt.Sscan(string(b), &n)
	}
	if n >= len(lines) {
		http.Error(w, `{"error":{"message":"the script has no more answers"}}`, http.StatusInternalServerError)
		return
	}
	os.WriteFile(count, []byte(fmt.Sprint(n+1)), 0o644)
	// Each request's body, a line each, for scripts to grep.
	if body, err := io.ReadAll(r.Body); err == nil {
		if f, err := os.OpenFile(filepath.Join(s.dir, ".requests"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Write(append(body, '\n'))
			f.Close()
		}
	}
	var a scriptedAnswer
	if err := json.Unmarshal([]byte(lines[n]), &a); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var calls []testchat.Call
	for _, c := range a.ToolCalls {
		calls = append(calls, testchat.Call{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
	}
	testchat.Stream(w, a.Text, calls)
}
