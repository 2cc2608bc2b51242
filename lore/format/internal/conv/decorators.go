package conv

import (
	"strings"

	"loregate/lore/decorator"
)

// ReportDecorators counts the decorator lines at the start of content that
// loregate does not act on (unknown names, invalid values) as ignored
// settings named "decorator @@name". The lines stay in the content: the
// engine acts on the others at run time and never sends any of them to the
// model (docs/authoring.md "Decorators"), and exports write them back. A
// @@position value with no kind of its own counts as a collapsed placement.
func ReportDecorators(rep *Report, content string) {
	decs, _ := decorator.Parse(content)
	if decs == nil {
		return
	}
	set := decorator.Resolve(decs)
	if set.PositionCollapsed {
		// @@position with no kind of its own (RisuAI pt_*): kept in the
		// content, placed at the nearest kind.
		rep.CollapsedPlacements++
	}
	for _, ig := range set.Ignored {
		if ig.Reason == decorator.ReasonRepeated {
			continue
		}
		rep.Ignore("decorator @@" + DecoratorName(ig.Line))
	}
}

// DecoratorName returns the name of a decorator line ("@@name value" or
// the fallback "@@@name value" gives "name" and "@name").
func DecoratorName(line string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(line, "@@"), " ")
	return name
}
