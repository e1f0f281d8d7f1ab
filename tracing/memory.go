package tracing

import (
	"context"
	"slices"
	"sync"
)

// Memory is an [Exporter] that keeps the spans it is given, for tests
// and for a host that shows them itself.
type Memory struct {
	mu    sync.Mutex
	spans []SpanData
}

// Export keeps spans.
func (m *Memory) Export(_ context.Context, spans []SpanData) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range spans {
		s.Attrs = slices.Clone(s.Attrs)
		m.spans = append(m.spans, s)
	}
	return nil
}

// Spans returns the spans exported so far, in the order they ended.
func (m *Memory) Spans() []SpanData {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.spans)
}

// Reset forgets the spans.
func (m *Memory) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spans = nil
}
