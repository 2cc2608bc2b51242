package format

import (
	"loregate/lore/format/sillytavern"
)

// ExportST writes book as one SillyTavern world info JSON file (seed 000
// "Import and export": standalone exports are world info). A book imported
// from world info exports back equal to its source, compared as JSON
// ignoring member order and fields ST fills with defaults.
func ExportST(book Book) ([]byte, error) { return sillytavern.Encode(book) }
