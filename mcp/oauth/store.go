package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/toolscope/toolscope/internal/textfile"
)

// DefaultDir is where tokens are kept when Config.Dir is "": the user's
// configuration directory's toolscope/mcp-oauth (on Linux
// ~/.config/toolscope/mcp-oauth), next to toolscope's key, never in a
// project.
func DefaultDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("oauth: no configuration directory to keep tokens in: %w", err)
	}
	return filepath.Join(dir, "toolscope", "mcp-oauth"), nil
}

// entry is what is kept for one server: how to reach its authorization
// server, the client registered there, and the tokens.
type entry struct {
	Server        string `json:"server"`   // canonical URL: the key
	Resource      string `json:"resource"` // the RFC 8707 resource asked for
	Issuer        string `json:"issuer"`
	TokenEndpoint string `json:"token_endpoint"`

	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method"` // none, client_secret_post or client_secret_basic
	Registered   bool   `json:"registered,omitempty"`       // registered dynamically, for RedirectURI
	RedirectURI  string `json:"redirect_uri,omitempty"`

	AccessToken  string    `json:"access_token,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scope        string    `json:"scope,omitempty"`
	// StepUp is the scope a server asked for beyond the token's
	// (403 insufficient_scope): the next Login asks for it too.
	StepUp string `json:"step_up_scope,omitempty"`
	// Challenged is the scope of the server's challenge to a request
	// without a token (a 401 of a server that let the client connect
	// first): the next Login asks for it when the server says nothing
	// to Login's own requests.
	Challenged string `json:"challenge_scope,omitempty"`
}

// expiryMargin is how long before its expiry a token is refreshed, so
// that it does not expire on its way.
const expiryMargin = 30 * time.Second

func (e *entry) expired(now time.Time) bool {
	return !e.Expiry.IsZero() && now.Add(expiryMargin).After(e.Expiry)
}

// store is the directory of one server's entry. Writers take its lock
// (flock on the directory, so other processes' too) for a read, change
// and write; the file is replaced whole (a temporary file renamed over
// it), so a reader without the lock sees the old file or the new one.
type store struct {
	dir string
}

func newStore(cfg *Config, server string) (*store, error) {
	base := cfg.Dir
	if base == "" {
		var err error
		if base, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	sum := sha256.Sum256([]byte(server))
	return &store{dir: filepath.Join(base, hex.EncodeToString(sum[:16]))}, nil
}

func (s *store) path() string { return filepath.Join(s.dir, "token.json") }

// load returns the entry; nil when there is none.
func (s *store) load() (*entry, error) {
	b, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: reading the stored token: %w", err)
	}
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("oauth: the stored token file %s is damaged (log in again to replace it): %v", s.path(), err)
	}
	return &e, nil
}

// lock makes the directory (0700, as its parents that it makes) and
// locks it.
func (s *store) lock() (func(), error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("oauth: making the token directory: %w", err)
	}
	l, err := textfile.Lock(s.dir)
	if err != nil {
		return nil, fmt.Errorf("oauth: locking the token directory: %w", err)
	}
	return l.Unlock, nil
}

// save writes e (the caller holds the lock): a new file of mode 0600,
// synced, renamed over the old one.
func (s *store) save(e *entry) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".token-*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("oauth: saving the token: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path())
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("oauth: saving the token: %w", err)
	}
	return nil
}

// remove deletes the entry (under the lock).
func (s *store) remove() error {
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.Remove(s.path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("oauth: removing the token: %w", err)
	}
	return nil
}
