package tracing_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tracing"
)

// Whatever the header and resource lists hold, FromEnv does not panic,
// and its error never shows a value (it may be an API key).
func FuzzFromEnvLists(f *testing.F) {
	for _, s := range []string{"", "a=b", "a=b,c=d", "=", ",,", "a=%", "a=%41", "a b=c", "a=b\r\n"} {
		f.Add(s)
	}
	const planted = "PLANTEDSECRETVALUE"
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_RESOURCE_ATTRIBUTES"} {
			list := s + ",k=" + planted + "%ZZ"
			tr, err := tracing.FromEnv(&tracing.EnvOptions{Getenv: envOf(map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", v: list})})
			tr.Shutdown(context.Background())
			if err == nil {
				t.Fatalf("%s=%q: a bad percent-escape was accepted", v, list)
			}
			if strings.Contains(err.Error(), planted) {
				t.Fatalf("%s: the error shows a value: %v", v, err)
			}
		}
	})
}
