package discord

import (
	"loregate/lore"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRouteRoundTrip(t *testing.T) {
	const big = int64(9223372036854775807) // 19 digits
	tests := []struct {
		name string
		r    route
		want string
	}{
		{"serverwide bare", route{action: actServerwide}, "memories:v1:lore-sw:0:0:0"},
		{"persona with entry page", route{action: actEntryPage, lineage: 7, entryPage: 2}, "memories:v1:lore-ep:7:0:0:2"},
		{"collection id trails, entry range emitted as 0", route{action: actBookPick, page: 1, collection: 42}, "memories:v1:lore-bs:0:1:0:0:42"},
		{"entry and collection", route{action: actEntryEdit, entry: 9, entryPage: 3, collection: 42}, "memories:v1:lore-ee:0:0:9:3:42"},
		{"channel view with the collection's version (base 36)", route{action: "lore-bcs3", collection: 42, seen: 1764600000000000}, "memories:v1:lore-bcs3:0:0:0:0:42:hdhy1rdm2o"},
		{"longest", route{action: actEntryDelOK, lineage: big, page: 1000, entry: big, entryPage: 1000, collection: big}, ""},
		{"longest channel view (Serverwide, no entry, version in year 9999)", route{action: "lore-bcs3", page: 1000, entryPage: 1000, collection: big, seen: 253402300799999999}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.r.encode()
			if tt.want != "" {
				require.Equal(t, tt.want, id)
			}
			require.LessOrEqual(t, len(id), MaxCustomIDLen)
			got, err := parseRoute(id)
			require.NoError(t, err)
			require.Equal(t, tt.r, got)
		})
	}
}

func TestParseRouteRejectsOldAndMalformed(t *testing.T) {
	tests := []struct{ name, id string }{
		{"other namespace", "documents:v1:doc-sw:0:0:0"},
		{"older version", "memories:v0:lore-sw:0:0"},
		{"newer version", "memories:v2:lore-sw:0:0:0"},
		{"too few fields", "memories:v1:lore-sw:0"},
		{"too many fields", "memories:v1:lore-sw:0:0:0:0:0:0:0"},
		{"version not base 36", "memories:v1:lore-bcs:0:0:0:0:42:z!"},
		{"negative", "memories:v1:lore-bs:-1:0:0"},
		{"not a number", "memories:v1:lore-bs:x:0:0"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseRoute(tt.id)
			require.ErrorIs(t, err, errOldRoute)
		})
	}
}

func TestClipAndEscape(t *testing.T) {
	require.Equal(t, "abc", lore.ClipRunes("abc", 3))
	require.Equal(t, "ab…", lore.ClipRunes("abcd", 3))
	require.Equal(t, 100, len([]rune(lore.ClipRunes(strings.Repeat("é", 150), 100))))
	require.Equal(t, `\*bold\* @`+"\u200b"+`everyone`, escape("*bold* @everyone"))
}

