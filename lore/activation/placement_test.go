package activation

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// positioned returns a constant entry of kind k with depth, role and
// outlet set (each kept on the entry whatever the kind, as imports do).
func positioned(id int64, k lore.PositionKind, order, depth int, role lore.Role, outlet, content string) lore.Entry {
	e := constant(id, content)
	e.Position, e.Placement = k, k.Placement()
	e.Order, e.Depth, e.Role, e.Outlet = order, depth, role, outlet
	return e
}

// TestAdmittedPosition: Admitted.Position reports the kind with depth and
// role only for AT_DEPTH and the outlet only for OUTLET, decorators
// applied (@@position, @@depth, @@reverse_depth resolved per turn, @@role).
func TestAdmittedPosition(t *testing.T) {
	depth := func(d int, r lore.Role) lore.Position {
		return lore.Position{Kind: lore.PositionAtDepth, Depth: &d, Role: &r}
	}
	outlet := func(name string) lore.Position { return lore.Position{Kind: lore.PositionOutlet, Outlet: &name} }
	tests := []struct {
		name  string
		entry lore.Entry
		edit  func(*Input)
		want  lore.Position
	}{
		{"new entry is after the character", constant(1, "x"), nil, lore.Position{Kind: lore.PositionAfterChar}},
		{"before keeps no depth, role or outlet", positioned(1, lore.PositionBeforeChar, 100, 7, lore.RoleUser, "o", "x"), nil,
			lore.Position{Kind: lore.PositionBeforeChar}},
		{"at depth with its role", positioned(1, lore.PositionAtDepth, 100, 2, lore.RoleUser, "o", "x"), nil, depth(2, lore.RoleUser)},
		{"at depth without a role is system", positioned(1, lore.PositionAtDepth, 100, 0, "", "", "x"), nil, depth(0, lore.RoleSystem)},
		{"outlet keeps no depth or role", positioned(1, lore.PositionOutlet, 100, 3, lore.RoleAssistant, "mood", "x"), nil, outlet("mood")},
		{"an top", positioned(1, lore.PositionANTop, 100, 4, lore.RoleUser, "", "x"), nil, lore.Position{Kind: lore.PositionANTop}},
		{"@@depth makes an after entry at depth", constant(1, "@@depth 0\nx"), nil, depth(0, lore.RoleSystem)},
		{"@@depth and @@role", constant(1, "@@depth 1\n@@role assistant\nx"), nil, depth(1, lore.RoleAssistant)},
		{"@@position with @@depth", constant(1, "@@position at_depth\n@@depth 6\nx"), nil, depth(6, lore.RoleSystem)},
		{"@@position em_bottom", positioned(1, lore.PositionAtDepth, 100, 2, lore.RoleUser, "", "@@position em_bottom\nx"), nil,
			lore.Position{Kind: lore.PositionEMBottom}},
		{"@@reverse_depth counts from the oldest message", constant(1, "@@reverse_depth 1\nx"), nil, depth(2, lore.RoleSystem)},
		{"@@reverse_depth counts the conversation's messages", constant(1, "@@reverse_depth 1\nx"),
			func(in *Input) { in.MessageCount = 10 }, depth(9, lore.RoleSystem)},
		{"@@reverse_depth past the start is depth 0", constant(1, "@@reverse_depth 9\nx"), nil, depth(0, lore.RoleSystem)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput([]lore.Entry{tt.entry}, "one", "two", "three")
			if tt.edit != nil {
				tt.edit(&in)
			}
			res := run(t, in, Options{})
			require.Len(t, res.Admitted(), 1)
			require.Equal(t, tt.want, res.Admitted()[0].Position)
		})
	}
}

// TestPositionJSON: the position always has its four keys; depth and role
// are null unless AT_DEPTH, outlet null unless OUTLET (the CLI's shape).
func TestPositionJSON(t *testing.T) {
	for _, tt := range []struct {
		pos  lore.Position
		want string
	}{
		{lore.NewPosition(lore.PositionBeforeChar, 4, lore.RoleUser, "x"), `{"kind":"BEFORE_CHAR","depth":null,"role":null,"outlet":null}`},
		{lore.NewPosition(lore.PositionAtDepth, 0, lore.RoleAssistant, "x"), `{"kind":"AT_DEPTH","depth":0,"role":"assistant","outlet":null}`},
		{lore.NewPosition(lore.PositionOutlet, 4, lore.RoleUser, "x"), `{"kind":"OUTLET","depth":null,"role":null,"outlet":"x"}`},
	} {
		b, err := json.Marshal(tt.pos)
		require.NoError(t, err)
		require.JSONEq(t, tt.want, string(b))
	}
}

