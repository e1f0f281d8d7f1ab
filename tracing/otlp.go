package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Protocol is how the OTLP exporter encodes a request.
type Protocol string

// The OTLP/HTTP encodings ($OTEL_EXPORTER_OTLP_PROTOCOL).
const (
	HTTPProtobuf Protocol = "http/protobuf"
	HTTPJSON     Protocol = "http/json"
)

// OTLPOptions configure [NewOTLP].
type OTLPOptions struct {
	// URL is where the requests go, whole: "http://localhost:4318/v1/traces".
	URL string
	// Protocol is HTTPProtobuf (the default) or HTTPJSON.
	Protocol Protocol
	// Headers are added to every request (an API key of the backend).
	// They are never logged.
	Headers map[string]string
	// Gzip compresses the requests.
	Gzip bool
	// Client sends the requests; nil means a client of its own.
	Client *http.Client
}

// OTLP exports spans to an OpenTelemetry collector or backend over
// OTLP/HTTP. It is an [Exporter].
type OTLP struct {
	o      OTLPOptions
	client *http.Client
	shown  string // the URL without credentials, for messages
}

// NewOTLP returns an exporter to the endpoint o describes; the URL must be
// http or https.
func NewOTLP(o OTLPOptions) (*OTLP, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing: the OTLP endpoint %q is not an http:// or https:// URL with a host; give one such as http://localhost:4318", redactURL(o.URL))
	}
	switch o.Protocol {
	case "":
		o.Protocol = HTTPProtobuf
	case HTTPProtobuf, HTTPJSON:
	default:
		return nil, fmt.Errorf("tracing: OTLP protocol %q is not supported; use http/protobuf or http/json", o.Protocol)
	}
	c := o.Client
	if c == nil {
		c = &http.Client{}
	}
	return &OTLP{o: o, client: c, shown: redactURL(o.URL)}, nil
}

// redactURL is u without its user information and query.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return Redact(s)
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

// Export sends spans in one request. A response other than 2xx is an
// error naming the status; 429, 502, 503 and 504 are retried once.
func (e *OTLP) Export(ctx context.Context, spans []SpanData) error {
	if len(spans) == 0 {
		return nil
	}
	var body []byte
	ctype := "application/x-protobuf"
	if e.o.Protocol == HTTPJSON {
		var err error
		if body, err = EncodeJSON(spans); err != nil {
			return fmt.Errorf("tracing: encoding spans: %w", err)
		}
		ctype = "application/json"
	} else {
		body = EncodeProtobuf(spans)
	}
	if e.o.Gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		zw.Close()
		body = b.Bytes()
	}
	for attempt := 0; ; attempt++ {
		retry, err := e.post(ctx, body, ctype)
		if err == nil || !retry || attempt > 0 {
			return err
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return err
		}
	}
}

func (e *OTLP) post(ctx context.Context, body []byte, ctype string) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.o.URL, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Errorf("tracing: export to %s: %v", e.shown, err)
	}
	for k, v := range e.o.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("User-Agent", "toolscope-tracing")
	if e.o.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		// The error names the URL; said without its credentials.
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return true, fmt.Errorf("tracing: export to %s failed: %v", e.shown, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		retry = true
	}
	return retry, fmt.Errorf("tracing: export to %s: the collector answered %s", e.shown, resp.Status)
}

// The scope of toolscope's spans.
const (
	scopeName    = "github.com/toolscope/toolscope/tracing"
	scopeVersion = "0.1.0"
	// SchemaURL is the semantic conventions version the spans follow.
	SchemaURL = "https://opentelemetry.io/schemas/1.41.0"
)

// groups splits spans by resource, keeping their order: one tracer's
// spans share one.
func groups(spans []SpanData) [][]SpanData {
	var out [][]SpanData
	start := 0
	for i := 1; i <= len(spans); i++ {
		if i == len(spans) || !sameAttrs(spans[i].Resource, spans[start].Resource) {
			out = append(out, spans[start:i])
			start = i
		}
	}
	return out
}

func sameAttrs(a, b []Attr) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 0 && &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value.String() != b[i].Value.String() || a[i].Value.kind != b[i].Value.kind {
			return false
		}
	}
	return true
}

// EncodeProtobuf encodes spans as an OTLP ExportTraceServiceRequest
// (opentelemetry/proto/collector/trace/v1), the body of an
// OTLP/HTTP protobuf request.
func EncodeProtobuf(spans []SpanData) []byte {
	var req pb
	for _, g := range groups(spans) {
		req.message(1, func(rs *pb) { // ResourceSpans
			rs.message(1, func(r *pb) { // Resource
				for _, a := range g[0].Resource {
					r.message(1, func(kv *pb) { kv.attr(a) })
				}
			})
			rs.message(2, func(ss *pb) { // ScopeSpans
				ss.message(1, func(sc *pb) { // InstrumentationScope
					sc.str(1, scopeName)
					sc.str(2, scopeVersion)
				})
				for i := range g {
					ss.message(2, func(sp *pb) { sp.span(&g[i]) })
				}
				ss.str(3, SchemaURL)
			})
			rs.str(3, SchemaURL)
		})
	}
	return req.b
}

// pb is a protobuf writer: fields are appended in order, and a nested
// message is written to a writer of its own, then appended with its
// length.
type pb struct{ b []byte }

func (p *pb) tag(field int, wire int) { p.b = binary.AppendUvarint(p.b, uint64(field)<<3|uint64(wire)) }

