package pathpolicy

import "strings"

// The secret and protected names. Every name is compared case-insensitively:
// on macOS and Windows ".SSH" is ".ssh".

// secretDirs are directories whose whole content is credentials, wherever
// they are (a home directory, another user's, a backup).
var secretDirs = []string{".ssh", ".aws", ".azure", ".gnupg", ".kube", ".terraform.d", ".password-store", ".oci",
	".huggingface", ".ngrok2"}

// secretSeqs are component sequences that hold credentials wherever they
// appear (".config/gh" in any home), with everything below them.
var secretSeqs = [][]string{
	{".config", "gh"}, {".config", "gcloud"}, {".config", "git"}, {".config", "hub"},
	{".docker", "config.json"},
	{".cargo", "credentials"}, {".cargo", "credentials.toml"},
	{".gem", "credentials"},
	{".local", "share", "keyrings"},
	{".m2", "settings.xml"}, {".gradle", "gradle.properties"}, {".composer", "auth.json"},
	{".config", "rclone"}, {".config", "op"}, {".config", "ngrok"}, {".cache", "huggingface", "token"},
	{".claude", ".credentials.json"}, {".local", "share", "fish", "fish_history"},
	{".streamlit", "secrets.toml"}, {"config", "master.key"}, {"config", "credentials.yml.enc"},
	// Other tools' tokens and keys in a home directory: coding agents,
	// cloud and container CLIs, wallets, secret managers, browsers.
	{".codex", "auth.json"}, {".gemini", "oauth_creds.json"}, {".config", "github-copilot"},
	{".config", "containers", "auth.json"}, {".config", "sops"}, {".config", "age"}, {".config", "solana"},
	{".config", "openstack"}, {".mc", "config.json"}, {".config", "glab-cli"}, {".config", "doctl"},
	{".config", "pip", "pip.conf"}, {".pip", "pip.conf"}, {".mozilla", "firefox"}, {".config", "google-chrome"},
	{".config", "chromium"}, {".config", "heroku"}, {".config", "hcloud"}, {".config", "netlify"},
	{".config", "vercel"}, {".config", "configstore"}, {".local", "share", "fish"},
	// toolscope's own key, which seals its state and run files.
	{".config", "toolscope", "key"},
}

// secretSeqsByFirst are secretSeqs by their first component: a component
// is looked up once instead of compared with every sequence.
var secretSeqsByFirst = func() map[string][][]string {
	m := map[string][][]string{}
	for _, seq := range secretSeqs {
		m[seq[0]] = append(m[seq[0]], seq)
	}
	return m
}()

// secretFiles are file names that hold credentials wherever they are.
var secretFiles = []string{
	".netrc", "_netrc", ".git-credentials", ".vault-token", ".my.cnf", ".pgpass", ".npmrc", ".pypirc", ".envrc",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history",
	".sqlite_history", ".rediscli_history",
	".yarnrc.yml", ".s3cfg", ".boto", ".dockercfg", ".htpasswd", "credentials.json",
	"terraform.tfstate", "terraform.tfstate.backup", ".databrickscfg", ".terraformrc", ".xauthority", ".dev.vars",
	".histfile", ".sh_history", ".irb_history", ".lesshst", ".rhistory", ".wget-hsts", ".bash_sessions",
	"service-account.json", "service_account.json", "serviceaccount.json", "keystore.jks",
}

// secretSuffixes end the names of files that hold private keys or
// keystores wherever they are: TLS and SSH keys, PKCS#12 bundles, Java
// and KeePass stores, PuTTY keys.
var secretSuffixes = []string{".key", ".pem", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk"}

// secretPrefixes are name families: a name that starts with one of them is
// secret, unless isTemplate or isPublicKey says otherwise. ".env" itself is
// in the family through the exact-name check.
var secretPrefixes = []string{".env.", ".env-", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}

// secretRoots are absolute paths that are secret with everything below them.
var secretRoots = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/master.passwd", "/run/secrets", "/var/run/secrets",
}

// procSecrets are the entries of /proc/<pid>/ (and /proc/<pid>/task/<tid>/)
// that expose a process's environment, memory or open files.
var procSecrets = []string{"environ", "mem", "fd", "map_files", "cwd", "root", "fdinfo"}

// envTemplates end the names of .env files that document variables and hold
// no secrets.
var envTemplates = []string{".example", ".sample", ".template", ".dist", ".defaults"}

// harmlessRoots may be read by anyone: system programs, libraries and
// documentation, and a few files that describe the machine. Reading them
// needs no working directory.
var harmlessRoots = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/snap", "/nix/store",
	"/etc/os-release", "/etc/lsb-release", "/etc/debian_version", "/etc/redhat-release", "/etc/alpine-release",
	"/etc/hostname", "/etc/hosts", "/etc/timezone", "/etc/localtime", "/etc/issue", "/etc/shells",
	"/proc/cpuinfo", "/proc/meminfo", "/proc/version", "/proc/loadavg", "/proc/uptime",
}

// harmlessDevices are device files that read as nothing, noise, or the
// command's own standard streams. /dev/tty is not one: it is the user's
// terminal, not the command's streams. Reading it takes the user's
// keystrokes (an answer meant for an approval prompt), and writing it
// draws on the screen the user judges approvals from.
var harmlessDevices = []string{
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full",
	"/dev/stdin", "/dev/stdout", "/dev/stderr",
}

// HarmlessReads returns the documented list of system paths any command may
// read without asking (with everything below them), in addition to the
// device files /dev/null, /dev/zero, /dev/random, /dev/urandom, /dev/full,
// the standard streams and /dev/fd/N (not /dev/tty, the user's terminal).
func HarmlessReads() []string { return append([]string(nil), harmlessRoots...) }