// TestInjections: the admitted entries of the injected kinds are grouped
// per (kind, depth, role, outlet), groups in kind order (AT_DEPTH by depth
// then role, OUTLET by name), entries joined in SillyTavern's order for
// the kind: ascending order for AN_TOP, AN_BOTTOM, AT_DEPTH and EM_BOTTOM,
// highest order first for EM_TOP and OUTLET. BEFORE_CHAR and AFTER_CHAR
// entries are not injections.
func TestInjections(t *testing.T) {
	entries := []lore.Entry{
		positioned(1, lore.PositionAtDepth, 50, 4, lore.RoleSystem, "", "d4 o50"),
		positioned(2, lore.PositionAtDepth, 10, 4, lore.RoleSystem, "", "d4 o10"),
		positioned(3, lore.PositionAtDepth, 20, 4, lore.RoleUser, "", "d4 user"),
		positioned(4, lore.PositionAtDepth, 90, 0, lore.RoleAssistant, "", "d0 assistant"),
		positioned(5, lore.PositionANTop, 30, 4, lore.RoleUser, "", "an top o30"),
		positioned(6, lore.PositionANTop, 20, 4, lore.RoleUser, "", "an top o20"),
		positioned(7, lore.PositionANBottom, 1, 4, lore.RoleUser, "", "an bottom"),
		positioned(8, lore.PositionEMTop, 10, 4, lore.RoleUser, "", "em top o10"),
		positioned(9, lore.PositionEMTop, 60, 4, lore.RoleUser, "", "em top o60"),
		positioned(10, lore.PositionEMBottom, 60, 4, lore.RoleUser, "", "em bottom o60"),
		positioned(11, lore.PositionEMBottom, 10, 4, lore.RoleUser, "", "em bottom o10"),
		positioned(12, lore.PositionOutlet, 10, 4, lore.RoleUser, "mood", "mood o10"),
		positioned(13, lore.PositionOutlet, 70, 4, lore.RoleUser, "mood", "mood o70"),
		positioned(14, lore.PositionOutlet, 5, 4, lore.RoleUser, "alpha", "alpha"),
		positioned(15, lore.PositionOutlet, 5, 4, lore.RoleUser, "", "nameless"),
		positioned(16, lore.PositionBeforeChar, 5, 1, lore.RoleUser, "mood", "before"),
		positioned(17, lore.PositionAfterChar, 5, 1, lore.RoleUser, "mood", "after"),
		positioned(18, lore.PositionAtDepth, 5, 1, lore.RoleUser, "", "@@dont_activate\nblocked"),
	}
	res := run(t, baseInput(entries, "hello"), Options{})
	d := func(n int) *int { return &n }
	r := func(x lore.Role) *lore.Role { return &x }
	o := func(s string) *string { return &s }
	want := []Injection{
		{Kind: lore.PositionANTop, Text: "an top o20\nan top o30", EntryIDs: []int64{6, 5}},
		{Kind: lore.PositionANBottom, Text: "an bottom", EntryIDs: []int64{7}},
		{Kind: lore.PositionAtDepth, Depth: d(0), Role: r(lore.RoleAssistant), Text: "d0 assistant", EntryIDs: []int64{4}},
		{Kind: lore.PositionAtDepth, Depth: d(4), Role: r(lore.RoleSystem), Text: "d4 o10\nd4 o50", EntryIDs: []int64{2, 1}},
		{Kind: lore.PositionAtDepth, Depth: d(4), Role: r(lore.RoleUser), Text: "d4 user", EntryIDs: []int64{3}},
		{Kind: lore.PositionEMTop, Text: "em top o60\nem top o10", EntryIDs: []int64{9, 8}},
		{Kind: lore.PositionEMBottom, Text: "em bottom o10\nem bottom o60", EntryIDs: []int64{11, 10}},
		{Kind: lore.PositionOutlet, Outlet: o(""), Text: "nameless", EntryIDs: []int64{15}},
		{Kind: lore.PositionOutlet, Outlet: o("alpha"), Text: "alpha", EntryIDs: []int64{14}},
		{Kind: lore.PositionOutlet, Outlet: o("mood"), Text: "mood o70\nmood o10", EntryIDs: []int64{13, 12}},
	}
	require.Equal(t, want, res.Injections)
	require.Equal(t, []Outlet{{Name: "alpha", Text: "alpha"}, {Name: "mood", Text: "mood o70\nmood o10"}}, res.Outlets)
	// Every admitted entry stays in Admitted (the two placements' callers
	// and the trace read it), the injected ones with their position.
	require.Len(t, res.Admitted(), 17)
}

// TestInjectionsNeutral: a book of BEFORE_CHAR and AFTER_CHAR entries has
// no injections and no outlets (the neutral output of docs/contract.md#prompt).
func TestInjectionsNeutral(t *testing.T) {
	entries := []lore.Entry{constant(1, "a"), ent(2, []string{"gate"}, "b"),
		positioned(3, lore.PositionBeforeChar, 1, 4, lore.RoleSystem, "", "c")}
	res := run(t, baseInput(entries, "the gate"), Options{})
	require.Len(t, res.Admitted(), 3)
	require.Nil(t, res.Injections)
	require.Nil(t, res.Outlets)
}

// TestInjectionsResolveContent: an injection carries the admitted,
// identity-resolved content without decorator lines.
func TestInjectionsResolveContent(t *testing.T) {
	e := ent(1, []string{"gate"}, "@@depth 2\n@@role user\n{{user}} sees the gate")
	res := run(t, baseInput([]lore.Entry{e}, "the gate"), Options{UserName: "Ana"})
	d, r := 2, lore.RoleUser
	require.Equal(t, []Injection{{Kind: lore.PositionAtDepth, Depth: &d, Role: &r, Text: "Ana sees the gate", EntryIDs: []int64{1}}},
		res.Injections)
}
