// Package charx reads card.json out of a CHARX archive (a zip; also with a
// JPEG in front, RisuAI's "charxJpeg") and writes a minimal CHARX (docs/formats.md).
// It uses the central directory (archive/zip),
// refuses unsafe member names (absolute, "..", backslashes, drive letters,
// NUL), symlinks, encrypted members and duplicate names, caps the member
// count, the declared total uncompressed size, the compression ratio and
// card.json's size (read through a limit, never trusting headers), and never
// extracts to disk. module.risum (RisuAI scripts) is ignored.
package charx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"loregate/lore"
	"loregate/lore/i18n"
	"path"
	"strings"
)

// Limits bound what Extract accepts. All fields must be positive.
type Limits struct {
	// MaxEntries caps the member count.
	MaxEntries int
	// MaxTotal caps the sum of declared uncompressed sizes, bytes.
	MaxTotal int64
	// MaxRatio caps uncompressed/compressed size of any member.
	MaxRatio int64
	// MaxCard caps card.json, bytes (after inflation).
	MaxCard int64
}

// ErrNoCard reports an archive without card.json at its root.
var ErrNoCard = errors.New("charx has no card.json at the archive root")

// ErrTooLarge is wrapped by limit errors.
var ErrTooLarge = errors.New("too large")

// Extract returns the bytes of card.json from the archive in data and any
// notices (reason keys of lore/i18n). Errors name the offending member
// (shortened).
func Extract(data []byte, lim Limits) ([]byte, []i18n.Notice, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("charx: not a readable zip archive: %w", err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, nil, fmt.Errorf("charx: archive is %w: %d members, over the limit of %d", ErrTooLarge, len(zr.File), lim.MaxEntries)
	}
	var notices []i18n.Notice
	seen := map[string]bool{}
	var total uint64
	var card *zip.File
	for _, f := range zr.File {
		name := f.Name
		if err := checkName(name); err != nil {
			return nil, nil, fmt.Errorf("charx: member %s: %w", quote(name), err)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("charx: member %s appears twice", quote(name))
		}
		seen[name] = true
		if f.Mode()&fs.ModeSymlink != 0 {
			return nil, nil, fmt.Errorf("charx: member %s is a symlink", quote(name))
		}
		if f.Flags&0x1 != 0 {
			return nil, nil, fmt.Errorf("charx: member %s is encrypted", quote(name))
		}
		total += f.UncompressedSize64
		if total > uint64(lim.MaxTotal) {
			return nil, nil, fmt.Errorf("charx: archive is %w: uncompressed size over the limit of %d bytes", ErrTooLarge, lim.MaxTotal)
		}
		if f.CompressedSize64 > 0 && f.UncompressedSize64/f.CompressedSize64 > uint64(lim.MaxRatio) {
			return nil, nil, fmt.Errorf("charx: member %s is %w: compression ratio over the limit of %d", quote(name), ErrTooLarge, lim.MaxRatio)
		}
		switch {
		case name == "card.json":
			card = f
		case name == "module.risum":
			notices = append(notices, i18n.Notice{Reason: i18n.ReportCharxModuleIgnored})
		}
	}
	if card == nil {
		return nil, notices, ErrNoCard
	}
	rc, err := card.Open()
	if err != nil {
		return nil, notices, fmt.Errorf("charx: member card.json: %w", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, lim.MaxCard+1))
	if err != nil {
		return nil, notices, fmt.Errorf("charx: member card.json: %w", err)
	}
	if int64(len(b)) > lim.MaxCard {
		return nil, notices, fmt.Errorf("charx: member card.json is %w: over the limit of %d bytes", ErrTooLarge, lim.MaxCard)
	}
	return b, notices, nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case strings.ContainsRune(name, '\\'):
		return errors.New("name contains a backslash")
	case strings.ContainsRune(name, 0):
		return errors.New("name contains NUL")
	case strings.HasPrefix(name, "/"):
		return errors.New("absolute path")
	case len(name) >= 2 && name[1] == ':':
		return errors.New("drive letter path")
	}
	for _, part := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if part == ".." {
			return errors.New("path leaves the archive root")
		}
	}
	if path.Clean(strings.TrimSuffix(name, "/")) != strings.TrimSuffix(name, "/") {
		return errors.New("path is not clean")
	}
	return nil
}

// quote quotes an archive path for an error message, clipped to 40 bytes.
func quote(s string) string {
	return fmt.Sprintf("%q", lore.ClipBytes(s, 40))
}

// Build writes a CHARX archive holding card.json (deflated) and the given
// extra members (stored), in that order. Tests use it for fixtures.
func Build(cardJSON []byte, extra map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("card.json")
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(cardJSON); err != nil {
		return nil, err
	}
	for name, data := range extra {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
