package activation

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVerdictCodes: every verdict of the engine has a code that gives it
// back, and the codes list nothing else.
func TestVerdictCodes(t *testing.T) {
	for _, v := range Verdicts() {
		require.Equal(t, v, codeOf(v).verdict())
	}
	require.Len(t, verdictNames, len(Verdicts())+1) // and vNone
	require.Equal(t, vNone, codeOf(""))
	require.Panics(t, func() { codeOf("no_such_verdict") })
}

// TestEntryStateSet: set copies every field of an entryState, whether
// the fields differ or not (a field added to entryState outside
// entryScalars needs its line in set).
func TestEntryStateSet(t *testing.T) {
	var src entryState
	fill(t, reflect.ValueOf(&src).Elem())
	for _, dst := range []entryState{{}, src, {detail: "old", content: "old", ctx: &turnScan{}}} {
		dst.set(&src)
		require.Equal(t, src, dst)
	}
	var zero entryState
	src.set(&zero)
	require.Equal(t, zero, src)
}

// fill sets every field of v (a struct, embedded structs included) to a
// value other than its zero.
func fill(t *testing.T, v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem() // unexported
		switch f.Kind() {
		case reflect.Struct:
			fill(t, f)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Uint8:
			f.SetUint(uint64(i + 1))
		case reflect.Float32:
			f.SetFloat(float64(i) + 0.5)
		case reflect.String:
			f.SetString("s" + v.Type().Field(i).Name)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("entryState field %s: kind %s", v.Type().Field(i).Name, f.Kind())
		}
	}
}
