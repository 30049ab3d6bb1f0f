package reconcile

import (
	"context"
	"net"
	"net/http"
	"time"
)

// ServeHealth serves /healthz and /readyz alone on addr until ctx ends,
// for the kubelet's probes, which reach the pod's address: /metrics (Serve)
// can then stay on loopback. The returned address is the one bound.
func ServeHealth(ctx context.Context, addr string, h Health) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if h.Ready() != nil {
			// The reason stays in the log and status file: this port is
			// reachable from the cluster.
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() { _ = srv.Serve(ln) }() // ends when ctx does
	return ln.Addr().String(), nil
}
