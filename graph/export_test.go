package graph

import "net/http"

// LeanHandler is the lean turn handler Mount installs, over next (tests
// count what reaches gqlgen).
func LeanHandler(next http.Handler, cfg Config) http.Handler {
	return newLeanHandler(next, cfg, newSchema(cfg).Schema())
}
