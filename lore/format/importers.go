package format

import (
	"errors"
	"fmt"

	"loregate/lore/format/internal/conv"
	"loregate/lore/format/sillytavern"
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
	default:
		err = fmt.Errorf("%s import is not implemented yet", kind)
	}
	if err != nil {
		return res, err
	}
	rep.Format, rep.Container = kind, container
	res.Book, res.Report = book, rep
	return res, nil
}

func importPNG(name string, data []byte, opts Options) (Result, error) {
	return Result{Container: ContainerPNG}, errors.New("png import is not implemented yet")
}

func importCHARX(name string, data []byte, opts Options) (Result, error) {
	return Result{Container: ContainerCHARX}, errors.New("charx import is not implemented yet")
}

var _ = conv.Snippet
