package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// multipartForm is gqlgen's multipart transport with its request errors
// (a missing or misplaced operations or map field, a file map does not
// name, a name map gives that was not sent, a variable left null by a map
// path naming another: explainNullVariable) reworded to say what to send
// (docs/api.md#uploads).
type multipartForm struct{ transport.MultipartForm }

// Do serves the request, rewording a multipart request error.
func (t multipartForm) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	t.MultipartForm.Do(&multipartErrors{ResponseWriter: w}, r, exec)
}

// multipartErrors rewrites the first write when it is one of gqlgen's
// multipart request errors; every other write passes unchanged.
type multipartErrors struct {
	http.ResponseWriter
	wrote bool
}

func (m *multipartErrors) Write(b []byte) (int, error) {
	if m.wrote || !bytes.HasPrefix(b, []byte(`{"errors":[{"message":`)) {
		m.wrote = true
		return m.ResponseWriter.Write(b)
	}
	m.wrote = true
	var resp graphql.Response
	if err := json.Unmarshal(b, &resp); err != nil || len(resp.Errors) != 1 || (len(resp.Data) > 0 && string(resp.Data) != "null") {
		return m.ResponseWriter.Write(b)
	}
	var out []byte
	var err error
	if msg, ok := explainMultipart(resp.Errors[0].Message); ok {
		out, err = json.Marshal(graphql.Response{Errors: gqlerror.List{{Message: msg, Extensions: map[string]any{"code": CodeBadInput}}}})
	} else if msg, ok := explainNullVariable(resp.Errors[0]); ok {
		e := *resp.Errors[0]
		e.Message = msg
		out, err = json.Marshal(graphql.Response{Errors: gqlerror.List{&e}})
	} else {
		return m.ResponseWriter.Write(b)
	}
	if err != nil {
		return m.ResponseWriter.Write(b)
	}
	if _, err := m.ResponseWriter.Write(append(out, '\n')); err != nil {
		return 0, err
	}
	return len(b), nil
}

const uploadHelp = `; an upload sends the form fields "operations" (the JSON request, null where the file goes), then "map" (e.g. {"0": ["variables.file"]}), then the file in the field map names (docs/api.md#uploads)`

var multipartKey = regexp.MustCompile(`^(invalid empty operations paths list for key|failed to get key) (.*?)( from form)?$`)

// explainMultipart returns a clearer message for a gqlgen multipart
// request error, and false for any other message.
func explainMultipart(msg string) (string, bool) {
	switch msg {
	case "first part must be operations":
		return `multipart upload: the first form field must be "operations"` + uploadHelp, true
	case "operations form field could not be decoded":
		return `multipart upload: "operations" is not a JSON request object` + uploadHelp, true
	case "second part must be map":
		return `multipart upload: the second form field must be "map"` + uploadHelp, true
	case "map form field could not be decoded":
		return `multipart upload: "map" is not a JSON object of form field names to lists of variable paths` + uploadHelp, true
	}
	m := multipartKey.FindStringSubmatch(msg)
	switch {
	case m == nil:
		return "", false
	case m[1] == "failed to get key":
		return fmt.Sprintf(`multipart upload: "map" names the form field %q, but no file was sent in it`, m[2]) + uploadHelp, true
	default:
		return fmt.Sprintf(`multipart upload: the form field %q is not named in "map" (map it: {%q: ["variables.file"]})`, m[2], m[2]) + uploadHelp, true
	}
}

// explainNullVariable rewords gqlgen's "cannot be null" for a variable of
// an upload request, which is what a "map" path naming another variable
// (variables.fil for variables.file) leaves: the file went elsewhere and
// the variable stayed null. Code and path are kept.
func explainNullVariable(e *gqlerror.Error) (string, bool) {
	if e.Message != "cannot be null" || len(e.Path) != 2 || e.Path[0] != ast.PathName("variable") {
		return "", false
	}
	name, ok := e.Path[1].(ast.PathName)
	if !ok {
		return "", false
	}
	return fmt.Sprintf(`multipart upload: variable %q is null; if it is the file, "map" must name "variables.%s" for the form field that holds it`, string(name), string(name)) + uploadHelp, true
}
