package format_test

import (
	"encoding/json"
	"fmt"
	"loregate/lore"
	"sort"
	"strconv"
	"strings"
)

// jsonDiff is one difference between two JSON documents: Path is a
// slash-separated path ("entries/3/extensions/depth", array indexes as
// numbers), Kind is "missing" (in the source only), "added" (in the export
// only) or "changed"; Src and Got are the compact values.
type jsonDiff struct {
	Path, Kind string
	Src, Got   string
}

func (d jsonDiff) String() string {
	switch d.Kind {
	case "missing":
		return fmt.Sprintf("%s: missing (source %s)", d.Path, lore.ClipBytes(d.Src, 60))
	case "added":
		return fmt.Sprintf("%s: added %s", d.Path, lore.ClipBytes(d.Got, 60))
	}
	return fmt.Sprintf("%s: %s -> %s", d.Path, lore.ClipBytes(d.Src, 60), lore.ClipBytes(d.Got, 60))
}

// diffJSON compares a and b (JSON documents) structurally: objects by
// member name (order ignored), arrays by index, numbers by value.
func diffJSON(a, b []byte) ([]jsonDiff, error) {
	var va, vb any
	da := json.NewDecoder(strings.NewReader(string(a)))
	da.UseNumber()
	if err := da.Decode(&va); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	db := json.NewDecoder(strings.NewReader(string(b)))
	db.UseNumber()
	if err := db.Decode(&vb); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var out []jsonDiff
	walkDiff("", va, vb, &out)
	return out, nil
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "/" + name
}

func walkDiff(path string, a, b any, out *[]jsonDiff) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		names := make([]string, 0, len(x)+len(y))
		for k := range x {
			names = append(names, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, k := range names {
			av, inA := x[k]
			bv, inB := y[k]
			switch {
			case !inB:
				*out = append(*out, jsonDiff{join(path, k), "missing", compact(av), ""})
			case !inA:
				*out = append(*out, jsonDiff{join(path, k), "added", "", compact(bv)})
			default:
				walkDiff(join(path, k), av, bv, out)
			}
		}
		return
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := 0; i < max(len(x), len(y)); i++ {
			p := join(path, strconv.Itoa(i))
			switch {
			case i >= len(y):
				*out = append(*out, jsonDiff{p, "missing", compact(x[i]), ""})
			case i >= len(x):
				*out = append(*out, jsonDiff{p, "added", "", compact(y[i])})
			default:
				walkDiff(p, x[i], y[i], out)
			}
		}
		return
	case json.Number:
		if y, ok := b.(json.Number); ok {
			fa, _ := x.Float64()
			fb, _ := y.Float64()
			if fa == fb {
				return
			}
		}
	default:
		if compact(a) == compact(b) {
			return
		}
	}
	*out = append(*out, jsonDiff{path, "changed", compact(a), compact(b)})
}
