// Package qrsvg draws QR codes as small inline SVG, on the server, so a
// projected join link can be scanned without any script on the page.
//
// github.com/yeqown/go-qrcode/v2 computes the symbol; this package only
// reads its module matrix and writes one <path> of dark runs, which keeps the
// markup a few kilobytes where one <rect> per module would be tens.
package qrsvg

import (
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"

	qrcode "github.com/yeqown/go-qrcode/v2"
)

// QuietZone is the light border around the symbol, in modules: the width
// the QR standard asks for, without which phone cameras often fail to find
// the code against a busy slide.
const QuietZone = 4

// MaxTextBytes bounds what one code may carry. A join URL is well under it;
// longer text would make a symbol too dense to scan from the back of a room.
const MaxTextBytes = 512

// Matrix is a QR symbol's modules, row by row, true for dark, without the
// quiet zone. It is square.
type Matrix [][]bool

// Encode computes the symbol for text at error-correction level M (15%),
// which keeps the symbol coarse enough to scan from a projector while
// surviving a glare spot.
func Encode(text string) (Matrix, error) {
	switch {
	case text == "":
		return nil, errors.New("qrsvg: nothing to encode: the text is empty")
	case len(text) > MaxTextBytes:
		return nil, fmt.Errorf("qrsvg: text is %d bytes, more than the %d a scannable code should carry", len(text), MaxTextBytes)
	}
	code, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, fmt.Errorf("qrsvg: encoding %q: %w", text, err)
	}
	var grab matrixWriter
	if err := code.Save(&grab); err != nil {
		return nil, fmt.Errorf("qrsvg: encoding %q: %w", text, err)
	}
	return grab.m, nil
}

// matrixWriter is a qrcode.Writer that keeps the matrix instead of drawing.
type matrixWriter struct{ m Matrix }

func (w *matrixWriter) Write(mat qrcode.Matrix) error {
	w.m = mat.Bitmap()
	return nil
}

func (w *matrixWriter) Close() error { return nil }

// Size is the side of the symbol in modules, quiet zone included.
func (m Matrix) Size() int { return len(m) + 2*QuietZone }

// SVG writes the symbol as an <svg> element scaled to its container: a light
// square with the quiet zone, and one path of dark runs. alt is its text
// alternative (role="img", aria-label and <title>), e.g. the URL it holds,
// for anyone who cannot scan it. The colours are fixed black on white, not
// the page's colours: scanners need dark modules on a light ground, also
// when the page is in dark mode.
func (m Matrix) SVG(alt string) string {
	size := strconv.Itoa(m.Size())
	var label strings.Builder
	_ = xml.EscapeText(&label, []byte(alt)) // writing to a strings.Builder cannot fail
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + size + ` ` + size + `" role="img" aria-label="` + label.String() + `" shape-rendering="crispEdges">`)
	b.WriteString(`<title>` + label.String() + `</title>`)
	b.WriteString(`<rect width="` + size + `" height="` + size + `" fill="#fff"/>`)
	b.WriteString(`<path fill="#000" d="`)
	for y, row := range m {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			// One horizontal run: a rectangle run modules wide, one high.
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x+QuietZone, y+QuietZone, run, run)
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String()
}

// SVG encodes text and draws it, with alt as its text alternative.
func SVG(text, alt string) (string, error) {
	m, err := Encode(text)
	if err != nil {
		return "", err
	}
	return m.SVG(alt), nil
}
