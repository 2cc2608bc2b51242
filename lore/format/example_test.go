package format_test

import (
	"fmt"

	"loregate/lore/format"
)

func ExampleImport() {
	data := []byte(`{"entries":{
	  "0":{"uid":0,"key":["moon","lunar"],"content":"The moon is red.","comment":"Moon","position":4,"depth":2},
	  "1":{"uid":1,"key":[],"content":"","comment":"Empty"}}}`)
	res, err := format.Import("Sky.json", data, format.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := res.Book.Entries[0]
	fmt.Println(res.Format, res.Container, res.Book.Name)
	fmt.Println(e.Title, e.Keys, e.Placement, e.Probability, e.Enabled)
	fmt.Println("position:", e.Position, "depth:", e.Depth, "role:", e.Role)
	fmt.Println("collapsed:", res.Report.CollapsedPlacements, "skipped:", res.Report.Skipped[0].Reason)
	// Output:
	// st-worldinfo json Sky
	// Moon [moon lunar] before 100 true
	// position: AT_DEPTH depth: 2 role: system
	// collapsed: 0 skipped: no content
}
