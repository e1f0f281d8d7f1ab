package host

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolscope/toolscope/internal/textfile"
)

// toolscope's own files that grant permissions (a --state file holds the
// permission mode and the rules added with "always"; a run file holds
// those and the calls that wait for approval) are sealed: each carries an
// HMAC-SHA256 of its content under a key of the user's, so a file that an
// agent (or anyone without the key) wrote or changed is refused instead
// of trusted. The key lives in the user's configuration directory
// (sealKeyPath), which the analyser treats as a secret and the sandbox
// does not let a command read.
//
// The seal is the first key of the JSON object, {"toolscope_mac":"HEX",
// ...}: readers that do not know it ignore it, and the sealed content is
// the object without it, byte for byte.

const sealField = `{"toolscope_mac":"`

// sealKeyPath is where the key is kept: the user's configuration
// directory's toolscope/key.
func sealKeyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("the key that seals toolscope's state files: no configuration directory: %w", err)
	}
	return filepath.Join(dir, "toolscope", "key"), nil
}

var sealKeyMu sync.Mutex

// sealKey returns the user's key, making it (32 random bytes, mode 0600,
// in a 0700 directory) the first time.
func sealKey() ([]byte, error) {
	path, err := sealKeyPath()
	if err != nil {
		return nil, err
	}
	sealKeyMu.Lock()
	defer sealKeyMu.Unlock()
	if b, err := os.ReadFile(path); err == nil {
		k, err := hex.DecodeString(string(bytes.TrimSpace(b)))
		if err != nil || len(k) < 32 {
			return nil, fmt.Errorf("the key that seals toolscope's state files, %s, is damaged; delete it (state and run files sealed with it are then refused)", path)
		}
		return k, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading the key that seals toolscope's state files: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("making the key that seals toolscope's state files: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	// Written whole under a temporary name, then linked into place: the
	// link fails when another process made the key first, and that key
	// is the one read back and used.
	tmp := path + fmt.Sprintf(".%d.tmp", os.Getpid())
	if err := os.WriteFile(tmp, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("making the key that seals toolscope's state files: %w", err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, os.ErrExist) {
		os.Remove(tmp)
		return nil, fmt.Errorf("making the key that seals toolscope's state files: %w", err)
	}
	os.Remove(tmp)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return hex.DecodeString(string(bytes.TrimSpace(b)))
}

func mac(key, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// sealParts returns the JSON object body sealed as two parts to write one
// after the other: the seal (the object's start, with the seal as its
// first key) and the rest of body, not copied.
func sealParts(body []byte) (head, rest []byte, err error) {
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return nil, nil, errors.New("seal: not a JSON object")
	}
	key, err := sealKey()
	if err != nil {
		return nil, nil, err
	}
	head = make([]byte, 0, len(sealField)+64+2)
	head = append(head, sealField...)
	head = append(head, mac(key, body)...)
	head = append(head, '"')
	rest = body[1:]
	if len(bytes.TrimSpace(rest)) > 1 { // not "{}"
		head = append(head, ',')
	}
	return head, rest, nil
}

// errSeal is a file whose seal does not match its content.
var errSeal = errors.New("its seal does not match its content")

// unseal returns the content of a sealed file b and true, or b and false
// when b carries no seal. A seal that does not verify is errSeal.
func unseal(b []byte) ([]byte, bool, error) {
	b = bytes.TrimSpace(b)
	if !bytes.HasPrefix(b, []byte(sealField)) {
		return b, false, nil
	}
	const n = 64
	r := b[len(sealField):]
	if len(r) < n+1 || r[n] != '"' {
		return nil, true, errSeal
	}
	sum, rest := r[:n], r[n+1:]
	var body []byte
	switch {
	case len(rest) > 0 && rest[0] == ',':
		body = append([]byte{'{'}, rest[1:]...)
	default:
		body = append([]byte{'{'}, rest...)
	}
	key, err := sealKey()
	if err != nil {
		return nil, true, err
	}
	if !hmac.Equal(sum, []byte(mac(key, body))) {
		return nil, true, errSeal
	}
	return body, true, nil
}

// grantsNothing reports whether an unsealed state's permissions (the
// "permissions" object of a --state file, or of a run file's state) are
// the defaults: no mode but default, no rules, no extra directories. Such
// a file, written before files were sealed, is taken; one that grants
// anything is not, since anyone could have written it.
func grantsNothing(perms json.RawMessage) bool {
	if len(bytes.TrimSpace(perms)) == 0 || string(bytes.TrimSpace(perms)) == "null" {
		return true
	}
	var p struct {
		Mode        string            `json:"mode"`
		WorkingDirs []json.RawMessage `json:"working_dirs"`
		Allow       []json.RawMessage `json:"allow"`
	}
	if json.Unmarshal(perms, &p) != nil {
		return false
	}
	return (p.Mode == "" || p.Mode == "default") && len(p.WorkingDirs) == 0 && len(p.Allow) == 0
}

// writeSealed seals body and writes it to path atomically.
func writeSealed(path string, body []byte, o *textfile.WriteOptions) error {
	head, rest, err := sealParts(body)
	if err != nil {
		return err
	}
	return textfile.WriteAtomicParts(path, [][]byte{head, rest, {'\n'}}, o)
}

// openSealed returns the content of a state or run file b (what names it
// in messages), and whether it was sealed. A seal that does not verify is
// refused.
func openSealed(b []byte, what, fresh string) ([]byte, bool, error) {
	body, sealed, err := unseal(b)
	if errors.Is(err, errSeal) {
		return nil, true, sealError(what, fresh)
	}
	return body, sealed, err
}

func sealError(what, fresh string) error {
	return &Error{Msg: fmt.Sprintf("%s was changed outside toolscope (%v), so it is not trusted: it may grant permissions or hold a call that is not the one approved. It was left as it was; move it away (or delete it) and %s", what, errSeal, fresh)}
}

// openImage is openSealed for a file read by readImage: a sealed file's
// content is its body buffer, verified where it is, not copied.
func openImage(im fileImage, what, fresh string) ([]byte, bool, error) {
	if im.body == nil {
		return openSealed(im.bytes(), what, fresh)
	}
	body := bytes.TrimSpace(im.body)
	key, err := sealKey()
	if err != nil {
		return nil, true, err
	}
	if !hmac.Equal(im.head[len(sealField):len(sealField)+64], []byte(mac(key, body))) {
		return nil, true, sealError(what, fresh)
	}
	return body, true, nil
}

// unsealedGrants refuses an unsealed state or run file (body) whose
// permissions grant anything (its own, or its run state's) or that holds
// calls waiting for approval: anyone could have written it.
func unsealedGrants(body []byte, what, fresh string) error {
	var top struct {
		Permissions json.RawMessage `json:"permissions"`
		State       *struct {
			Permissions json.RawMessage `json:"permissions"`
		} `json:"state"`
		Waiting json.RawMessage `json:"waiting"`
	}
	if json.Unmarshal(body, &top) != nil {
		return nil // not JSON: the caller says what is wrong with it
	}
	grants := !grantsNothing(top.Permissions)
	if top.State != nil {
		grants = grants || !grantsNothing(top.State.Permissions)
	}
	if w := bytes.TrimSpace(top.Waiting); len(w) > 0 && string(w) != "null" && string(w) != "[]" {
		grants = true // calls waiting for approval: which one was shown is unknown
	}
	if grants {
		return &Error{Msg: fmt.Sprintf("%s has no toolscope seal (toolscope did not write it, or an older version did) and it grants permissions or holds calls waiting for approval, so it is not trusted. It was left as it was; move it away (or delete it) and %s", what, fresh)}
	}
	return nil
}

// ApprovalKey returns the key that seals the MCP approvals a toolscope
// serve asks of its clients (mcp.ServerOptions.ApprovalKey), derived from
// the user's sealing key for that one use: replicas run by one user (a
// shared configuration directory) answer one another's retries.
func ApprovalKey() ([]byte, error) {
	key, err := sealKey()
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("toolscope: MCP approval state, v1"))
	return m.Sum(nil), nil
}

// ConsoleKey returns the key that authenticates toolscope console to the
// live endpoints of a chat or serve (and their answers to it), derived
// from the user's sealing key for that one use. A command the agent runs
// cannot read the sealing key, so it cannot answer its own approvals.
func ConsoleKey() ([]byte, error) {
	key, err := sealKey()
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("toolscope: console live channel, v1"))
	return m.Sum(nil), nil
}
