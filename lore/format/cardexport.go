package format

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	stdpng "image/png"
	"io"

	"loregate/lore/format/card"
	"loregate/lore/format/charx"
	"loregate/lore/format/internal/conv"
	"loregate/lore/format/png"
)

// cardJSON returns the card of book with its character_book replaced by
// book: the card kept from the import (book.Card), or a minimal V3 card
// named after the book's character (else the book) for books that came
// without one. v3 reports whether the card is a V3 card.
func cardJSON(book Book) (out []byte, v3 bool, err error) {
	src := sourceView(book)
	var o *conv.Object
	if book.Card != nil {
		if o, err = conv.ParseObject(conv.StripBOM(book.Card.JSON)); err != nil {
			return nil, false, fmt.Errorf("kept card: %w", err)
		}
	} else {
		o = minimalCard(book)
	}
	spec, _ := o.Get("spec")
	s, _ := conv.String(spec)
	v3 = s == "chara_card_v3"
	var bookJSON []byte
	if v3 {
		bookJSON, err = card.EncodeCharacterBookV3(src)
	} else {
		bookJSON, err = card.EncodeCharacterBook(src)
	}
	if err != nil {
		return nil, false, err
	}
	d := o
	if raw, ok := o.Get("data"); ok {
		if d, err = conv.ParseObject(raw); err != nil {
			return nil, false, fmt.Errorf("kept card: field data: %w", err)
		}
	}
	d.Set("character_book", bookJSON)
	if d != o {
		raw, _ := d.MarshalJSON()
		o.Set("data", raw)
	}
	raw, _ := o.MarshalJSON()
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), v3, nil
}

// minimalCard is the Character Card V3 of a book that came without a card:
// every V3 data field empty but the name.
func minimalCard(book Book) *conv.Object {
	name := book.Character
	if name == "" {
		name = book.Name
	}
	d := conv.NewObject()
	d.SetValue("name", name)
	for _, f := range []string{"description", "personality", "scenario", "first_mes", "mes_example",
		"creator_notes", "system_prompt", "post_history_instructions", "creator", "character_version"} {
		d.SetValue(f, "")
	}
	for _, f := range []string{"alternate_greetings", "tags", "group_only_greetings"} {
		d.Set(f, json.RawMessage(`[]`))
	}
	d.Set("extensions", json.RawMessage(`{}`))
	raw, _ := d.MarshalJSON()
	o := conv.NewObject()
	o.SetValue("spec", "chara_card_v3")
	o.SetValue("spec_version", "3.0")
	o.Set("data", raw)
	return o
}

// ExportCardJSON writes book as a character card JSON: the card it was
// imported from with the edited book inside (everything else of the card
// kept verbatim), or a minimal V3 card for a book that came without one.
func ExportCardJSON(book Book) ([]byte, error) {
	out, _, err := cardJSON(book)
	return out, err
}

// ExportCardPNG writes book as a PNG character card: the PNG it was
// imported from (image and every other chunk kept) or a 1x1 image, with
// the card chunks rewritten (chara always; ccv3 too for a V3 card; docs/formats.md
// "Cards export as cards").
func ExportCardPNG(book Book) ([]byte, error) {
	js, v3, err := cardJSON(book)
	if err != nil {
		return nil, err
	}
	base := blankPNG()
	if book.Card != nil && book.Card.Container == ContainerPNG && bytes.HasPrefix(book.Card.File, []byte(sigPNG)) {
		base = book.Card.File
	}
	chara := js
	var ccv3 []byte
	if v3 {
		ccv3 = js
		o, err := conv.ParseObject(js)
		if err != nil {
			return nil, err
		}
		o.SetValue("spec", "chara_card_v2")
		o.SetValue("spec_version", "2.0")
		chara, _ = o.MarshalJSON()
	}
	return png.Embed(base, ccv3, chara)
}

// ExportCardCHARX writes book as a CHARX archive: the archive it was
// imported from with card.json replaced and every other member (assets)
// copied as stored, or an archive holding only card.json.
func ExportCardCHARX(book Book) ([]byte, error) {
	js, _, err := cardJSON(book)
	if err != nil {
		return nil, err
	}
	if book.Card == nil || book.Card.Container != ContainerCHARX {
		return charx.Build(js, nil)
	}
	zr, err := zip.NewReader(bytes.NewReader(book.Card.File), int64(len(book.Card.File)))
	if err != nil {
		return nil, fmt.Errorf("kept charx: %w", err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if f.Name == "card.json" {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: "card.json", Method: zip.Deflate, Modified: f.Modified})
			if err != nil {
				return nil, err
			}
			if _, err := w.Write(js); err != nil {
				return nil, err
			}
			continue
		}
		r, err := f.OpenRaw()
		if err != nil {
			return nil, fmt.Errorf("kept charx: member %q: %w", f.Name, err)
		}
		h := f.FileHeader
		w, err := zw.CreateRaw(&h)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(w, r); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// blankPNG is a valid 1x1 transparent PNG.
func blankPNG() []byte {
	var buf bytes.Buffer
	_ = stdpng.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 1, 1)))
	return buf.Bytes()
}
