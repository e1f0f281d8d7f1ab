package tracing_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tracing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, keep, gone string }{
		{"aws AKIAIOSFODNN7EXAMPLE here", "aws ", "AKIAIOSFODNN7EXAMPLE"},
		{"Authorization: Bearer abc.def-ghi", "Authorization: ", "abc.def-ghi"},
		{"curl -H 'X: Bearer abc.def-ghi'", "Bearer " + tracing.Redacted, "abc.def-ghi"},
		{"mysql --password=hunter2 db", "mysql --password=", "hunter2"},
		{`{"client_secret": "s0mething"}`, "client_secret", "s0mething"},
		{"DB_PASSWORD='two words'", "DB_PASSWORD=", "words"},
		{"https://bob:pa55@example.com/x", "https://" + tracing.Redacted + "@example.com/x", "pa55"},
		{"curl -u bob:pa55 https://x", "curl -u " + tracing.Redacted, "pa55"},
		{"key sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "key ", "abcdefghijklmnop"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature", "jwt ", "eyJzdWIiOiIxIn0"},
		{"random Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz", "random ", "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter", "after", "b3BlbnNzaC1rZXktdjEAAAA"},
		// What is not secret stays.
		{"git checkout 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a", "3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a", "\x00"},
		{"cat /home/User1/Projects/Service2/README.md", "/home/User1/Projects/Service2/README.md", "\x00"},
		{"go test ./... -run TestX", "go test ./... -run TestX", "\x00"},
	} {
		got := tracing.Redact(tc.in)
		if !strings.Contains(got, tc.keep) || strings.Contains(got, tc.gone) {
			t.Errorf("Redact(%q) = %q: want %q kept, %q gone", tc.in, got, tc.keep, tc.gone)
		}
	}
}

func TestRedactJSON(t *testing.T) {
	got := tracing.RedactJSON([]byte(`{"command":"echo hi","env":{"API_KEY":"k1","Cookie":"c1","n":2},"args":["--token=t1","x"]}`))
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("not JSON: %q", got)
	}
	for _, s := range []string{"k1", "c1", "t1"} {
		if strings.Contains(got, s) {
			t.Errorf("%q kept in %s", s, got)
		}
	}
	if !strings.Contains(got, `"echo hi"`) || !strings.Contains(got, `"n":2`) {
		t.Errorf("lost what is not secret: %s", got)
	}
	if got := tracing.RedactJSON([]byte(`not json password=pw1`)); strings.Contains(got, "pw1") {
		t.Errorf("text input: %q", got)
	}
}

func TestNamesSecretFile(t *testing.T) {
	for in, want := range map[string]bool{
		`{"file_path":"/p/.env"}`:                      true,
		`{"command":"cat ~/.aws/credentials"}`:         true,
		`{"command":"cat key.pem | base64"}`:           true,
		`{"file_path":"/home/u/.config/gh/hosts.yml"}`: true,
		`{"command":"grep x /etc/shadow"}`:             true,
		`{"file_path":"/p/src/main.go"}`:               false,
		`{"command":"go test ./..."}`:                  false,
		`cat .netrc`:                                   true,
	} {
		if got := tracing.NamesSecretFile([]byte(in)); got != want {
			t.Errorf("NamesSecretFile(%s) = %v", in, got)
		}
	}
}

// However a secret is surrounded, Redact takes it out, and RedactJSON
// keeps JSON JSON.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"", "x", "password=", "Bearer ", `{"a":"b"}`, "AKIA", "https://a:b@c", "-----BEGIN RSA PRIVATE KEY-----"} {
		f.Add(s, s)
	}
	planted := []string{"AKIAIOSFODNN7EXAMPLE", "ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234", "sk-proj-abcdefghijklmnop1234"}
	f.Fuzz(func(t *testing.T, before, after string) {
		for _, p := range planted {
			s := before + p + after
			if got := tracing.Redact(s); strings.Contains(got, p) {
				t.Fatalf("Redact(%q) kept %q: %q", s, p, got)
			}
			b, _ := json.Marshal(map[string]string{"k": s, before: after})
			got := tracing.RedactJSON(b)
			if strings.Contains(got, p) || !json.Valid([]byte(got)) {
				t.Fatalf("RedactJSON(%s) = %s", b, got)
			}
		}
		if got := tracing.RedactJSON([]byte(before)); json.Valid([]byte(before)) && !json.Valid([]byte(got)) {
			t.Fatalf("RedactJSON(%q) = %q, not JSON", before, got)
		}
	})
}
