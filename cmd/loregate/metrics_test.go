package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

// TestMetricsNeedServiceKey: /metrics on the API listener answers a
// service key only (serve mounts it with serviceOnly).
func TestMetricsNeedServiceKey(t *testing.T) {
	const key = "metrics-test-key-0123456789"
	authn, err := auth.NewAuthenticator([]string{key}, "metrics-test-jwt-secret-0123456789abcdef")
	require.NoError(t, err)
	srv := httptest.NewServer(serviceOnly(authn, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "go_goroutines 1\n")
	})))
	t.Cleanup(srv.Close)
	member, err := authn.Mint("999999999999999999", map[string]auth.Membership{"111111111111111111": {Manage: true}}, time.Hour, time.Now())
	require.NoError(t, err)
	for _, tt := range []struct {
		bearer string
		want   int
	}{{"", http.StatusUnauthorized}, {"wrong-key-0123456789", http.StatusUnauthorized}, {member, http.StatusForbidden}, {key, http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		if tt.bearer != "" {
			req.Header.Set("Authorization", "Bearer "+tt.bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, tt.want, resp.StatusCode, tt.bearer)
	}
}
