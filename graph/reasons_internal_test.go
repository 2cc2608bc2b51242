package graph

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// TestEveryErrorCodeHasAReason: each payload error code, from the contract
// errors that produce it, carries a known reason key whose params fill
// every placeholder of its texts in English, Portuguese and Spanish (a
// code or a key without a text in one language fails).
func TestEveryErrorCodeHasAReason(t *testing.T) {
	long := strings.Repeat("x", lore.MaxTitleLen+1)
	bad := lore.Entry{Server: serverID, Title: long, Content: "c", Collection: "World", Probability: 150, Sticky: -1}
	cases := []struct {
		name string
		err  error
		code model.ErrorCode
	}{
		{"invalid entry", bad.Validate(), model.ErrorCodeInvalidInput},
		{"invalid, no key", lore.Invalid("messages", "too many"), model.ErrorCodeInvalidInput},
		{"invalid sentinel", fmt.Errorf("x: %w", lore.ErrInvalid), model.ErrorCodeInvalidInput},
		{"scope full", &lore.ScopeFullError{Limit: 250, Existing: 249, Adding: 3}, model.ErrorCodeScopeFull},
		{"scope full sentinel", lore.ErrScopeFull, model.ErrorCodeScopeFull},
		{"entry not found", fmt.Errorf("update: %w", lore.NotFound("entry", 12)), model.ErrorCodeNotFound},
		{"lineage not found", lore.NotFound("lineage", 9), model.ErrorCodeNotFound},
		{"not found sentinel", lore.ErrNotFound, model.ErrorCodeNotFound},
		{"duplicate name", &lore.DuplicateNameError{Name: "World"}, model.ErrorCodeDuplicateName},
		{"stale version", &lore.StaleError{Target: "entry 12", Expected: time.Unix(1, 0), Current: time.Unix(2, 0)}, model.ErrorCodeStaleTarget},
		{"stale target", lore.ErrStaleTarget, model.ErrorCodeStaleTarget},
		{"unavailable", fmt.Errorf("read: %w", lore.ErrUnavailable), model.ErrorCodeUnavailable},
	}
	covered := map[model.ErrorCode]bool{}
	for _, tc := range cases {
		me := mutationError(tc.err)
		if me == nil {
			t.Fatalf("%s: not a contract error", tc.name)
		}
		if me.Code != tc.code {
			t.Errorf("%s: code %s, want %s", tc.name, me.Code, tc.code)
		}
		covered[me.Code] = true
		checkReason(t, tc.name, me.Reason, me.Params)
		for _, f := range me.Fields {
			checkReason(t, tc.name+" "+f.Field, f.Reason, f.Params)
		}
	}
	for _, c := range model.AllErrorCode {
		if !covered[c] {
			t.Errorf("error code %s has no case here: add one with its reason key", c)
		}
	}
}

// checkReason fails when key is unknown or a text of it keeps a
// placeholder params do not fill.
func checkReason(t *testing.T, name, key string, params map[string]any) {
	t.Helper()
	if !i18n.Known(key) {
		t.Errorf("%s: reason %q is not in lore/i18n", name, key)
		return
	}
	for _, lang := range i18n.Langs() {
		if s := i18n.Text(lang, key, params); strings.Contains(s, "{") || s == "" {
			t.Errorf("%s: reason %q in %s renders as %q (params %v)", name, key, lang, s, params)
		}
	}
}

// TestFieldErrorsOfOneWrite: an entry that breaks several rules reports
// each failing field once, in field order, with the first one as the
// error's field and reason.
func TestFieldErrorsOfOneWrite(t *testing.T) {
	depth := 500
	e := lore.Entry{Server: serverID, Collection: "World", Title: strings.Repeat("t", lore.MaxTitleLen+5), Content: "c",
		Keys: []string{"ok", strings.Repeat("k", lore.MaxKeyLen+1)}, ScanDepth: &depth, Probability: 101, Sticky: -1, Placement: lore.After}
	me := mutationError(e.Validate())
	var got []string
	for _, f := range me.Fields {
		got = append(got, f.Field+" "+f.Reason)
	}
	want := []string{"title too_long", "keys[1] too_long", "scanDepth out_of_range", "probability out_of_range", "sticky out_of_range"}
	if !slices.Equal(got, want) {
		t.Fatalf("fields = %v, want %v", got, want)
	}
	if *me.Field != "title" || me.Reason != "too_long" || me.Params["max"] != lore.MaxTitleLen || me.Params["length"] != lore.MaxTitleLen+5 {
		t.Errorf("first error: field %s reason %s params %v", *me.Field, me.Reason, me.Params)
	}
	if me.Fields[3].Message != "invalid probability: 101 is outside 0-100" {
		t.Errorf("message %q", me.Fields[3].Message)
	}
}

const serverID = "111111111111111111"
