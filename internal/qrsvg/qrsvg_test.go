package qrsvg

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// finder is the 7×7 position pattern every QR symbol has in three corners:
// a dark ring, a light ring, a dark 3×3 centre.
func finderAt(m Matrix, top, left int) error {
	for dy := range 7 {
		for dx := range 7 {
			ring := max(abs(dy-3), abs(dx-3))
			want := ring != 2
			if got := m[top+dy][left+dx]; got != want {
				return fmt.Errorf("module (%d,%d) dark = %v, want %v", left+dx, top+dy, got, want)
			}
		}
	}
	return nil
}

func abs(n int) int { return max(n, -n) }

func TestEncodeGivesAWellFormedSymbol(t *testing.T) {
	for _, text := range []string{
		"http://192.168.1.20:8080/join/K7QXM",
		"https://windowlab.example/join/ABCDEF",
		strings.Repeat("x", MaxTextBytes),
	} {
		m, err := Encode(text)
		if err != nil {
			t.Fatalf("Encode(%d bytes): %v", len(text), err)
		}
		n := len(m)
		// Version v has 17 + 4v modules a side, v from 1 to 40.
		if (n-17)%4 != 0 || n < 21 || n > 177 {
			t.Errorf("Encode(%d bytes): side %d is no QR version's", len(text), n)
		}
		for y, row := range m {
			if len(row) != n {
				t.Fatalf("Encode(%d bytes): row %d has %d modules, want %d", len(text), y, len(row), n)
			}
		}
		for _, c := range [][2]int{{0, 0}, {0, n - 7}, {n - 7, 0}} {
			if err := finderAt(m, c[0], c[1]); err != nil {
				t.Errorf("Encode(%d bytes): finder at row %d, column %d: %v", len(text), c[0], c[1], err)
			}
		}
		if m.Size() != n+2*QuietZone {
			t.Errorf("Size() = %d, want %d", m.Size(), n+2*QuietZone)
		}
	}
}

func TestDifferentTextsGiveDifferentSymbols(t *testing.T) {
	a1, _ := Encode("http://10.0.0.5:8080/join/K7QXM")
	a2, _ := Encode("http://10.0.0.5:8080/join/K7QXM")
	b, _ := Encode("http://10.0.0.5:8080/join/K7QXN")
	if fmt.Sprint(a1) != fmt.Sprint(a2) {
		t.Error("the same text gave two different symbols")
	}
	if fmt.Sprint(a1) == fmt.Sprint(b) {
		t.Error("codes K7QXM and K7QXN gave the same symbol")
	}
	long, _ := Encode("http://10.0.0.5:8080/join/K7QXM?" + strings.Repeat("a", 200))
	if len(long) <= len(a1) {
		t.Errorf("a 230-byte text has side %d, not more than the 31-byte text's %d", len(long), len(a1))
	}
}

func TestEncodeRefusesWhatCannotBeScanned(t *testing.T) {
	for _, tt := range []struct {
		text, want string
	}{
		{"", "empty"},
		{strings.Repeat("x", MaxTextBytes+1), "513 bytes"},
	} {
		_, err := Encode(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Encode(%d bytes) = %v, want an error saying %q", len(tt.text), err, tt.want)
		}
	}
}

var run = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)

// TestSVGDrawsExactlyTheMatrix reads the path back into modules: every dark
// module drawn once, nothing in the quiet zone, nothing else.
func TestSVGDrawsExactlyTheMatrix(t *testing.T) {
	m, err := Encode("http://192.168.1.20:8080/join/K7QXM")
	if err != nil {
		t.Fatal(err)
	}
	svg := m.SVG("Join at http://192.168.1.20:8080/join/K7QXM")
	size := m.Size()
	if want := fmt.Sprintf(`viewBox="0 0 %d %d"`, size, size); !strings.Contains(svg, want) {
		t.Errorf("svg lacks %s", want)
	}
	d := regexp.MustCompile(`<path fill="#000" d="([^"]*)"`).FindStringSubmatch(svg)
	if d == nil {
		t.Fatalf("no dark path in %s", svg)
	}
	if rest := run.ReplaceAllString(d[1], ""); rest != "" {
		t.Fatalf("path has parts that are not module runs: %q", rest)
	}
	drawn := make([][]int, size)
	for y := range drawn {
		drawn[y] = make([]int, size)
	}
	for _, r := range run.FindAllStringSubmatch(d[1], -1) {
		x, _ := strconv.Atoi(r[1])
		y, _ := strconv.Atoi(r[2])
		w, _ := strconv.Atoi(r[3])
		if back, _ := strconv.Atoi(r[4]); back != w {
			t.Fatalf("run %q does not close on itself", r[0])
		}
		for i := range w {
			drawn[y][x+i]++
		}
	}
	for y := range size {
		for x := range size {
			want := 0
			inside := x >= QuietZone && y >= QuietZone && x < size-QuietZone && y < size-QuietZone
			if inside && m[y-QuietZone][x-QuietZone] {
				want = 1
			}
			if drawn[y][x] != want {
				t.Fatalf("module (%d,%d) drawn %d times, want %d (inside the quiet zone: %v)", x, y, drawn[y][x], want, inside)
			}
		}
	}
}

func TestSVGIsWellFormedWithItsTextAlternative(t *testing.T) {
	svg, err := SVG("http://h/join/ABCDE?a=1&b=2", `Join "room" <ABCDE> & more`)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Role  string `xml:"role,attr"`
		Label string `xml:"aria-label,attr"`
		Title string `xml:"title"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("svg is not well-formed XML: %v\n%s", err, svg)
	}
	want := `Join "room" <ABCDE> & more`
	if doc.Role != "img" || doc.Label != want || doc.Title != want {
		t.Errorf("role %q, aria-label %q, title %q; want img and %q", doc.Role, doc.Label, doc.Title, want)
	}
	if len(svg) > 8000 {
		t.Errorf("a join URL's symbol takes %d bytes of SVG, want under 8 KB", len(svg))
	}
}
