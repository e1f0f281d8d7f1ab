package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// cookieName holds the access token once the URL gave it.
const cookieName = "toolscope_console"

// securityHeaders are sent with every answer: no script but the console's
// own file, no framing, no sniffing, no referrer, no caching.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // not no-referrer: with it, browsers send "Origin: null" on a form POST
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// who returns the name of the token the request carries ("" when none
// matches): the URL's ?token=, the cookie, or an Authorization: Bearer
// header.
func (s *Server) who(r *http.Request) (name string, fromURL bool) {
	if t := r.URL.Query().Get("token"); t != "" {
		return s.match(t), true
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return s.match(c.Value), false
	}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return s.match(t), false
	}
	return "", false
}

func (s *Server) match(t string) string {
	found := ""
	for _, tk := range s.tokens {
		// Every token is compared, in constant time.
		if subtle.ConstantTimeCompare([]byte(tk.token), []byte(t)) == 1 {
			found = tk.name
		}
	}
	return found
}

func (s *Server) tokenOf(name string) string {
	i := slices.IndexFunc(s.tokens, func(t namedToken) bool { return t.name == name })
	return s.tokens[i].token
}

// csrf is the form token of the session that holds the access token
// name: a MAC of that token under the server's key, so it differs per
// session and per server start, and is never the access token itself.
func (s *Server) csrf(name string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("csrf\x00" + name + "\x00" + s.tokenOf(name)))
	return hex.EncodeToString(m.Sum(nil))
}

// hostAllowed guards against DNS rebinding: the Host header must name a
// loopback address, localhost, or a host the options allow.
func (s *Server) hostAllowed(r *http.Request) bool {
	h := r.Host
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") || slices.Contains(s.hosts, strings.ToLower(h)) {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a POST comes from the console's own pages:
// an Origin header, when sent, must be this server's, and a
// Sec-Fetch-Site header, when sent, must say same-origin. A client that
// sends neither (not a browser) still needs the form token.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host) && u.Path == "" && u.User == nil
}

// guard applies the checks every request meets, in order: the Host, the
// token (a token in the URL becomes a cookie, and the URL is loaded again
// without it), and for POST the origin and the form token.
func (s *Server) guard(next func(w http.ResponseWriter, r *http.Request, who string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if !s.hostAllowed(r) {
			http.Error(w, "421 this console answers only to its own address (the Host header names another host)", http.StatusMisdirectedRequest)
			return
		}
		who, fromURL := s.who(r)
		if who == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolscope console"`)
			http.Error(w, "401 the console needs its access token: open the URL that toolscope console printed (it ends in ?token=...)", http.StatusUnauthorized)
			return
		}
		if fromURL {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.tokenOf(who), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			if r.Method == http.MethodGet {
				u := *r.URL
				q := u.Query()
				q.Del("token")
				u.RawQuery = q.Encode()
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if !sameOrigin(r) {
				http.Error(w, "403 an answer must come from the console's own page (the request came from another origin)", http.StatusForbidden)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			if err := r.ParseForm(); err != nil {
				http.Error(w, "400 the form could not be read: "+err.Error(), http.StatusBadRequest)
				return
			}
			if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(s.csrf(who))) != 1 {
				http.Error(w, "403 the form token is missing or wrong: reload the console's page and answer again", http.StatusForbidden)
				return
			}
		}
		next(w, r, who)
	})
}
