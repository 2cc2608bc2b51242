// Package png reads and writes the text chunks that carry character cards
// in PNG files (docs/formats.md). It walks every chunk
// up to IEND without decoding pixels (text chunks after IDAT are normal,
// cases BUG-29), verifies every length and CRC, compares keywords
// case-insensitively, prefers ccv3 over chara and falls back to chara when
// ccv3 is broken (cases BUG-31), and reads zTXt/iTXt only when no tEXt card
// chunk is usable. Compressed chunks are inflated only when tried, each
// capped at the card limit, all together at MaxInflateFactor times it, and
// at most MaxCardChunks card chunks are looked at (decompression bombs).
package png

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	stdpng "image/png"
	"io"
	"strings"

	"loregate/lore/i18n"
)

// Signature is the 8-byte PNG file signature.
const Signature = "\x89PNG\r\n\x1a\n"

// Card is the card JSON found in a PNG.
type Card struct {
	// Keyword is the chunk keyword used ("ccv3", "chara" or "naidata"), lower case.
	Keyword string
	// JSON is the decoded card (or NovelAI lorebook) JSON.
	JSON []byte
	// Notices name chunks that were skipped (broken ccv3, duplicates) and
	// damage outside the card chunks, with reason keys (lore/i18n).
	Notices []i18n.Notice
}

// ErrNoCard reports a valid PNG with no ccv3, chara or naidata text chunk.
var ErrNoCard = errors.New("png has no character card text chunk (ccv3, chara or naidata)")

type textChunk struct {
	keyword string // lower case
	value   []byte // raw text value (base64 for card chunks)
	kind    string // tEXt, zTXt, iTXt
	index   int    // chunk index
	// compressed values are inflated only when Extract tries the chunk.
	compressed bool
}

// Bounds on the text chunks Extract looks at, so that a file cannot make it
// inflate without end (decompression bombs): at most MaxCardChunks card
// chunks are considered, and all inflation together is capped at
// MaxInflateFactor times the per-card limit.
const (
	MaxCardChunks    = 16
	MaxInflateFactor = 4
)

// Extract walks the chunks of data and returns the card JSON. maxJSON caps
// the decoded (base64 and inflated) size of one card value in bytes.
// Errors name the chunk (index and type) that is malformed: bad signature,
// truncated chunk, length beyond the data, CRC mismatch, missing IEND.
func Extract(data []byte, maxJSON int64) (Card, error) {
	chunks, notices, err := textChunks(data)
	if err != nil {
		return Card{}, err
	}
	card := Card{Notices: notices}
	note := func(key i18n.Key, params map[string]any) {
		card.Notices = append(card.Notices, i18n.Notice{Reason: key, Params: params})
	}
	if len(chunks) > MaxCardChunks {
		note(i18n.ReportPNGTooManyChunks, map[string]any{"count": len(chunks), "max": MaxCardChunks})
		chunks = chunks[:MaxCardChunks]
	}
	inflateBudget := MaxInflateFactor * maxJSON
	pick := func(kinds ...string) []textChunk {
		var out []textChunk
		for _, c := range chunks {
			for _, k := range kinds {
				if c.kind == k {
					out = append(out, c)
				}
			}
		}
		return out
	}
	for _, set := range [][]textChunk{pick("tEXt"), pick("zTXt", "iTXt")} {
		for _, kw := range []string{"ccv3", "chara", "naidata"} {
			n := 0
			for _, c := range set {
				if c.keyword != kw {
					continue
				}
				n++
				if n > 1 {
					note(i18n.ReportPNGDuplicateChunk, map[string]any{"keyword": kw, "chunk": c.index})
					continue
				}
				val := c.value
				var err error
				if c.compressed {
					if inflateBudget <= 0 {
						err = errInflateBudget
					} else if val, err = inflate(c.value, min(maxJSON, inflateBudget)); err == nil {
						inflateBudget -= int64(len(val))
					}
				}
				var js []byte
				if err == nil {
					js, err = decodeValue(val, maxJSON)
				}
				if err != nil {
					note(unusable(err, kw, c.index, maxJSON))
					n--
					continue
				}
				if card.JSON == nil {
					card.Keyword, card.JSON = kw, js
				}
			}
			if card.JSON != nil {
				return card, nil
			}
		}
	}
	if len(card.Notices) > 0 {
		texts := make([]string, len(card.Notices))
		for i, n := range card.Notices {
			texts[i] = n.Text(i18n.EN)
		}
		return card, fmt.Errorf("%w: %s", ErrNoCard, strings.Join(texts, "; "))
	}
	return card, ErrNoCard
}

// errInflateBudget: a compressed card chunk was not inflated, the file's
// inflation budget (MaxInflateFactor times the card limit) spent.
var errInflateBudget = errors.New("inflation budget of the file spent")

// tooLargeError: a card value decodes or inflates to more than its bytes.
type tooLargeError int64