// TestValidatorCatchesViolations keeps the fake's limit checks honest:
// each payload breaks one Discord rule.
func TestValidatorCatchesViolations(t *testing.T) {
	str := func(s string) *string { return &s }
	btn := func(id string) wireComponent { return wireComponent{Type: 2, CustomID: id, Label: str("b")} }
	row := func(cs ...wireComponent) wireComponent { return wireComponent{Type: 1, Components: cs} }
	opts := func(n int) []wireOption {
		var out []wireOption
		for i := range n {
			out = append(out, wireOption{Label: "o", Value: strings.Repeat("v", i+1)})
		}
		return out
	}
	ti := func(label string) wireComponent {
		return row(wireComponent{Type: 4, CustomID: "f", Label: str(label), MaxLength: 10})
	}
	lbl := func(c wireComponent) wireComponent { return wireComponent{Type: 18, Label: str("L"), Component: &c} }
	container := func(cs ...wireComponent) wireComponent { return wireComponent{Type: 17, Components: cs} }
	text := func(s string) wireComponent { return wireComponent{Type: 10, Content: s} }
	v2 := func(cs ...wireComponent) wireData { return wireData{Flags: flagComponentsV2, Components: cs} }
	many := func(n int) []wireComponent {
		var out []wireComponent
		for i := range n {
			out = append(out, text(strconv.Itoa(i)))
		}
		return out
	}
	tests := []struct {
		name string
		typ  int
		d    wireData
		want string
	}{
		{"six rows", 7, wireData{Components: []wireComponent{row(btn("a")), row(btn("b")), row(btn("c")), row(btn("d")), row(btn("e")), row(btn("f"))}}, "6 action rows"},
		{"26 options", 7, wireData{Components: []wireComponent{row(wireComponent{Type: 3, CustomID: "s", Options: opts(26)})}}, "26 options"},
		{"long custom id", 7, wireData{Components: []wireComponent{row(btn(strings.Repeat("x", 101)))}}, "length 101"},
		{"duplicate custom id", 7, wireData{Components: []wireComponent{row(btn("a"), btn("a"))}}, "duplicate custom_id"},
		{"select beside a button", 7, wireData{Components: []wireComponent{row(btn("a"), wireComponent{Type: 3, CustomID: "s", Options: opts(1)})}}, "1 buttons and 1 selects"},
		{"long content", 4, wireData{Content: str(strings.Repeat("x", 2001))}, "content of 2001"},
		{"modal title", 9, wireData{CustomID: "m", Title: strings.Repeat("x", 46), Components: []wireComponent{ti("l")}}, "modal title"},
		{"modal six rows", 9, wireData{CustomID: "m", Title: "t", Components: []wireComponent{ti("a"), ti("a"), ti("a"), ti("a"), ti("a"), ti("a")}}, "modal with 6 top-level components"},
		{"v2 with content", 7, wireData{Flags: flagComponentsV2, Content: str("x"), Components: []wireComponent{container(text("a"))}}, "carries content"},
		{"v2 over 40 components", 7, v2(container(many(40)...)), "41 components"},
		{"v2 text over 4000", 7, v2(container(text(strings.Repeat("x", 4001)))), "4001 characters"},
		{"v2 nested container", 7, v2(container(container(text("a")))), "nested"},
		{"v2 row of six buttons", 7, v2(container(row(btn("a"), btn("b"), btn("c"), btn("d"), btn("e"), btn("f")))), "6 buttons"},
		{"labelled text input with its own label", 9, wireData{CustomID: "m", Title: "t", Components: []wireComponent{lbl(wireComponent{Type: 4, CustomID: "f", Label: str("x"), MaxLength: 5})}}, "carries its own label"},
		{"file upload of 11", 9, wireData{CustomID: "m", Title: "t", Components: []wireComponent{lbl(wireComponent{Type: 19, CustomID: "f", MaxValues: 11})}}, "min/max values"},
		{"disabled in a modal", 9, wireData{CustomID: "m", Title: "t", Components: []wireComponent{lbl(wireComponent{Type: 3, CustomID: "s", Disabled: true, Options: opts(1)})}}, "disabled"},
		{"label too long", 9, wireData{CustomID: "m", Title: "t", Components: []wireComponent{{Type: 18, Label: str(strings.Repeat("x", 46)), Component: &wireComponent{Type: 19, CustomID: "f", MaxValues: 1}}}}, "46 characters"},
		{"text input label", 9, wireData{CustomID: "m", Title: "t", Components: []wireComponent{ti(strings.Repeat("x", 46))}}, "text input label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(violations(tt.typ, &tt.d), "; ")
			require.Contains(t, got, tt.want)
		})
	}
	require.Empty(t, violations(7, &wireData{Content: str("ok"), Components: []wireComponent{row(btn("a"), btn("b"))}}))
	ok := v2(container(text("a"), row(btn("a"), btn("b"))))
	require.Empty(t, violations(7, &ok))
	require.Empty(t, violations(9, &wireData{CustomID: "m", Title: "t", Components: []wireComponent{lbl(wireComponent{Type: 19, CustomID: "f", MaxValues: 1}), lbl(wireComponent{Type: 4, CustomID: "n", MaxLength: 5})}}))
}
