package pathpolicy

import "testing"

// TestSecretsV3: the credentials a review read without asking (other
// tools' tokens under a home, private keys and keystores by name in a
// project, history files, toolscope's own sealing key) are secret; their
// public neighbours are not.
func TestSecretsV3(t *testing.T) {
	p := New(&Options{Home: "/home/u", WorkingDirs: []string{"/srv/proj"}})
	for _, path := range []string{
		"/home/u/.codex/auth.json", "/home/u/.gemini/oauth_creds.json", "/home/u/.config/github-copilot/hosts.json",
		"/home/u/.config/containers/auth.json", "/home/u/.config/sops/age/keys.txt", "/home/u/.config/solana/id.json",
		"/home/u/.config/openstack/clouds.yaml", "/home/u/.mc/config.json", "/home/u/.config/glab-cli/config.yml",
		"/home/u/.mozilla/firefox/abc.default/logins.json", "/home/u/.config/pip/pip.conf", "/home/u/.histfile",
		"/home/u/.config/doctl/config.yaml", "/home/u/.config/toolscope/key",
		"/srv/proj/certs/server.key", "/srv/proj/tls/PRIVATE.PEM", "/srv/proj/a/b/bundle.p12", "/srv/proj/x.pfx",
		"/srv/proj/android/release.jks", "/srv/proj/vault.kdbx", "/srv/proj/putty.ppk", "/srv/proj/gcp/service-account.json",
	} {
		if x := p.Classify(path); !x.Secret || !x.Protected {
			t.Errorf("%s: secret %v, protected %v", path, x.Secret, x.Protected)
		}
	}
	for _, path := range []string{"/srv/proj/main.go", "/srv/proj/keys.go", "/srv/proj/monkey", "/srv/proj/.key-notes/a.txt",
		"/srv/proj/pem.go", "/home/u/.config/toolscope/settings.json"} {
		if x := p.Classify(path); x.Secret {
			t.Errorf("%s is secret", path)
		}
	}
}
