// Package doccheck holds a test that keeps the repository self-contained in
// its citations: every citation of a docs page with an anchor (such as
// docs/contract.md#budget) in a Go comment or a doc must resolve to a file
// and an anchor of this repository, and no comment or doc may cite a
// document outside it. In test files only comments are read (tests name
// the shared material they read in code); there a bug-case id (BUG-nn)
// needs a one-line description of the fault beside it. Two more tests keep
// every function in lore/ at most 120 lines and the codecs (lore/format)
// depending on lore only. `make lint` runs the three.
package doccheck
