package embeddings

import (
	"errors"
	"testing"

	"loregate/lore/semantic"
)

func TestDecode(t *testing.T) {
	cases := []struct {
		name string
		body string
		n    int
		dims int
		ok   bool
	}{
		{"two in order", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]}`, 2, 2, true},
		{"out of order", `{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}]}`, 2, 0, true},
		{"no index field", `{"data":[{"embedding":[1,0]}]}`, 1, 0, true},
		{"too few", `{"data":[{"index":0,"embedding":[1,0]}]}`, 2, 0, false},
		{"repeated index", `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`, 2, 0, false},
		{"index out of range", `{"data":[{"index":5,"embedding":[1,0]}]}`, 1, 0, false},
		{"lengths differ", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1,0]}]}`, 2, 0, false},
		{"wrong dims", `{"data":[{"index":0,"embedding":[1,0,0]}]}`, 1, 2, false},
		{"zero vector", `{"data":[{"index":0,"embedding":[0,0]}]}`, 1, 0, false},
		{"string in vector", `{"data":[{"index":0,"embedding":[1,"NaN"]}]}`, 1, 0, false},
		{"huge number", `{"data":[{"index":0,"embedding":[1e39,0]}]}`, 1, 0, false},
		{"base64 answer", `{"data":[{"index":0,"embedding":"AACAPw=="}]}`, 1, 0, false},
		{"not json", `<html>`, 1, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := decode([]byte(tc.body), tc.n, tc.dims)
			if tc.ok != (err == nil) {
				t.Fatalf("decode = %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			if tc.name == "out of order" && out[0][0] != 1 {
				t.Fatal("vectors not put at their index")
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]}`), 2, 0)
	f.Add([]byte(`{"data":[{"embedding":[0.5,-0.5,1]}]}`), 1, 3)
	f.Add([]byte(`{"data":null}`), 0, 0)
	f.Fuzz(func(t *testing.T, body []byte, n, dims int) {
		if n < 0 || n > MaxBatch || dims < 0 || dims > 64 {
			return
		}
		out, err := decode(body, n, dims)
		if err != nil {
			return
		}
		if len(out) != n {
			t.Fatalf("%d vectors for %d inputs", len(out), n)
		}
		for _, v := range out {
			if err := semantic.CheckVector(v, dims); err != nil || (len(out) > 0 && len(v) != len(out[0])) {
				t.Fatalf("accepted a bad vector: %v", err)
			}
		}
	})
}
