package tracing

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// SpanKind is what a span stands for, as OTLP numbers it.
type SpanKind int32

// The span kinds toolscope records (OTLP's numbers).
const (
	KindInternal SpanKind = 1 // an operation inside the process: a run, a tool call
	KindServer   SpanKind = 2
	KindClient   SpanKind = 3 // a request to another service: a model turn
)

// StatusCode is a span's outcome, as OTLP numbers it.
type StatusCode int32

// The status codes.
const (
	StatusUnset StatusCode = 0
	StatusOK    StatusCode = 1
	StatusError StatusCode = 2
)

// TraceID identifies a trace; SpanID a span of it.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// String is the id in hex, as OTLP/JSON and trace viewers show it.
func (t TraceID) String() string { return hex.EncodeToString(t[:]) }

// String is the id in hex.
func (s SpanID) String() string { return hex.EncodeToString(s[:]) }

// IsZero reports whether s is the zero id: a root span's parent.
func (s SpanID) IsZero() bool { return s == SpanID{} }

// SpanData is a finished span, as an [Exporter] receives it.
type SpanData struct {
	TraceID  TraceID
	SpanID   SpanID
	Parent   SpanID // zero for a root span
	Name     string
	Kind     SpanKind
	Start    time.Time
	End      time.Time
	Attrs    []Attr
	Status   StatusCode
	Message  string // the status message, for StatusError
	Dropped  uint32 // attributes over the limit, left out
	Sampled  bool
	Resource []Attr // the tracer's resource (service.name, ...)
}

// Attr returns the value of the attribute key, and whether it is set.
func (s *SpanData) Attr(key string) (Value, bool) {
	for _, a := range s.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return Value{}, false
}

// An Exporter sends finished spans somewhere: an OTLP endpoint
// ([NewOTLP]), or memory for tests ([Memory]). The [Tracer] calls Export
// from one goroutine at a time, with batches of spans; an error is
// reported once on [Options.Warnings] and the batch is dropped.
type Exporter interface {
	Export(ctx context.Context, spans []SpanData) error
}

// Options configure a [Tracer]; nil means the defaults.
type Options struct {
	// Resource describes the process: service.name and the like. The
	// tracer adds service.name "toolscope" when it has none.
	Resource []Attr
	// QueueSize bounds the spans waiting to be exported; a span that
	// finds the queue full is dropped and counted ([Tracer.Dropped]), so
	// that recording never blocks a tool call. 0 means 2048.
	QueueSize int
	// BatchSize is the most spans of one export; 0 means 512.
	BatchSize int
	// Interval is how long a span waits at most before it is exported; 0
	// means 5 s.
	Interval time.Duration
	// ExportTimeout bounds one export; 0 means 10 s.
	ExportTimeout time.Duration
	// CaptureContent records the tools' inputs and results
	// (gen_ai.tool.call.arguments and gen_ai.tool.call.result), after
	// [Redact]; off by default, as the GenAI conventions ask.
	CaptureContent bool
	// Warnings receives a line the first time an export fails, and one at
	// [Tracer.Shutdown] when spans were dropped; nil discards them.
	Warnings io.Writer
}

// maxAttrs bounds the attributes of one span (OTel's default limit).
const maxAttrs = 128

// A Tracer records spans and hands the finished ones to its exporter in
// batches, from a goroutine of its own. The nil *Tracer records nothing,
// and costs nothing: every method of it, and of the nil *[Span] it
// returns, does nothing.
type Tracer struct {
	exp      Exporter
	resource []Attr
	capture  bool
	queue    chan SpanData
	flush    chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	batch    int
	interval time.Duration
	timeout  time.Duration
	warn     io.Writer
	warnOnce sync.Once
	closed   atomic.Bool
	dropped  atomic.Int64
	failed   atomic.Int64
	stopOnce sync.Once
}

// New returns a tracer exporting to exp. Call [Tracer.Shutdown] at the
// end to export what is left.
func New(exp Exporter, o *Options) *Tracer {
	if o == nil {
		o = &Options{}
	}
	t := &Tracer{exp: exp, capture: o.CaptureContent, warn: o.Warnings,
		batch: o.BatchSize, interval: o.Interval, timeout: o.ExportTimeout,
		flush: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	qs := o.QueueSize
	if qs <= 0 {
		qs = 2048
	}
	if t.batch <= 0 {
		t.batch = 512
	}
	if t.interval <= 0 {
		t.interval = 5 * time.Second
	}
	if t.timeout <= 0 {
		t.timeout = 10 * time.Second
	}
	t.queue = make(chan SpanData, qs)
	t.resource = append([]Attr(nil), o.Resource...)
	if _, ok := find(t.resource, "service.name"); !ok {
		t.resource = append(t.resource, String("service.name", "toolscope"))
	}
	go t.loop()
	return t
}

func find(attrs []Attr, key string) (Value, bool) {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return Value{}, false
}

// Dropped counts the spans dropped so far: the queue was full, or the
// tracer was shut down.
func (t *Tracer) Dropped() int64 {
	if t == nil {
		return 0
	}
	return t.dropped.Load()
}

// Failed counts the spans of the exports that failed.
func (t *Tracer) Failed() int64 {
	if t == nil {
		return 0
	}
	return t.failed.Load()
}

// Flush exports the spans ended so far, waiting until they are sent or
// ctx ends.
func (t *Tracer) Flush(ctx context.Context) error {
	if t == nil || t.closed.Load() {
		return nil
	}
	ack := make(chan struct{})
	select {
	case t.flush <- ack:
	case <-t.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports the spans ended so far and stops the tracer, within
// ctx's deadline: what is not sent by then is dropped. Spans that end
// after Shutdown are dropped. It reports dropped spans on the warnings.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.stopOnce.Do(func() {
		t.closed.Store(true)
		close(t.stop)
	})
	var err error
	select {
	case <-t.done:
	case <-ctx.Done():
		err = fmt.Errorf("tracing: shutdown: %w", ctx.Err())
	}
	if n := t.dropped.Load(); n > 0 && t.warn != nil {
		fmt.Fprintf(t.warn, "toolscope: warning: tracing: %d spans were dropped (the export queue was full, or the process ended first)\n", n)
	}
	return err
}