func (e tooLargeError) Error() string {
	return fmt.Sprintf("card text is too large: over %d bytes", int64(e))
}

// unusable is the notice of a card chunk (keyword kw, chunk index) whose
// value err refused.
func unusable(err error, kw string, index int, maxJSON int64) (i18n.Key, map[string]any) {
	params := map[string]any{"keyword": kw, "chunk": index}
	var tl tooLargeError
	switch {
	case errors.As(err, &tl):
		params["max"] = int64(tl)
		return i18n.ReportPNGChunkTooLarge, params
	case errors.Is(err, errInflateBudget):
		return i18n.ReportPNGInflateBudget, params
	}
	return i18n.ReportPNGChunkUnreadable, params
}

func decodeValue(v []byte, maxJSON int64) ([]byte, error) {
	clean := bytes.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, v)
	clean = bytes.TrimRight(clean, "=")
	if int64(base64.RawStdEncoding.DecodedLen(len(clean))) > maxJSON {
		return nil, tooLargeError(maxJSON)
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
	n, err := base64.RawStdEncoding.Decode(out, clean)
	if err != nil {
		return nil, errors.New("invalid base64")
	}
	out = out[:n]
	if !json.Valid(out) {
		return nil, errors.New("not valid json")
	}
	return out, nil
}

// textChunks walks every chunk to IEND, verifying lengths and CRCs, and
// returns the text chunks with a card keyword (tEXt, zTXt, iTXt), compressed
// values still compressed. Damage outside the card chunks (image data with a
// bad CRC, a file cut after the card chunks) is a warning, not an error: an
// intact card is still read. A card chunk with a bad CRC is skipped with a
// warning; an error is returned only when no card chunk was found.
func textChunks(data []byte) ([]textChunk, []i18n.Notice, error) {
	if !bytes.HasPrefix(data, []byte(Signature)) {
		return nil, nil, errors.New("png: bad signature")
	}
	var out []textChunk
	var notices []i18n.Notice
	note := func(key i18n.Key, params map[string]any) {
		notices = append(notices, i18n.Notice{Reason: key, Params: params})
	}
	broken := func(err error, key i18n.Key, params map[string]any) ([]textChunk, []i18n.Notice, error) {
		if len(out) == 0 {
			return nil, notices, err
		}
		note(key, params)
		return out, notices, nil
	}
	p := len(Signature)
	for i := 0; ; i++ {
		if len(data)-p < 12 {
			return broken(fmt.Errorf("png: chunk %d is truncated (no IEND)", i), i18n.ReportPNGTruncated, map[string]any{"chunk": i})
		}
		length := binary.BigEndian.Uint32(data[p:])
		typ := string(data[p+4 : p+8])
		if uint64(length) > uint64(len(data)-p-12) {
			return broken(fmt.Errorf("png: chunk %d (%s) length %d runs past the end of the file", i, printable(typ), length),
				i18n.ReportPNGPastEnd, map[string]any{"chunk": i, "type": printable(typ), "length": length})
		}
		body := data[p+8 : p+8+int(length)]
		crc := binary.BigEndian.Uint32(data[p+8+int(length):])
		p += 12 + int(length)
		if crc32.ChecksumIEEE(data[p-12-int(length)+4:p-4]) != crc {
			params := map[string]any{"chunk": i, "type": printable(typ)}
			if typ == "tEXt" || typ == "zTXt" || typ == "iTXt" {
				if kw, _, _ := bytes.Cut(body, []byte{0}); isCardKeyword(kw) {
					note(i18n.ReportPNGCardBadCRC, params)
					continue
				}
			}
			note(i18n.ReportPNGImageBadCRC, params)
			continue
		}
		switch typ {
		case "IEND":
			return out, notices, nil
		case "tEXt":
			if kw, val, ok := bytes.Cut(body, []byte{0}); ok && isCardKeyword(kw) {
				out = append(out, textChunk{strings.ToLower(string(kw)), val, typ, i, false})
			}
		case "zTXt":
			kw, rest, ok := bytes.Cut(body, []byte{0})
			if !ok || len(rest) < 1 || !isCardKeyword(kw) {
				continue
			}
			out = append(out, textChunk{strings.ToLower(string(kw)), rest[1:], typ, i, true})
		case "iTXt":
			kw, rest, ok := bytes.Cut(body, []byte{0})
			if !ok || len(rest) < 2 || !isCardKeyword(kw) {
				continue
			}
			compressed := rest[0] == 1
			rest = rest[2:]
			_, rest, ok1 := bytes.Cut(rest, []byte{0}) // language
			_, rest, ok2 := bytes.Cut(rest, []byte{0}) // translated keyword
			if !ok1 || !ok2 {
				continue
			}
			out = append(out, textChunk{strings.ToLower(string(kw)), rest, typ, i, compressed})
		}
	}
}

