package live

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Endpoint is a registered hub, as a [Client] found it.
type Endpoint struct {
	Addr    string
	PID     int
	Command string
	Started time.Time
	// Name is the registration's file name without ".json" (PID-RANDOM).
	Name string
}

// Client talks to the hubs registered in one runs directory.
type Client struct {
	dir  string
	key  []byte
	http *http.Client
}

// NewClient returns a client of the hubs registered in dir (the console's
// runs directory) with the console key key.
func NewClient(dir string, key []byte) *Client {
	return &Client{dir: dir, key: key, http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}}
}

// maxRegistration bounds a registration file.
const maxRegistration = 4 << 10

// Endpoints lists the registrations whose MAC verifies (one written by
// anyone without the key is left out), whatever their process's state.
func (c *Client) Endpoints() []Endpoint {
	dir := filepath.Join(c.dir, DirName)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Endpoint
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, maxRegistration))
		f.Close()
		if err != nil {
			continue
		}
		var r registration
		if json.Unmarshal(b, &r) != nil || !hmac.Equal([]byte(r.mac(c.key)), []byte(r.MAC)) {
			continue
		}
		if !strings.HasPrefix(r.Addr, "127.0.0.1:") {
			continue
		}
		out = append(out, Endpoint{Addr: r.Addr, PID: r.PID, Command: r.Command, Started: r.Started, Name: strings.TrimSuffix(e.Name(), ".json")})
	}
	return out
}

// ErrGone is returned for a hub whose process no longer answers.
var ErrGone = errors.New("the process is gone")

// StatusError is a hub's refusal.
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string { return e.Msg }

// Do sends an authenticated request to ep and decodes its authenticated
// JSON answer into out (when not nil).
func (c *Client) Do(ctx context.Context, ep Endpoint, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	nb := make([]byte, 16)
	rand.Read(nb)
	nonce := hex.EncodeToString(nb)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, method, "http://"+ep.Addr+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set(hdrTime, ts)
	req.Header.Set(hdrNonce, nonce)
	req.Header.Set(hdrMAC, requestMAC(c.key, method, req.URL.EscapedPath(), ts, nonce, body))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrGone, err)
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrGone, err)
	}
	if !hmac.Equal([]byte(responseMAC(c.key, nonce, resp.StatusCode, rb)), []byte(resp.Header.Get(hdrMAC))) {
		// Not the toolscope process that registered (another took its
		// port), or not one with this user's key.
		return fmt.Errorf("%w: the process at %s does not answer as the one that registered", ErrGone, ep.Addr)
	}
	if resp.StatusCode != http.StatusOK {
		var e errorBody
		json.Unmarshal(rb, &e)
		return &StatusError{Code: resp.StatusCode, Msg: e.Error}
	}
	if out != nil {
		return json.Unmarshal(rb, out)
	}
	return nil
}

// Version is a hub's version: it changes whenever one of its runs does.
func (c *Client) Version(ctx context.Context, ep Endpoint) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	err := c.Do(ctx, ep, http.MethodGet, "/v1/version", nil, &v)
	return v.Version, err
}

// Runs lists a hub's runs.
func (c *Client) Runs(ctx context.Context, ep Endpoint) ([]Info, error) {
	var out []Info
	err := c.Do(ctx, ep, http.MethodGet, "/v1/runs", nil, &out)
	return out, err
}

// Load reads one run of a hub.
func (c *Client) Load(ctx context.Context, ep Endpoint, id string) (*Snapshot, error) {
	var s Snapshot
	if err := c.Do(ctx, ep, http.MethodGet, "/v1/runs/"+id, nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Answer sends an answer to a hub.
func (c *Client) Answer(ctx context.Context, ep Endpoint, a Answer) error {
	return c.Do(ctx, ep, http.MethodPost, "/v1/answer", a, nil)
}
