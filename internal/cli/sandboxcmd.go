package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/sandbox"
)

// runSandbox is `toolscope sandbox status [--json]`: the protections a
// sandboxed command gets on this machine, each as the helper reported it
// after setting it up (the command runs one empty sandboxed command).
func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newFlags("sandbox", stdout, false)
	asJSON := c.fs.Bool("json", false, "print the status as JSON")
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) != 1 || c.args[0] != "status" {
		return usageErr("usage: toolscope sandbox status [--json] [--config FILE] [--cwd DIR]")
	}
	settings, err := host.LoadSettings(c.hostOptions(stderr))
	if err != nil {
		return usage(err)
	}
	sb, enabled, err := settings.Sandbox()
	if err != nil {
		return usage(err)
	}
	st, err := sb.Status(ctx)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			Enabled bool `json:"enabled"`
			*sandbox.Status
			Confines bool `json:"confines"`
		}{enabled, st, st.Confines()})
	}
	on := "off (turn it on with --sandbox or \"sandbox\": {\"enabled\": true})"
	if enabled {
		on = "on"
	}
	fmt.Fprintf(stdout, "sandbox: %s\nplatform: %s, Landlock ABI %d\n", on, st.Platform, st.LandlockABI)
	fmt.Fprintln(stdout, "active:")
	for _, a := range st.Active {
		fmt.Fprintf(stdout, "  %-18s %s\n", a, protectionText[a])
	}
	if len(st.AllowedDomains) > 0 {
		fmt.Fprintf(stdout, "allowed domains:   %s\n", strings.Join(st.AllowedDomains, ", "))
	}
	if len(st.DeniedDomains) > 0 {
		fmt.Fprintf(stdout, "denied domains:    %s\n", strings.Join(st.DeniedDomains, ", "))
	}
	if len(st.Missing) > 0 {
		fmt.Fprintln(stdout, "missing:")
		for _, m := range st.Missing {
			fmt.Fprintf(stdout, "  %-18s %s\n", m.Name, m.Why)
		}
	}
	if st.Confines() {
		fmt.Fprintln(stdout, "Bash commands that would only ask because they are unknown or write run without asking when the sandbox is on.")
	} else {
		fmt.Fprintln(stdout, "The sandbox does not confine commands fully here: Bash asks as without it.")
	}
	return nil
}

var protectionText = map[string]string{
	sandbox.FilesystemWrites: "writes only inside the working directories, the extra write paths, $TMPDIR and the sandbox cache (Landlock)",
	sandbox.ReadOnlyRoot:     "every other mount is read-only: no chmod, chown or timestamps outside either",
	sandbox.ProtectedPaths:   "the repository (.git) and the protected files stay read-only and cannot be moved",
	sandbox.HomeReads:        "the home directory cannot be read but for toolchains, caches and sandbox.allowRead",
	sandbox.SecretReads:      "~/.ssh, ~/.aws, ~/.netrc, .env and the rest of the secret list cannot be read",
	sandbox.Network:          "no network; a private loopback",
	sandbox.NetworkProxy:     "only the allowed domains, through a proxy outside (HTTP_PROXY, HTTPS_PROXY); no route out otherwise",
	sandbox.NetworkTCP:       "TCP connect and bind fail (Landlock)",
	sandbox.UnixSockets:      "no Unix sockets (Docker's, systemd's, ssh-agent's are out of reach)",
	sandbox.Signals:          "signals cannot reach processes outside the sandbox (Landlock scope)",
	sandbox.SyscallFilter:    "no 32-bit syscalls, no io_uring, no mount calls, namespaces, file handles or keyrings (seccomp)",
	sandbox.NoNewPrivileges:  "setuid programs gain nothing",
	sandbox.UserNamespace:    "root inside has no privilege over the host",
	sandbox.PIDNamespace:     "no process of a command outlives it",
	sandbox.PrivateProc:      "/proc shows only the command's own processes",
	sandbox.NoCapabilities:   "the command runs without capabilities, root too, and no program it runs gains any",
	sandbox.MountLock:        "the command holds no capability over its mounts and cannot make or change mounts",
}
