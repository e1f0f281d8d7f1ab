package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An integer no int64 holds is an invalid input, so call exits 2 (usage)
// as --help says, like check, before the tool runs; and neither the
// number nor a huge unknown key is echoed whole. A number that fits still
// runs the tool.
func TestCallInputExitCodes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hugeKey := strings.Repeat("k", 1<<20)
	hugeNumber := strings.Repeat("9", 100000)
	for _, tt := range []struct {
		name, tool, input string
		code              int
		wants             []string
	}{
		{"offset over int64", "Read", `{"file_path":"` + file + `","offset":99999999999999999999}`, 2,
			[]string{`field "offset" must be an integer from -9223372036854775808 to 9223372036854775807, not 99999999999999999999`}},
		{"head_limit over int64", "Grep", `{"pattern":"one","path":"` + dir + `","head_limit":99999999999999999999}`, 2,
			[]string{`field "head_limit" must be an integer from`}},
		{"head_limit as an exponent", "Grep", `{"pattern":"one","path":"` + dir + `","head_limit":1e19}`, 2,
			[]string{`field "head_limit" must be an integer from`, "not 1e19"}},
		{"offset of 100,000 digits", "Read", `{"file_path":"` + file + `","offset":` + hugeNumber + `}`, 2,
			[]string{"the number 999999999999999999999999… (a number of 100000 characters) is out of range"}},
		{"offset at the int64 limit", "Read", `{"file_path":"` + file + `","offset":9223372036854775807}`, 0, []string{"past its end"}},
		{"an unknown key of 1 MiB", "Read", `{"file_path":"` + file + `","` + hugeKey + `":1}`, 0,
			[]string{"are not known to this tool", "(1048576 bytes)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range []string{"call", "check"} {
				if cmd == "check" && tt.code != 2 {
					continue
				}
				args := []string{cmd, "--cwd", dir, tt.tool, tt.input}
				if cmd == "check" {
					args = []string{cmd, "--cwd", dir, "--tool", tt.tool, "--input", tt.input}
				}
				var out, errb bytes.Buffer
				code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb)
				all := out.String() + errb.String()
				if code != tt.code {
					t.Errorf("%s: exit %d, want %d: %.500s", cmd, code, tt.code, all)
				}
				for _, w := range tt.wants {
					if !strings.Contains(all, w) {
						t.Errorf("%s: output lacks %q: %.500s", cmd, w, all)
					}
				}
				if len(all) > 2000 {
					t.Errorf("%s: %d bytes of output: %.300s…", cmd, len(all), all)
				}
			}
		})
	}
}
