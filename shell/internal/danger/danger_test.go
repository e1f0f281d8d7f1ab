package danger

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/shell/internal/unquote"
)

func TestPattern(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		sudo bool
		want string
	}{
		{"rm -rf x", false, "rm -rf"},
		{"/bin/rm -r -f x", false, "rm -rf"},
		{"rm --recursive --force x", false, "rm -rf"},
		{"rm x", true, "sudo rm"},
		{"rm -r x", false, ""},
		{"chmod 777 f", false, "chmod 777"},
		{"chmod -R o+w d", false, "chmod -R o+w"},
		{"chmod 755 f", false, ""},
		{"chmod u+s f", false, "chmod u+s"},
		{"chown -R me d", false, "chown -R"},
		{"mkfs.ext4 /dev/sda", false, "mkfs"},
		{"kill -9 1", false, "kill -9"},
		{"kill -- -1", false, "kill -1"},
		{"kill 12", false, ""},
		{"ls -la", false, ""},
	} {
		var argv []unquote.Word
		for _, f := range strings.Fields(c.cmd) {
			argv = append(argv, unquote.Word{Value: f, Pat: f, Literal: true})
		}
		if got := Pattern(argv, c.sudo); got != c.want {
			t.Errorf("Pattern(%q, sudo %v) = %q, want %q", c.cmd, c.sudo, got, c.want)
		}
	}
}
