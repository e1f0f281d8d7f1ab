package pathpolicy

import (
	"strings"
	"testing"
)

// TestPattern judges globs by what they could match in bash and by what they
// match now: bash's [!x], [^x], classes and ? reach the secret and
// protected names that filepath.Match would not.
func TestPattern(t *testing.T) {
	f := newFixture(t)
	ex := strings.NewReplacer("@H", f.home, "@P", f.proj)
	for _, tt := range []struct {
		pat                        string
		secret, protected, escapes bool
	}{
		{pat: `@H/.ss[!x]/*`, secret: true, protected: true},
		{pat: `@H/.ss[^x]/id_rsa`, secret: true, protected: true},
		{pat: `@H/.[[:alpha:]]ws/credentials`, secret: true, protected: true},
		{pat: `@H/.kube/*`, secret: true, protected: true},
		{pat: `@H/.*`, secret: true, protected: true, escapes: true}, // . and .. under an older bash
		{pat: `@P/.[!x]it/config`, protected: true},
		{pat: `@P/.gi?/HEAD`, protected: true},
		{pat: `@P/.env*`, secret: true, protected: true},
		{pat: `@P/*.go`},
		{pat: `@P/src/*`},
		{pat: `@P/*`, secret: true, protected: true}, // awslink and keylink match, and lead to secrets
		{pat: `@P/sr?/..`, escapes: false},
		{pat: `@P/.*/x`, escapes: true, secret: true, protected: true},
		{pat: `/proc/*/environ`, secret: true, protected: true},
		{pat: `/proc/[0-9]*/environ`, secret: true, protected: true},
		{pat: `/proc/self/*`, secret: true, protected: true},
		{pat: `/proc/*/en*`, secret: true, protected: true},
		{pat: `/proc/1/[e]nviron`, secret: true, protected: true},
		{pat: `/proc/c*info`},
		{pat: `/etc/*`, secret: true, protected: true},
		{pat: `/etc/sha*`, secret: true, protected: true},
		{pat: `/*/shadow`, secret: true, protected: true},
		{pat: `/etc/host?`},
	} {
		pat := ex.Replace(tt.pat)
		x := f.p.Pattern(pat)
		if x.Secret != tt.secret || x.Protected != tt.protected || x.Escapes != tt.escapes {
			t.Errorf("Pattern(%s): secret %v protected %v escapes %v, want %v %v %v (err %v)",
				tt.pat, x.Secret, x.Protected, x.Escapes, tt.secret, tt.protected, tt.escapes, x.Err)
		}
	}
}
