package format

import (
	"errors"
	"fmt"
	"loregate/lore/format/agnai"
	"loregate/lore/format/novelai"
	"loregate/lore/format/risu"

	"loregate/lore/format/card"
	"loregate/lore/format/charx"
	"loregate/lore/format/internal/conv"
	"loregate/lore/format/png"
	"loregate/lore/format/sillytavern"
	"loregate/lore/format/worldbook"
)

func importJSON(name string, data []byte, container Container, opts Options) (Result, error) {
	kind, err := DetectJSON(data)
	if err != nil {
		return Result{Container: container}, err
	}
	res := Result{Format: kind, Container: container}
	var book Book
	var rep Report
	switch kind {
	case KindSTWorldInfo, KindChubHybrid:
		book, rep, err = sillytavern.Decode(name, data, kind == KindChubHybrid, opts)
	case KindV1Card, KindV2Card, KindV3Card:
		book, rep, err = card.DecodeCard(name, data, kind, opts)
	case KindLorebookV3:
		book, rep, err = card.DecodeLorebookV3(name, data, opts)
	case KindCharacterBook:
		book, rep, err = card.DecodeBook(name, conv.StripBOM(data), kind, opts)
	case KindNovelAI:
		book, rep, err = novelai.Decode(name, data, opts)
	case KindRisu:
		book, rep, err = risu.Decode(name, data, opts)
	case KindAgnai:
		book, rep, err = agnai.Decode(name, data, opts)
	case KindWorldbook:
		book, rep, err = worldbook.Decode(name, data, opts)
	default:
		err = fmt.Errorf("%w: %s", ErrUnknownFormat, kind)
	}
	rep.Format, rep.Container = kind, container
	if err != nil {
		res.Report = rep
		if errors.Is(err, ErrNoLorebook) {
			// The card's character is still known.
			res.Book.Character, res.Book.CharacterContext = book.Character, book.CharacterContext
		}
		return res, err
	}
	if kind == KindV2Card || kind == KindV3Card {
		book.Card = &conv.SourceCard{Container: container, JSON: data}
	}
	res.Book, res.Report = book, rep
	return res, nil
}

func importPNG(name string, data []byte, opts Options) (Result, error) {
	res := Result{Container: ContainerPNG}
	c, err := png.Extract(data, opts.MaxCardBytes)
	if err != nil {
		if errors.Is(err, png.ErrNoCard) {
			return res, fmt.Errorf("%w: %v", ErrUnknownFormat, err)
		}
		return res, err
	}
	res, err = importJSON(name, c.JSON, ContainerPNG, opts)
	res.Report.PrependNotices(c.Notices)
	if res.Book.Card != nil {
		res.Book.Card.File = data
	}
	return res, err
}

func importCHARX(name string, data []byte, opts Options) (Result, error) {
	res := Result{Container: ContainerCHARX}
	js, notices, err := charx.Extract(data, charx.Limits{
		MaxEntries: opts.MaxCHARXEntries, MaxTotal: opts.MaxCHARXTotalBytes,
		MaxRatio: opts.MaxCHARXRatio, MaxCard: opts.MaxCardBytes,
	})
	if err != nil {
		if errors.Is(err, charx.ErrTooLarge) {
			return res, fmt.Errorf("%w (%v)", ErrTooLarge, err)
		}
		if errors.Is(err, charx.ErrNoCard) {
			return res, fmt.Errorf("%w: %v", ErrUnknownFormat, err)
		}
		return res, err
	}
	res, err = importJSON(name, js, ContainerCHARX, opts)
	res.Report.PrependNotices(notices)
	if res.Book.Card != nil {
		res.Book.Card.File = data
	}
	return res, err
}
