package tool

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/permission"
)

// Status is the state of a chunk or a result.
type Status string

// The statuses. A tool's chunks are StatusRunning (the zero value means the
// same) or one of Error, Interrupted and Denied; the toolkit adds the others.
const (
	StatusRunning     Status = "running"
	StatusSuccess     Status = "success"
	StatusError       Status = "error"
	StatusInterrupted Status = "interrupted"
	StatusDenied      Status = "denied"
	// StatusAsking: the call needs a human's approval; Result.Decision says
	// why and carries suggested rules. Run it again with Call.Approved set.
	StatusAsking Status = "asking"
	// StatusSubmitted: the tool is External; the caller runs it and attaches
	// the outcome with [Result.Complete].
	StatusSubmitted Status = "submitted"
	// StatusPending: the call was not started because an earlier call of the
	// same batch waits for approval or an external result.
	StatusPending Status = "pending"
)

// BlockKind says what a [Block] holds.
type BlockKind string

// The block kinds.
const (
	KindText BlockKind = "text"
	KindData BlockKind = "data"
)

// Block is one piece of a tool's output: text, or binary data (an image, a
// PDF) given inline or by URL. Chunks of one block streamed in pieces share an
// ID; [Result.Append] joins them.
type Block struct {
	Kind BlockKind `json:"type"`
	ID   string    `json:"id,omitempty"`
	Text string    `json:"text,omitempty"`
	// MediaType is the MIME type of data ("image/png").
	MediaType string `json:"media_type,omitempty"`
	// Data is inline bytes; JSON carries them as base64.
	Data []byte `json:"data,omitempty"`
	// URL locates data that is not inline.
	URL string `json:"url,omitempty"`
	// Name is an optional file name for data.
	Name string `json:"name,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Kind: KindText, Text: s} }

// DataBlock returns an inline data block.
func DataBlock(mediaType string, data []byte) Block {
	return Block{Kind: KindData, MediaType: mediaType, Data: data}
}

// Chunk is a piece of a tool's output, as it streams.
type Chunk struct {
	Content  []Block        `json:"content,omitempty"`
	Status   Status         `json:"status,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// Decision is set on the chunk the toolkit makes when the permission
	// engine stops or defers a call.
	Decision *permission.Decision `json:"decision,omitempty"`
	// Structured is structured content (a JSON object matching the tool's
	// OutputSchema); the last one given is the result's.
	Structured json.RawMessage `json:"structured,omitempty"`
	// Progress, when set, makes this a progress report for the host to
	// show: it is never part of the result the model reads.
	Progress *Progress `json:"progress,omitempty"`
}

// Progress is how far a call has come.
type Progress struct {
	Message string  `json:"message,omitempty"`
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"` // 0: unknown
}

// Text returns a running chunk holding s.
func Text(s string) *Chunk { return &Chunk{Content: []Block{TextBlock(s)}} }

// Errorf returns an error chunk whose text the model sees.
func Errorf(format string, args ...any) *Chunk {
	return &Chunk{Content: []Block{TextBlock(fmt.Sprintf(format, args...))}, Status: StatusError}
}

// Result is the accumulated outcome of one call.
type Result struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Input is the validated input (for a submitted external call: what the
	// caller must run).
	Input    json.RawMessage `json:"input,omitempty"`
	Status   Status          `json:"status"`
	Content  []Block         `json:"content"`
	Metadata map[string]any  `json:"metadata,omitempty"`
	// Decision is the permission decision that stopped or deferred the call,
	// or allowed it.
	Decision *permission.Decision `json:"decision,omitempty"`
	// StructuredContent is the last structured content a chunk carried.
	StructuredContent json.RawMessage `json:"structured_content,omitempty"`
}

// Append adds a chunk to r, following the accumulation rules:
//   - a block whose ID is already in r is joined to it: text is concatenated,
//     inline data appended; two URL blocks with one ID are an error; a block of
//     another kind with a known ID is added as a new block;
//   - any other block is added;
//   - an error chunk makes the result an error; otherwise an interrupted or
//     denied chunk sets that status; running chunks leave the status alone;
//   - metadata is merged, later keys winning.
func (r *Result) Append(c *Chunk) error {
	if c == nil || c.Progress != nil {
		return nil // progress is for the host, not the result
	}
	if len(c.Structured) > 0 {
		r.StructuredContent = slices.Clone(c.Structured)
	}
	for _, b := range c.Content {
		i := -1
		if b.ID != "" {
			i = slices.IndexFunc(r.Content, func(x Block) bool { return x.ID == b.ID })
		}
		switch {
		case i < 0:
			b.Data = slices.Clone(b.Data)
			r.Content = append(r.Content, b)
		case r.Content[i].Kind != b.Kind:
			b.ID = ""
			b.Data = slices.Clone(b.Data)
			r.Content = append(r.Content, b)
		case b.Kind == KindText:
			r.Content[i].Text += b.Text
		case b.URL != "" || r.Content[i].URL != "":
			return fmt.Errorf("result %s: two URL data blocks share the id %q", r.Name, b.ID)
		default:
			r.Content[i].Data = append(slices.Clip(r.Content[i].Data), b.Data...)
		}
	}
	switch c.Status {
	case StatusError:
		r.Status = StatusError
	case StatusInterrupted, StatusDenied:
		if r.Status != StatusError {
			r.Status = c.Status
		}
	case StatusAsking, StatusSubmitted, StatusPending, StatusSuccess:
		if r.Status == "" || r.Status == StatusRunning {
			r.Status = c.Status
		}
	}
	if len(c.Metadata) > 0 {
		if r.Metadata == nil {
			r.Metadata = make(map[string]any, len(c.Metadata))
		}
		maps.Copy(r.Metadata, c.Metadata)
	}
	if c.Decision != nil {
		r.Decision = c.Decision
	}
	return nil
}

// Finish settles r once the last chunk of a stream is in, as
// [Toolkit.Call] does: a result still running (or with no status) has
// succeeded, and consecutive text blocks become one. A caller that runs
// [Toolkit.Stream] and gathers the chunks with [Result.Append] calls it
// after the stream ends. Finishing twice changes nothing.
func (r *Result) Finish() {
	if r.Status == "" || r.Status == StatusRunning {
		r.Status = StatusSuccess
	}
	out := r.Content[:0]
	for _, b := range r.Content {
		if n := len(out); n > 0 && b.Kind == KindText && out[n-1].Kind == KindText {
			out[n-1].Text += b.Text
			continue
		}
		out = append(out, b)
	}
	clear(r.Content[len(out):])
	r.Content = out
}

// Text returns the text of all text blocks of r, concatenated.
func (r *Result) Text() string {
	var b strings.Builder
	for _, x := range r.Content {
		if x.Kind == KindText {
			b.WriteString(x.Text)
		}
	}
	return b.String()
}

// IsError reports whether the result is one the model should read as a failure.
func (r *Result) IsError() bool { return r.Status == StatusError }

// Complete attaches the outcome of an external execution to a submitted
// result: its content, metadata and final status (success when ext has none).
func (r *Result) Complete(ext *Result) error {
	if r.Status != StatusSubmitted {
		return fmt.Errorf("complete %s: result is %s, not submitted", r.Name, r.Status)
	}
	if ext == nil {
		return fmt.Errorf("complete %s: nil external result", r.Name)
	}
	r.Status = StatusRunning
	if err := r.Append(&Chunk{Content: ext.Content, Status: ext.Status, Metadata: ext.Metadata}); err != nil {
		return err
	}
	r.Finish()
	return nil
}