func isCardKeyword(kw []byte) bool {
	k := strings.ToLower(string(kw))
	return k == "ccv3" || k == "chara" || k == "naidata"
}

func inflate(b []byte, max int64) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > max {
		return nil, tooLargeError(max)
	}
	return out, nil
}

func printable(t string) string {
	for _, c := range []byte(t) {
		if c < 'A' || c > 'z' {
			return fmt.Sprintf("%q", t)
		}
	}
	return t
}

// Chunk is a raw chunk for Build.
type Chunk struct {
	Type string
	Data []byte
}

// TextChunk returns a tEXt chunk with keyword and the base64 of value, the
// way ST and RisuAI write cards (docs/formats.md: always write tEXt,
// lowercase keyword).
func TextChunk(keyword string, value []byte) Chunk {
	d := append([]byte(keyword), 0)
	d = append(d, base64.StdEncoding.EncodeToString(value)...)
	return Chunk{"tEXt", d}
}

// Build writes a PNG from chunks (signature, each chunk with its length
// and CRC). It is used by Embed and by tests to build fixtures.
func Build(chunks ...Chunk) []byte {
	var buf bytes.Buffer
	buf.WriteString(Signature)
	for _, c := range chunks {
		var hdr [8]byte
		binary.BigEndian.PutUint32(hdr[:], uint32(len(c.Data)))
		copy(hdr[4:], c.Type)
		buf.Write(hdr[:])
		buf.Write(c.Data)
		crc := crc32.NewIEEE()
		crc.Write(hdr[4:])
		crc.Write(c.Data)
		var sum [4]byte
		binary.BigEndian.PutUint32(sum[:], crc.Sum32())
		buf.Write(sum[:])
	}
	return buf.Bytes()
}

// Embed returns data with every existing ccv3/chara chunk removed and tEXt
// chunks for the given card JSON inserted before IEND (docs/formats.md
// "Writing"). chara is written only when chara != nil. A damaged file (a
// chunk cut short, a bad CRC: a card Extract still reads) is rebuilt from
// the chunks that decoded; when its image still does not decode, the card
// goes into a 1x1 image instead, so the result is always a valid PNG.
func Embed(data []byte, ccv3, chara []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte(Signature)) {
		return nil, errors.New("png: bad signature")
	}
	chunks, damaged := keptChunks(data)
	if damaged && !decodes(Build(append(chunks, Chunk{"IEND", nil})...)) {
		chunks = blankImage()
	}
	if chara != nil {
		chunks = append(chunks, TextChunk("chara", chara))
	}
	if ccv3 != nil {
		chunks = append(chunks, TextChunk("ccv3", ccv3))
	}
	chunks = append(chunks, Chunk{"IEND", nil})
	return Build(chunks...), nil
}

// maxCheckPixels bounds the image a damaged file's rebuild decodes to check
// it (64 MiB of RGBA); a larger one is replaced by the blank image.
const maxCheckPixels = 16 << 20

// decodes reports whether b is a PNG whose image decodes, within
// maxCheckPixels.
func decodes(b []byte) bool {
	cfg, err := stdpng.DecodeConfig(bytes.NewReader(b))
	if err != nil || int64(cfg.Width)*int64(cfg.Height) > maxCheckPixels {
		return false
	}
	_, err = stdpng.Decode(bytes.NewReader(b))
	return err == nil
}

// blankImage is the IHDR and IDAT of a 1x1 transparent image.
func blankImage() []Chunk {
	var buf bytes.Buffer
	_ = stdpng.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 1, 1)))
	chunks, _ := keptChunks(buf.Bytes())
	return chunks
}

// keptChunks returns the chunks of data before IEND that decoded (whole,
// with a good CRC), without the ccv3/chara card chunks, and whether any
// chunk was damaged (cut short, bad CRC) or IEND was missing.
func keptChunks(data []byte) ([]Chunk, bool) {
	var chunks []Chunk
	damaged, bad := true, false // damaged until IEND is seen
	p := len(Signature)
	for p+12 <= len(data) {
		length := int(binary.BigEndian.Uint32(data[p:]))
		if length > len(data)-p-12 {
			break // cut short: the rest is lost
		}
		typ := string(data[p+4 : p+8])
		body := data[p+8 : p+8+length]
		crc := binary.BigEndian.Uint32(data[p+8+length:])
		p += 12 + length
		if crc32.ChecksumIEEE(data[p-8-length:p-4]) != crc {
			bad = true // a damaged chunk is left out
			continue
		}
		if typ == "IEND" {
			damaged = false
			break
		}
		if typ == "tEXt" || typ == "zTXt" || typ == "iTXt" {
			kw, _, _ := bytes.Cut(body, []byte{0})
			if k := strings.ToLower(string(kw)); k == "ccv3" || k == "chara" {
				continue
			}
		}
		chunks = append(chunks, Chunk{typ, body})
	}
	return chunks, damaged || bad
}
