// Package explorer serves GraphiQL, the in-browser GraphQL IDE, from assets
// embedded in the binary: the page at "/" and its scripts and styles under
// AssetPrefix work without network access (versions and how to update them:
// graph/explorer/assets/README.md).
package explorer

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
)

// AssetPrefix is the URL path under which the embedded assets are served.
const AssetPrefix = "/explorer/"

//go:embed assets/*.js assets/*.css assets/LICENSE.*
var assets embed.FS

var page = template.Must(template.New("explorer").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<link rel="stylesheet" href="{{.Prefix}}graphiql.min.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="{{.Prefix}}react.production.min.js"></script>
<script src="{{.Prefix}}react-dom.production.min.js"></script>
<script src="{{.Prefix}}graphiql.min.js"></script>
<script>
  const fetcher = GraphiQL.createFetcher({ url: {{.Endpoint}} });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher,
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: true,
      defaultHeaders: {{.Headers}},
      defaultQuery: {{.Query}},
    }),
  );
</script>
</body>
</html>
`))

// defaultHeaders is shown in the headers tab on a first visit: every
// request needs a bearer credential (docs/api.md#principals).
const defaultHeaders = `{"Authorization": "Bearer <your LOREGATE_SERVICE_KEYS key or a member token>"}`

const defaultQuery = `# loregate GraphQL API: docs/api.md.
# 1. Headers tab below: your LOREGATE_SERVICE_KEYS key.
# 2. Re-fetch the schema (lower left), for the Docs.
# 3. Press the run button.
mutation Setup {
  upsertServer(input: {discordId: "123456789012345678", name: "My server"}) {
    server { discordId name }
    error { code message }
  }
}
`

// Handler serves the explorer page for the GraphQL endpoint at endpoint
// (a URL path such as "/graphql") on "/", and the embedded assets under
// AssetPrefix. Mount it on both: mux.Handle("GET /{$}", h);
// mux.Handle("GET "+AssetPrefix, h).
func Handler(title, endpoint string) http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded directory exists at compile time
	}
	files := http.StripPrefix(AssetPrefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, AssetPrefix) {
			w.Header().Set("Cache-Control", "public, max-age=86400")
			files.ServeHTTP(w, r)
			return
		}
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, map[string]any{
			"Title": title, "Prefix": AssetPrefix, "Endpoint": endpoint,
			"Headers": defaultHeaders, "Query": defaultQuery,
		})
	})
}
