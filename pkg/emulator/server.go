// Package emulator is a local server that speaks enough of Azure Resource
// Manager for kubectl-azure: resource groups and generic resources with
// PUT/PATCH/GET/DELETE/list, long-running operations, etags, throttling,
// latency, faults, and per-type quirks learned from recorded ARM traffic.
//
// Tests start it in-process with Start; cmd/arm-emulator serves the same
// Handler on a port.
package emulator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server is a running emulator. All methods are safe for concurrent use.
type Server struct {
	opts    Options
	profile *Profile

	mu    sync.Mutex // guards store, cache and ops
	store *store
	// cache is ARM's lagging cache behind the generic lists
	// (Options.CacheLag); nil when they answer from the store.
	cache *listCache
	ops   map[string]*operation // every operation issued, for polls
	// pending are the operations not yet settled, in start order.
	pending []*operation

	// deletedVaults are soft-deleted Key Vaults by lower-cased name;
	// subTags the tag sets of subscriptions (Microsoft.Resources/tags).
	deletedVaults map[string]deletedVault
	// orphanDiag holds diagnostic settings whose resource was deleted, by
	// lower-cased ID: they come back when the resource is created again.
	orphanDiag map[string]*resource
	// tagNames are the subscriptions' predefined tag names (tagnames.go).
	tagNames predefinedTags
	subTags  map[string]map[string]any

	provOnce  sync.Once
	provTypes map[string]map[string][]string // the providers API's types and versions
	wideOnce  sync.Once
	wideVers  []string // every api-version of the index, newest first (providers.go)

	nsOnce     sync.Once
	namespaces map[string]bool // lower-cased namespaces the schema index knows

	stats    *statsCounter
	throttle *throttler
	chaos    *chaos

	handler  http.Handler
	listener net.Listener
	http     *http.Server
	url      string
}

// New builds a Server without listening; use Handler to serve it yourself.
func New(opts Options) (*Server, error) {
	if opts.Quirks == "" {
		opts.Quirks = QuirksCorpus
	}
	if opts.Quirks != QuirksCorpus && opts.Quirks != QuirksNone {
		return nil, fmt.Errorf("unknown quirks mode %q: use %q or %q", opts.Quirks, QuirksCorpus, QuirksNone)
	}
	s := &Server{
		opts:  opts,
		store: newStore(),
		ops:   map[string]*operation{},
		stats: newStatsCounter(),

		deletedVaults: map[string]deletedVault{},
		orphanDiag:    map[string]*resource{},
		subTags:       map[string]map[string]any{},
		throttle:      newThrottler(opts.Throttle),
	}
	s.chaos = newChaos(&s.opts)
	s.cache = newListCache(opts.CacheLag)
	s.store = s.newStoreLocked()
	if opts.Quirks == QuirksCorpus {
		s.profile = opts.Profile
		if s.profile == nil {
			p, err := EmbeddedProfile()
			if err != nil {
				return nil, err
			}
			s.profile = p
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/_emulator/", s.serveAdmin)
	mux.HandleFunc("/", s.serveRoot)
	s.handler = mux
	return s, nil
}

// Start listens on opts.Addr (127.0.0.1:0 when empty) and serves until Close.
func Start(opts Options) (*Server, error) {
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("emulator: listen on %s: %w (is another emulator running? pick another --addr)", addr, err)
	}
	scheme := "http"
	if opts.TLSCertDir != "" {
		cert, err := writeSelfSignedCert(opts.TLSCertDir)
		if err != nil {
			ln.Close()
			return nil, err
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	s.listener = ln
	s.url = scheme + "://" + ln.Addr().String()
	s.http = &http.Server{
		// The listener serves what New's callers serve themselves.
		Handler:           s.Handler(),
		ReadHeaderTimeout: 30 * time.Second,
		// HTTP/1.1 only: connection-reset faults need to hijack the conn.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// URL is the base URL, e.g. http://127.0.0.1:41234; use it as the ARM endpoint.
func (s *Server) URL() string { return s.url }

// Handler serves ARM, the admin API and the token endpoint.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the listener and open connections.
func (s *Server) Close() error {
	if s.http == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.http.Close()
	}
	return err
}

// Stats returns request counters.
func (s *Server) Stats() Stats { return s.stats.snapshot() }

// ForgetOperations loses every long-running operation still in flight, as
// ARM's front end does when it restarts: their polls answer 404
// OperationNotFound from now on, while the writes and deletes they track
// still finish on schedule. It returns how many were lost. POST
// /_emulator/operations/forget does the same.
func (s *Server) ForgetOperations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleLocked()
	n := 0
	for _, op := range s.pending {
		if !op.Lost {
			op.Lost = true
			n++
		}
	}
	return n
}

// Reset forgets every resource and operation and zeroes the counters and
// throttling buckets, as DELETE /_emulator/resources does.
func (s *Server) Reset() {
	s.mu.Lock()
	// A forgotten store leaves nothing in the list cache either.
	s.cache = newListCache(s.opts.CacheLag)
	s.store = s.newStoreLocked()
	s.ops = map[string]*operation{}
	s.pending = nil
	s.deletedVaults = map[string]deletedVault{}
	s.orphanDiag = map[string]*resource{}
	s.subTags = map[string]map[string]any{}
	s.tagNames = nil
	s.mu.Unlock()
	s.stats.reset()
	s.throttle.reset()
}

func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

// baseURL is the scheme and host the client used, so returned URLs work
// whichever address reached us.
func (s *Server) baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// serveRoot dispatches the token endpoints and ARM.
func (s *Server) serveRoot(w http.ResponseWriter, r *http.Request) {
	if s.serveIdentity(w, r) {
		return
	}
	s.serveARM(w, r)
}
