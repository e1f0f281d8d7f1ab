package tracing

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// EnvOptions configure [FromEnv]; nil means the defaults.
type EnvOptions struct {
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Warnings receives the tracer's warnings, and FromEnv's about
	// settings it does not support; nil discards them.
	Warnings io.Writer
	// Client sends the export requests; nil means a client of its own.
	Client *http.Client
	// Resource is added to the environment's resource attributes
	// (service.version, say); the environment's win.
	Resource []Attr
}

// FromEnv returns the tracer the OpenTelemetry environment variables ask
// for, or nil (tracing off) when they ask for none. Tracing is on when an
// OTLP endpoint is set ($OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, used as it is,
// or $OTEL_EXPORTER_OTLP_ENDPOINT, to which /v1/traces is added), unless
// $OTEL_TRACES_EXPORTER is "none" or $OTEL_SDK_DISABLED is "true". It
// reads, for traces or for all signals (the TRACES_ one first):
//
//	OTEL_EXPORTER_OTLP_PROTOCOL     http/protobuf (default) or http/json; grpc is
//	                                not supported: a warning, and no tracing
//	OTEL_EXPORTER_OTLP_HEADERS      k=v,k2=v2 (values URL-encoded), never logged
//	OTEL_EXPORTER_OTLP_TIMEOUT      one export's bound, in milliseconds (10000)
//	OTEL_EXPORTER_OTLP_COMPRESSION  gzip or none
//	OTEL_SERVICE_NAME               service.name (default "toolscope")
//	OTEL_RESOURCE_ATTRIBUTES        k=v,k2=v2 (values URL-encoded)
//	OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_SCHEDULE_DELAY (ms)
//	OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT  true: record the tools'
//	                                inputs and results, redacted ([Redact])
//
// A setting it cannot use is an error naming the variable (never its
// value, which may hold a key); the caller goes on without tracing.
func FromEnv(o *EnvOptions) (*Tracer, error) {
	if o == nil {
		o = &EnvOptions{}
	}
	get := o.Getenv
	if get == nil {
		get = os.Getenv
	}
	env := func(name string) (string, string) {
		if v := strings.TrimSpace(get("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
			return v, "OTEL_EXPORTER_OTLP_TRACES_" + name
		}
		return strings.TrimSpace(get("OTEL_EXPORTER_OTLP_" + name)), "OTEL_EXPORTER_OTLP_" + name
	}
	if strings.EqualFold(strings.TrimSpace(get("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	if exp := strings.TrimSpace(get("OTEL_TRACES_EXPORTER")); exp != "" {
		otlp := false
		for _, e := range strings.Split(exp, ",") {
			switch strings.ToLower(strings.TrimSpace(e)) {
			case "none":
				return nil, nil
			case "otlp":
				otlp = true
			}
		}
		if !otlp {
			return nil, fmt.Errorf("tracing: OTEL_TRACES_EXPORTER=%q: toolscope exports traces over OTLP only; set it to otlp (or none)", exp)
		}
	}
	endpoint := strings.TrimSpace(get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
	if endpoint == "" {
		base := strings.TrimSpace(get("OTEL_EXPORTER_OTLP_ENDPOINT"))
		if base == "" {
			return nil, nil // off
		}
		endpoint = strings.TrimRight(base, "/") + "/v1/traces"
	}
	protocol, pvar := env("PROTOCOL")
	switch Protocol(protocol) {
	case "", HTTPProtobuf, HTTPJSON:
	case "grpc":
		return nil, fmt.Errorf("tracing: %s=grpc is not supported: toolscope exports over OTLP/HTTP; set it to http/protobuf and point the endpoint at the collector's HTTP port (4318)", pvar)
	default:
		return nil, fmt.Errorf("tracing: %s=%q is not a protocol toolscope knows; use http/protobuf or http/json", pvar, protocol)
	}
	oo := OTLPOptions{URL: endpoint, Protocol: Protocol(protocol), Client: o.Client}
	if h, hvar := env("HEADERS"); h != "" {
		var err error
		if oo.Headers, err = parsePairs(h); err != nil {
			return nil, fmt.Errorf("tracing: %s: %v (the form is key=value,key2=value2)", hvar, err)
		}
		for k, v := range oo.Headers {
			if !validHeaderName(k) {
				return nil, fmt.Errorf("tracing: %s: %q is not a header name", hvar, k)
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, fmt.Errorf("tracing: %s: the value of %s holds a line break or NUL", hvar, k)
			}
		}
	}
	switch c, cvar := env("COMPRESSION"); strings.ToLower(c) {
	case "", "none":
	case "gzip":
		oo.Gzip = true
	default:
		return nil, fmt.Errorf("tracing: %s=%q: use gzip or none", cvar, c)
	}
	opts := &Options{Warnings: o.Warnings}
	if v, tvar := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("tracing: %s=%q: want a positive number of milliseconds", tvar, v)
		}
		opts.ExportTimeout = time.Duration(ms) * time.Millisecond
	}
	for _, n := range []struct {
		name string
		into func(int)
	}{
		{"OTEL_BSP_MAX_QUEUE_SIZE", func(v int) { opts.QueueSize = v }},
		{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", func(v int) { opts.BatchSize = v }},
		{"OTEL_BSP_SCHEDULE_DELAY", func(v int) { opts.Interval = time.Duration(v) * time.Millisecond }},
	} {
		if v := strings.TrimSpace(get(n.name)); v != "" {
			x, err := strconv.Atoi(v)
			if err != nil || x <= 0 {
				return nil, fmt.Errorf("tracing: %s=%q: want a positive integer", n.name, v)
			}
			n.into(x)
		}
	}
	var res []Attr
	if ra := strings.TrimSpace(get("OTEL_RESOURCE_ATTRIBUTES")); ra != "" {
		pairs, err := parsePairs(ra)
		if err != nil {
			return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES: %v (the form is key=value,key2=value2)", err)
		}
		for _, k := range sortedKeys(pairs) {
			res = append(res, String(k, pairs[k]))
		}
	}
	if sn := strings.TrimSpace(get("OTEL_SERVICE_NAME")); sn != "" {
		res = setAttr(res, String("service.name", sn))
	}
	for _, a := range o.Resource {
		if _, ok := find(res, a.Key); !ok {
			res = append(res, a)
		}
	}
	for _, a := range []Attr{String("telemetry.sdk.name", "toolscope"), String("telemetry.sdk.language", "go")} {
		if _, ok := find(res, a.Key); !ok {
			res = append(res, a)
		}
	}
	opts.Resource = res
	opts.CaptureContent = strings.EqualFold(strings.TrimSpace(get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")
	exp, err := NewOTLP(oo)
	if err != nil {
		return nil, err
	}
	return New(exp, opts), nil
}

func setAttr(attrs []Attr, a Attr) []Attr {
	for i := range attrs {
		if attrs[i].Key == a.Key {
			attrs[i] = a
			return attrs
		}
	}
	return append(attrs, a)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// parsePairs parses the W3C Baggage-like list of OTEL_RESOURCE_ATTRIBUTES
// and OTEL_EXPORTER_OTLP_HEADERS: key=value pairs separated by commas,
// values percent-encoded, spaces around either trimmed; empty members are
// skipped. An error names the member's place, not its value.
func parsePairs(s string) (map[string]string, error) {
	out := map[string]string{}
	for i, member := range strings.Split(s, ",") {
		member = strings.TrimSpace(member)
		if member == "" {
			continue
		}
		k, v, ok := strings.Cut(member, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("member %d has no key=value", i+1)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("member %d (%s): the value is not percent-encoded correctly", i+1, k)
		}
		out[k] = dv
	}
	return out, nil
}

// validHeaderName reports whether k is an HTTP token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}