// isTemplate reports .env.example-style names.
func isTemplate(name string) bool {
	for _, s := range envTemplates {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// secretName reports whether a file name (lower case) is secret wherever it
// is.
func secretName(name string) bool {
	if name == ".env" || secretFileSet[name] {
		return true
	}
	// Every suffix has one dot, its first byte.
	if dot := strings.LastIndexByte(name, '.'); dot > 0 && secretSuffixSet[name[dot:]] {
		return true
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(name, p) {
			if p[0] == '.' {
				return !isTemplate(name)
			}
			return !strings.HasSuffix(name, ".pub")
		}
	}
	return false
}

func isSecretDir(name string) bool { return secretDirSet[name] }

// The lists as sets, for the names of every path judged.
var (
	secretFileSet   = setOf(secretFiles)
	secretSuffixSet = setOf(secretSuffixes)
	secretDirSet    = setOf(secretDirs)
)

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, x := range list {
		m[x] = true
	}
	return m
}

// secretComps reports whether the path with the given lower-case components
// (absolute, first component below "/") is secret.
func secretComps(comps []string) bool {
	for i, c := range comps {
		if isSecretDir(c) || secretName(c) {
			return true
		}
		for _, seq := range secretSeqsByFirst[c] {
			if hasSeqAt(comps, i, seq) {
				return true
			}
		}
	}
	if len(comps) >= 3 && comps[0] == "proc" && isPidLike(comps[1]) {
		rest := comps[2:]
		if len(rest) >= 3 && rest[0] == "task" && isPidLike(rest[1]) {
			rest = rest[2:]
		}
		for _, s := range procSecrets {
			if rest[0] == s {
				return true
			}
		}
	}
	if len(comps) == 3 && comps[0] == "etc" && comps[1] == "ssh" && strings.HasPrefix(comps[2], "ssh_host_") && strings.HasSuffix(comps[2], "_key") {
		return true
	}
	for _, rc := range secretRootComps {
		if underComps(comps, rc) {
			return true
		}
	}
	return false
}

// secretRootComps are secretRoots split once.
var secretRootComps = func() [][]string {
	out := make([][]string, len(secretRoots))
	for i, r := range secretRoots {
		out[i] = splitLower(r)
	}
	return out
}()

func hasSeqAt(comps []string, i int, seq []string) bool {
	if i+len(seq) > len(comps) {
		return false
	}
	for j, s := range seq {
		if comps[i+j] != s {
			return false
		}
	}
	return true
}

// underComps reports whether comps is the absolute path rc (split) or
// below it.
func underComps(comps, rc []string) bool {
	if len(comps) < len(rc) {
		return false
	}
	for i := range rc {
		if comps[i] != rc[i] {
			return false
		}
	}
	return true
}

// splitLower returns the lower-case components of an absolute or relative
// path, without empty ones.
func splitLower(p string) []string {
	return appendLower(nil, p)
}

// appendLower appends the lower-case components of p to buf.
func appendLower(buf []string, p string) []string {
	p = strings.ToLower(p)
	if buf == nil {
		buf = make([]string, 0, strings.Count(p, "/")+1)
	}
	for i := 0; i < len(p); {
		for i < len(p) && p[i] == '/' {
			i++
		}
		j := i
		for j < len(p) && p[j] != '/' {
			j++
		}
		if j > i {
			buf = append(buf, p[i:j])
		}
		i = j
	}
	return buf
}

// SecretGlobs returns the secret policy as exclusion patterns for a search
// (search.GrepOptions.ExcludeFold, which matches them regardless of case,
// as the policy compares names): base names matched at any depth (".env",
// ".env.*", "id_rsa*", "*.pem", ".ssh") and absolute patterns for the
// component sequences and system paths ("/**/.config/gh", "/proc"). It
// excludes a little more than the policy calls secret: ".env.example"
// falls under ".env.*", and public keys under "id_rsa*". Every path whose
// spelling the policy calls secret ([Policy.Spelling]) is excluded
// (TestSecretGlobsCoverSpelling).
func SecretGlobs() []string {
	out := []string{".env"}
	out = append(out, secretDirs...)
	out = append(out, secretFiles...)
	for _, p := range secretPrefixes {
		out = append(out, p+"*")
	}
	for _, s := range secretSuffixes {
		out = append(out, "*"+s)
	}
	for _, seq := range secretSeqs {
		out = append(out, "/**/"+strings.Join(seq, "/"))
	}
	out = append(out, secretRoots...)
	out = append(out, "/proc", "/etc/ssh/ssh_host_*_key")
	return out
}

// SecretName reports whether a file or directory name is secret wherever
// it is (".env", ".netrc", "id_rsa", ".ssh"), compared case-insensitively.
func SecretName(name string) bool {
	l := strings.ToLower(name)
	return secretName(l) || isSecretDir(l)
}

// SecretPaths returns the secret list made concrete for a home directory:
// home's credential directories (~/.ssh, ~/.aws, ...), the component
// sequences under it (~/.config/gh, ~/.docker/config.json, ...), its
// secret files (~/.netrc, ~/.git-credentials, the shell histories, ...),
// and the system's secret paths (/etc/shadow, /run/secrets, ...). The OS
// sandbox hides those that exist; the analyser asks before any command
// touches them. Names matched by prefix (".env.local", "id_ed25519") are
// not listed: [SecretName] tells them.
func SecretPaths(home string) []string {
	var out []string
	if home != "" {
		for _, d := range secretDirs {
			out = append(out, home+"/"+d)
		}
		for _, seq := range secretSeqs {
			out = append(out, home+"/"+strings.Join(seq, "/"))
		}
		out = append(out, home+"/.env")
		for _, f := range secretFiles {
			out = append(out, home+"/"+f)
		}
	}
	return append(out, secretRoots...)
}
