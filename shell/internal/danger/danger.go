// Package danger names the commands that destroy or take over more than
// a tool call should without a person's look, whatever the rules allow:
// recursive forced removal, modes that let others write or set setuid,
// recursive ownership changes, disk formatting and partitioning, shutdown,
// signals that kill hard. Package shell asks about every command it names.
package danger

import (
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/shell/internal/specs"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// RmSpec is rm's options.
var RmSpec = &specs.Flags{
	Short: specs.Shorts("rRfiIdv", "", ""),
	Long:  specs.Longs("recursive force one-file-system no-preserve-root dir verbose help version", "", ""),
}

func init() {
	RmSpec.Long["interactive"] = specs.ArgOptional
	RmSpec.Long["preserve-root"] = specs.ArgOptional
}

// Pattern returns the name of a dangerous pattern in argv ("rm -rf",
// "chmod 777", "mkfs", "kill -9", ...), or "". sudo says that argv runs
// under sudo.
func Pattern(argv []unquote.Word, sudo bool) string {
	if len(argv) == 0 {
		return ""
	}
	name := argv[0].Value
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	args := argv[1:]
	switch {
	case name == "rm":
		if sudo {
			return "sudo rm"
		}
		for _, a := range args {
			if strings.HasPrefix(a.Value, "-") && a.Glob {
				return "rm -rf" // a globbed option may expand to -rf
			}
		}
		r := specs.ParseFlags(RmSpec, args)
		if r.Has("no-preserve-root") {
			return "rm --no-preserve-root"
		}
		if r.Has("r", "R", "recursive") && r.Has("f", "force") {
			return "rm -rf"
		}
	case name == "chmod":
		rec := false
		for _, a := range args {
			if a.Value == "-R" || strings.HasPrefix(a.Value, "--rec") {
				rec = true
			}
		}
		for _, a := range args {
			if strings.HasPrefix(a.Value, "--reference") {
				break
			}
			if strings.HasPrefix(a.Value, "-") && dangerousMode(a.Value[1:]) == "" && a.Value != "-" {
				continue
			}
			if m := dangerousMode(a.Value); m != "" {
				if rec {
					return "chmod -R " + m
				}
				return "chmod " + m
			}
			break
		}
	case name == "chown" || name == "chgrp":
		for _, a := range args {
			s := a.Value
			if s == "--" {
				break
			}
			if strings.HasPrefix(s, "--") {
				if len(s) > 2 && strings.HasPrefix("--recursive", s) {
					return name + " -R"
				}
				continue
			}
			if strings.HasPrefix(s, "-") && strings.ContainsRune(s, 'R') {
				return name + " -R"
			}
		}
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "mkdosfs" || name == "newfs":
		return "mkfs"
	case name == "dd":
		return "dd"
	case name == "fdisk" || name == "sfdisk" || name == "cfdisk" || name == "gdisk" || name == "sgdisk":
		return "fdisk"
	case name == "parted", name == "wipefs", name == "shred", name == "format", name == "blkdiscard":
		return name
	case name == "shutdown", name == "reboot", name == "halt", name == "poweroff":
		return name
	case name == "kill" || name == "killall" || name == "pkill":
		if killsHard(args) {
			return name + " -9"
		}
		if name == "kill" {
			for i, a := range args {
				if a.Value == "--" && i+1 < len(args) && args[i+1].Value == "-1" {
					return "kill -1"
				}
			}
		}
	}
	return ""
}

func isKillSig(s string) bool {
	s = strings.ToUpper(s)
	s = strings.TrimPrefix(s, "SIG")
	return s == "9" || s == "KILL"
}

func killsHard(args []unquote.Word) bool {
	for i, a := range args {
		s := a.Value
		if s == "--" {
			return false
		}
		next := ""
		if i+1 < len(args) {
			next = args[i+1].Value
		}
		switch {
		case s == "-s" || s == "-n" || s == "--signal":
			if isKillSig(next) {
				return true
			}
		case strings.HasPrefix(s, "--signal="):
			if isKillSig(strings.TrimPrefix(s, "--signal=")) {
				return true
			}
		case strings.HasPrefix(s, "-s") && len(s) > 2:
			if isKillSig(s[2:]) {
				return true
			}
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if isKillSig(s[1:]) {
				return true
			}
		}
	}
	return false
}

// dangerousMode reports a chmod mode that grants write to others or sets
// setuid/setgid.
func dangerousMode(m string) string {
	if m == "" {
		return ""
	}
	if m[0] >= '0' && m[0] <= '7' {
		n, err := strconv.ParseUint(m, 8, 32)
		if err != nil {
			return ""
		}
		digits := strings.TrimLeft(m, "0")
		if n&0o002 != 0 {
			return m
		}
		if len(digits) >= 4 && n&0o6000 != 0 {
			return m
		}
		return ""
	}
	for _, clause := range strings.Split(m, ",") {
		i := 0
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			i++
		}
		who := clause[:i]
		rest := clause[i:]
		for len(rest) > 0 {
			op := rest[0]
			if op != '+' && op != '=' && op != '-' {
				break
			}
			j := 1
			for j < len(rest) && rest[j] != '+' && rest[j] != '-' && rest[j] != '=' {
				j++
			}
			perms := rest[1:j]
			rest = rest[j:]
			if op == '-' {
				continue
			}
			if strings.ContainsRune(perms, 's') {
				return m
			}
			if strings.ContainsRune(perms, 'w') && (strings.ContainsAny(who, "oa")) {
				return m
			}
		}
	}
	return ""
}
