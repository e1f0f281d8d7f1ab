package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Approvals under MCP 2026-07-28. That revision has no requests from
// server to client: a server that needs its user's input returns a result
// of type "input_required" naming what it needs (here an elicitation
// form), and the client asks its user and sends the call again with the
// answers and the state the server gave it (multi round-trip requests).
//
// The retry is a new request, which this server judges again from the
// start, and the answer counts only for the call the user was shown: the
// state is an HMAC, under a key of this Server, of the digest of that call
// (who asked, by the Authorization header of an HTTP request; tool, input
// as judged, the decision's message and the rules "always" would add) and
// an expiry. A retry whose call differs in any of these, an
// answer without a state, a forged, altered or expired state, is no
// approval: the call is asked about afresh, or refused. Older clients are
// asked as before, by an elicitation request in the middle of the call.

// rev2026 is the first protocol revision without server-initiated
// requests.
const rev2026 = "2026-07-28"

// approvalKey names the elicitation in a call's input requests.
const approvalKey = "approval"

// approvalTTL is how long the user has to answer.
const approvalTTL = 10 * time.Minute

// round is a 2026-07-28 call's approval round, carried to ElicitAsker in
// the call's context.
type round struct {
	canAsk bool // the client can show an elicitation form
	// The answer the retry carries, for the call whose digest is
	// answeredFor (set only when the state verified).
	answer      *sdk.ElicitResult
	answeredFor [32]byte
	// What the call needs asked, when ElicitAsker could not answer it:
	// the form and the call's digest.
	pending    *sdk.ElicitParams
	pendingFor [32]byte
	// principal is who sends the request, where the transport says: the
	// digest of its Authorization header (HTTP). An approval holds only
	// for the principal it was asked of.
	principal string
}

type roundKey struct{}

// newStateKey returns a random key for a Server's approval states.
func newStateKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// sealState returns the request state for the call digest d: the digest,
// the expiry (Unix seconds) and their HMAC, in base64url.
func (s *Server) sealState(d [32]byte, now time.Time) string {
	var b [32 + 8]byte
	copy(b[:], d[:])
	binary.BigEndian.PutUint64(b[32:], uint64(now.Add(approvalTTL).Unix()))
	m := hmac.New(sha256.New, s.stateKey)
	m.Write(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:]) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// openState returns the call digest a request state was sealed for, or
// an error when it was not sealed by this Server or has expired.
func (s *Server) openState(st string, now time.Time) ([32]byte, error) {
	var d [32]byte
	body, mac, ok := strings.Cut(st, ".")
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	sum, err2 := base64.RawURLEncoding.DecodeString(mac)
	if !ok || err1 != nil || err2 != nil || len(b) != 40 {
		return d, errors.New("the requestState is not one this server gave")
	}
	m := hmac.New(sha256.New, s.stateKey)
	m.Write(b)
	if !hmac.Equal(sum, m.Sum(nil)) {
		return d, errors.New("the requestState is not one this server gave")
	}
	if int64(binary.BigEndian.Uint64(b[32:])) < now.Unix() {
		return d, errors.New("the requestState has expired: call the tool again")
	}
	copy(d[:], b)
	return d, nil
}

// callDigest is the digest of what the user approves: the tool, its input
// as judged, the decision's message and the rules "always" adds.
func callDigest(principal string, call *tool.Call, d permission.Decision, rules []string) [32]byte {
	h := sha256.New()
	for _, part := range append([]string{principal, call.Name, string(call.Input), d.Message}, rules...) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// beginRound prepares a 2026-07-28 call's round from its request: nil for
// an older revision. A request state that does not verify is an error the
// client gets as such (invalid params).
func (s *Server) beginRound(req *sdk.CallToolRequest) (*round, error) {
	if req.ProtocolVersion() < rev2026 {
		return nil, nil
	}
	r := &round{}
	if x := req.Extra; x != nil && x.Header.Get("Authorization") != "" {
		sum := sha256.Sum256([]byte(x.Header.Get("Authorization")))
		r.principal = string(sum[:])
	}
	if c := req.ClientCapabilities(); c != nil && c.Elicitation != nil {
		r.canAsk = true
	}
	if st := req.Params.RequestState; st != "" {
		d, err := s.openState(st, time.Now())
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		if a, ok := req.Params.InputResponses[approvalKey].(*sdk.ElicitResult); ok {
			r.answer, r.answeredFor = a, d
		}
	}
	return r, nil
}

// inputRequired is the result that asks the client for the round's
// pending approval.
func (s *Server) inputRequired(r *round) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		InputRequests: sdk.InputRequestMap{approvalKey: r.pending},
		RequestState:  s.sealState(r.pendingFor, time.Now()),
	}
}

// askRound is ElicitAsker's answer for a 2026-07-28 call: the retry's
// answer when it is for this very call, else the form to send (and
// tool.ErrNotAsked: the Toolkit runs nothing this round).
func askRound(ctx context.Context, r *round, call *tool.Call, d permission.Decision, form *sdk.ElicitParams, rules []string) (bool, []permission.Rule, error) {
	dg := callDigest(r.principal, call, d, rules)
	if r.answer != nil && hmac.Equal(r.answeredFor[:], dg[:]) {
		return approval(r.answer, d)
	}
	if !r.canAsk {
		return false, nil, errNoElicitation{d.Message}
	}
	r.pending, r.pendingFor = form, dg
	return false, nil, tool.ErrNotAsked
}

// approval reads the user's answer to the approval form: "allow" runs the
// call, "always" also adds the suggested rules. Anything else (a decline,
// a cancel, a value of another type) is a refusal.
func approval(res *sdk.ElicitResult, d permission.Decision) (bool, []permission.Rule, error) {
	if res.Action != "accept" || res.Content["allow"] != true {
		return false, nil, nil
	}
	if res.Content["always"] == true && !d.BypassImmune {
		return true, d.Suggestions, nil
	}
	return true, nil, nil
}