func (p *pb) bytes(field int, v []byte) {
	p.tag(field, 2)
	p.b = binary.AppendUvarint(p.b, uint64(len(v)))
	p.b = append(p.b, v...)
}

func (p *pb) str(field int, s string) {
	if s == "" {
		return
	}
	p.tag(field, 2)
	p.b = binary.AppendUvarint(p.b, uint64(len(s)))
	p.b = append(p.b, s...)
}

func (p *pb) varint(field int, v uint64) {
	if v == 0 {
		return
	}
	p.tag(field, 0)
	p.b = binary.AppendUvarint(p.b, v)
}

func (p *pb) fixed64(field int, v uint64) {
	p.tag(field, 1)
	p.b = binary.LittleEndian.AppendUint64(p.b, v)
}

func (p *pb) fixed32(field int, v uint32) {
	p.tag(field, 5)
	p.b = binary.LittleEndian.AppendUint32(p.b, v)
}

func (p *pb) message(field int, fill func(*pb)) {
	var sub pb
	fill(&sub)
	p.bytes(field, sub.b)
}

// attr writes a KeyValue's fields.
func (p *pb) attr(a Attr) {
	p.str(1, a.Key)
	p.message(2, func(v *pb) { v.value(a.Value) })
}

// value writes an AnyValue's fields.
func (p *pb) value(v Value) {
	switch v.kind {
	case KindString:
		p.tag(1, 2)
		p.b = binary.AppendUvarint(p.b, uint64(len(v.s)))
		p.b = append(p.b, v.s...)
	case KindBool:
		p.tag(2, 0)
		p.b = binary.AppendUvarint(p.b, uint64(v.n))
	case KindInt:
		p.tag(3, 0)
		p.b = binary.AppendUvarint(p.b, uint64(v.n))
	case KindFloat:
		p.fixed64(4, math.Float64bits(v.f))
	case KindStrings:
		p.message(5, func(arr *pb) { // ArrayValue
			for _, s := range v.ss {
				arr.message(1, func(e *pb) { e.value(Value{kind: KindString, s: s}) })
			}
		})
	}
}

// span writes a Span's fields.
func (p *pb) span(s *SpanData) {
	p.bytes(1, s.TraceID[:])
	p.bytes(2, s.SpanID[:])
	if !s.Parent.IsZero() {
		p.bytes(4, s.Parent[:])
	}
	p.str(5, s.Name)
	p.varint(6, uint64(s.Kind))
	p.fixed64(7, uint64(s.Start.UnixNano()))
	p.fixed64(8, uint64(s.End.UnixNano()))
	for _, a := range s.Attrs {
		p.message(9, func(kv *pb) { kv.attr(a) })
	}
	p.varint(10, uint64(s.Dropped))
	if s.Status != StatusUnset || s.Message != "" {
		p.message(15, func(st *pb) {
			st.str(2, s.Message)
			st.varint(3, uint64(s.Status))
		})
	}
	if s.Sampled {
		p.fixed32(16, 1) // W3C trace flags: sampled
	}
}

// EncodeJSON encodes spans as an OTLP/JSON ExportTraceServiceRequest: the
// protobuf message's JSON mapping, with ids in hex and 64-bit integers as
// strings, as OTLP/JSON asks.
func EncodeJSON(spans []SpanData) ([]byte, error) {
	type m = map[string]any
	var rss []m
	for _, g := range groups(spans) {
		var ss []m
		for i := range g {
			s := &g[i]
			j := m{
				"traceId":           s.TraceID.String(),
				"spanId":            s.SpanID.String(),
				"name":              s.Name,
				"kind":              int(s.Kind),
				"startTimeUnixNano": strconv.FormatInt(s.Start.UnixNano(), 10),
				"endTimeUnixNano":   strconv.FormatInt(s.End.UnixNano(), 10),
				"attributes":        jsonAttrs(s.Attrs),
			}
			if !s.Parent.IsZero() {
				j["parentSpanId"] = s.Parent.String()
			}
			if s.Dropped > 0 {
				j["droppedAttributesCount"] = s.Dropped
			}
			if s.Status != StatusUnset || s.Message != "" {
				j["status"] = m{"code": int(s.Status), "message": s.Message}
			}
			if s.Sampled {
				j["flags"] = 1
			}
			ss = append(ss, j)
		}
		rss = append(rss, m{
			"resource":   m{"attributes": jsonAttrs(g[0].Resource)},
			"scopeSpans": []m{{"scope": m{"name": scopeName, "version": scopeVersion}, "spans": ss, "schemaUrl": SchemaURL}},
			"schemaUrl":  SchemaURL,
		})
	}
	return json.Marshal(m{"resourceSpans": rss})
}

func jsonAttrs(attrs []Attr) []map[string]any {
	out := make([]map[string]any, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, map[string]any{"key": a.Key, "value": jsonValue(a.Value)})
	}
	return out
}

func jsonValue(v Value) map[string]any {
	switch v.kind {
	case KindString:
		return map[string]any{"stringValue": v.s}
	case KindBool:
		return map[string]any{"boolValue": v.n != 0}
	case KindInt:
		return map[string]any{"intValue": strconv.FormatInt(v.n, 10)}
	case KindFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return map[string]any{"stringValue": v.String()}
		}
		return map[string]any{"doubleValue": v.f}
	case KindStrings:
		vals := make([]map[string]any, len(v.ss))
		for i, s := range v.ss {
			vals[i] = map[string]any{"stringValue": s}
		}
		return map[string]any{"arrayValue": map[string]any{"values": vals}}
	}
	return map[string]any{}
}