// loop is the exporting goroutine.
func (t *Tracer) loop() {
	defer close(t.done)
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	buf := make([]SpanData, 0, t.batch)
	send := func() {
		if len(buf) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
		err := t.exp.Export(ctx, buf)
		cancel()
		if err != nil {
			t.failed.Add(int64(len(buf)))
			t.warnOnce.Do(func() {
				if t.warn != nil {
					fmt.Fprintf(t.warn, "toolscope: warning: tracing: %v (later failures are not reported; the run goes on)\n", err)
				}
			})
		}
		clear(buf)
		buf = buf[:0]
	}
	drain := func() {
		for {
			select {
			case s := <-t.queue:
				buf = append(buf, s)
				if len(buf) >= t.batch {
					send()
				}
			default:
				send()
				return
			}
		}
	}
	for {
		select {
		case s := <-t.queue:
			buf = append(buf, s)
			if len(buf) >= t.batch {
				send()
			}
		case <-tick.C:
			send()
		case ack := <-t.flush:
			drain()
			close(ack)
		case <-t.stop:
			drain()
			// Spans that raced with the stop: dropped, counted.
			for {
				select {
				case <-t.queue:
					t.dropped.Add(1)
				default:
					return
				}
			}
		}
	}
}

// A Span is an operation in progress. Its methods may be called from
// several goroutines; those of the nil *Span do nothing.
type Span struct {
	t     *Tracer
	mu    sync.Mutex
	data  SpanData
	ended bool
}

type spanKey struct{}

// fromContext returns the span ctx carries, or nil.
func fromContext(ctx context.Context) *Span {
	s, _ := ctx.Value(spanKey{}).(*Span)
	return s
}

// Start starts a span named name as a child of the span ctx carries (a
// new trace when it carries none), and returns a context carrying it.
// The nil *Tracer returns ctx and a nil *Span.
func (t *Tracer) Start(ctx context.Context, name string, kind SpanKind, attrs ...Attr) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	s := &Span{t: t}
	s.data = SpanData{Name: name, Kind: kind, Start: time.Now(), Sampled: true}
	if p := fromContext(ctx); p != nil && p.t == t {
		s.data.TraceID, s.data.Parent = p.data.TraceID, p.data.SpanID
	} else {
		s.data.TraceID = newTraceID()
	}
	s.data.SpanID = newSpanID()
	s.SetAttr(attrs...)
	return context.WithValue(ctx, spanKey{}, s), s
}

func newTraceID() TraceID {
	var id TraceID
	for id == (TraceID{}) {
		a, b := rand.Uint64(), rand.Uint64()
		for i := range 8 {
			id[i], id[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
		}
	}
	return id
}

func newSpanID() SpanID {
	var id SpanID
	for id == (SpanID{}) {
		a := rand.Uint64()
		for i := range 8 {
			id[i] = byte(a >> (8 * i))
		}
	}
	return id
}

// SetAttr sets attributes; a key set again takes the new value.
func (s *Span) SetAttr(attrs ...Attr) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
outer:
	for _, a := range attrs {
		for i := range s.data.Attrs {
			if s.data.Attrs[i].Key == a.Key {
				s.data.Attrs[i].Value = a.Value
				continue outer
			}
		}
		if len(s.data.Attrs) >= maxAttrs {
			s.data.Dropped++
			continue
		}
		s.data.Attrs = append(s.data.Attrs, a)
	}
}

// SetError marks the span failed: error.type is errType (a short class:
// "timeout", "tool_error", a Go type), and msg the status message, after
// [Redact].
func (s *Span) SetError(errType, msg string) {
	if s == nil {
		return
	}
	s.SetAttr(String("error.type", errType))
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.data.Status, s.data.Message = StatusError, truncate(Redact(msg), maxValue)
	}
}

// IDs return the span's trace and span ids (zero for the nil span).
func (s *Span) IDs() (TraceID, SpanID) {
	if s == nil {
		return TraceID{}, SpanID{}
	}
	return s.data.TraceID, s.data.SpanID
}

// End ends the span and queues it for export; it never blocks: with the
// queue full, the span is dropped and counted. Only the first End counts.
func (s *Span) End() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	s.data.End = time.Now()
	d := s.data
	s.mu.Unlock()
	t := s.t
	if t.closed.Load() {
		t.dropped.Add(1)
		return
	}
	d.Resource = t.resource
	select {
	case t.queue <- d:
	default:
		t.dropped.Add(1)
	}
}
