package shell

import "strings"

// credentialPrinter names what a command does when its output is a
// credential: a token, a password, a secret key (gh auth token, aws
// configure get aws_secret_access_key, gcloud auth print-access-token,
// git credential fill). Printing one is reading a secret by another road,
// so it is judged as reading ~/.aws/credentials is: an ask no rule and no
// mode passes. It returns "" for every other command.
func credentialPrinter(argv []word) string {
	if len(argv) == 0 {
		return ""
	}
	name := cmdName(argv[0])
	switch name {
	case "gh", "aws", "gcloud", "az", "kubectl", "git", "heroku", "vault", "op", "security",
		"secret-tool", "pass", "gopass", "bw", "lpass", "gpg", "gpg2", "doctl", "flyctl", "fly", "npm":
	default:
		if strings.HasPrefix(name, "docker-credential-") || strings.HasPrefix(name, "git-credential-") {
			for _, a := range argv[1:] {
				if a.Value == "get" {
					return name + " get prints a stored credential"
				}
			}
		}
		return ""
	}
	args := argv[1:]
	pos := positionals(args, 3)
	at := func(i int) string {
		if i < len(pos) {
			return pos[i]
		}
		return ""
	}
	has := func(opts ...string) bool {
		for _, a := range args {
			if a.Value == "--" {
				return false
			}
			for _, o := range opts {
				if a.Value == o || strings.HasPrefix(o, "--") && strings.HasPrefix(a.Value, o+"=") {
					return true
				}
			}
		}
		return false
	}
	what := name + " " + strings.Join(pos, " ")
	switch name {
	case "gh":
		if at(0) == "auth" && (at(1) == "token" || at(1) == "git-credential" || at(1) == "status" && has("-t", "--show-token")) {
			return what + " prints a GitHub token"
		}
	case "aws":
		switch {
		case at(0) == "configure" && at(1) == "get" && secretKeyName(at(2)):
			return what + " prints an AWS secret"
		case at(0) == "configure" && at(1) == "export-credentials",
			at(0) == "sts" && strings.HasPrefix(at(1), "get-session-token"),
			at(0) == "sts" && strings.HasPrefix(at(1), "assume-role"),
			at(0) == "sts" && at(1) == "get-federation-token",
			strings.HasSuffix(at(1), "get-login-password"),
			at(0) == "codeartifact" && at(1) == "get-authorization-token",
			at(0) == "secretsmanager" && at(1) == "get-secret-value",
			at(0) == "ssm" && strings.HasPrefix(at(1), "get-parameter") && has("--with-decryption"):
			return what + " prints AWS credentials or secrets"
		}
	case "gcloud":
		if strings.HasPrefix(at(1), "print-") && strings.HasSuffix(at(1), "-token") ||
			at(0) == "auth" && at(1) == "application-default" && strings.HasPrefix(at(2), "print-") ||
			at(0) == "config" && at(1) == "config-helper" ||
			at(0) == "secrets" && at(1) == "versions" && at(2) == "access" {
			return what + " prints a Google Cloud token or secret"
		}
	case "az":
		if at(0) == "account" && at(1) == "get-access-token" || at(0) == "keyvault" && at(1) == "secret" && at(2) == "show" {
			return what + " prints an Azure token or secret"
		}
	case "kubectl":
		if at(0) == "config" && at(1) == "view" && has("--raw") || at(0) == "create" && at(1) == "token" {
			return what + " prints Kubernetes credentials"
		}
	case "git":
		g := gitWithoutGlobals(argvStrings(argv))
		if len(g) > 2 && g[1] == "credential" && g[2] == "fill" {
			return "git credential fill prints a stored credential"
		}
		if len(g) > 1 && strings.HasPrefix(g[1], "credential-") {
			for _, a := range g[2:] {
				if a == "get" {
					return "git " + g[1] + " get prints a stored credential"
				}
			}
		}
	case "heroku":
		if at(0) == "auth:token" || at(0) == "authorizations:create" {
			return what + " prints a Heroku token"
		}
	case "vault":
		if at(0) == "print" && at(1) == "token" || at(0) == "read" || at(0) == "kv" && at(1) == "get" {
			return what + " prints a Vault token or secret"
		}
	case "op":
		if at(0) == "read" || at(0) == "item" && at(1) == "get" || at(0) == "inject" {
			return what + " prints a 1Password secret"
		}
	case "security":
		if strings.HasPrefix(at(0), "find-") && strings.HasSuffix(at(0), "-password") && has("-w", "-g") ||
			at(0) == "dump-keychain" && has("-d") {
			return what + " prints a keychain password"
		}
	case "secret-tool":
		if at(0) == "lookup" {
			return "secret-tool lookup prints a stored secret"
		}
	case "pass", "gopass":
		if at(0) == "show" || at(0) == "cat" || at(0) == "otp" || len(pos) == 1 && !passCommands[at(0)] {
			return what + " prints a stored password"
		}
	case "bw":
		if at(0) == "get" || at(0) == "unlock" && has("--raw") {
			return what + " prints a Bitwarden secret"
		}
	case "lpass":
		if at(0) == "show" {
			return what + " prints a LastPass secret"
		}
	case "gpg", "gpg2":
		if has("--export-secret-keys", "--export-secret-subkeys") {
			return what + " exports secret keys"
		}
	case "doctl":
		if at(0) == "auth" && at(1) == "token" {
			return what + " prints a DigitalOcean token"
		}
	case "flyctl", "fly":
		if at(0) == "auth" && at(1) == "token" || at(0) == "tokens" && at(1) == "create" {
			return what + " prints a Fly.io token"
		}
	case "npm":
		if at(0) == "token" && at(1) == "create" {
			return what + " prints a new npm token"
		}
	}
	return ""
}

// passCommands are pass's subcommands; any other single operand is the
// name of a password to print.
var passCommands = map[string]bool{
	"init": true, "ls": true, "list": true, "find": true, "search": true, "grep": true, "insert": true, "add": true,
	"edit": true, "generate": true, "rm": true, "remove": true, "delete": true, "mv": true, "rename": true,
	"cp": true, "copy": true, "git": true, "help": true, "version": true,
}

// secretKeyName reports whether an aws configure key names a credential
// (aws_secret_access_key, profile.x.aws_session_token, ...); an empty
// key is judged a credential too.
func secretKeyName(k string) bool {
	k = strings.ToLower(k)
	return k == "" || strings.Contains(k, "secret") || strings.Contains(k, "token") || strings.Contains(k, "access_key") || strings.Contains(k, "password")
}

// positionals returns up to n leading words of args that are not options
// (the subcommand path: gh auth token, aws configure get KEY).
func positionals(args []word, n int) []string {
	var out []string
	for i := 0; i < len(args) && len(out) < n; i++ {
		s := args[i].Value
		if s == "--" {
			continue
		}
		if strings.HasPrefix(s, "-") && len(s) > 1 {
			continue
		}
		out = append(out, s)
	}
	return out
}
