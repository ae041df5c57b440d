package room

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNewCodeUsesOnlyTheAlphabet(t *testing.T) {
	rnd := rand.NewChaCha8([32]byte{7})
	seen := map[byte]int{}
	for range 2000 {
		code, err := newCode(rnd, CodeLen)
		if err != nil {
			t.Fatal(err)
		}
		if len(code) != CodeLen {
			t.Fatalf("newCode gave %q, want %d characters", code, CodeLen)
		}
		for i := range len(code) {
			seen[code[i]]++
		}
	}
	for c, n := range seen {
		if !strings.ContainsRune(CodeAlphabet, rune(c)) {
			t.Errorf("code character %q (%d times) is not in the alphabet", c, n)
		}
	}
	// 10,000 draws over 31 characters: each expected about 323 times; a
	// character never or rarely drawn means the rejection step is wrong.
	for _, c := range []byte(CodeAlphabet) {
		if seen[c] < 200 {
			t.Errorf("character %q drawn %d times in 10,000, want about 323", c, seen[c])
		}
	}
}

func TestNewCodeRejectsBiasedBytes(t *testing.T) {
	// Bytes 248 to 255 would favour the first 8 characters; they must be
	// skipped, not folded in.
	src := bytes.NewReader(append(bytes.Repeat([]byte{255}, 16), bytes.Repeat([]byte{32}, 16)...))
	code, err := newCode(src, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat(string(CodeAlphabet[32%31]), 5); code != want {
		t.Errorf("newCode = %q, want %q (bytes ≥ 248 skipped)", code, want)
	}
	if _, err := newCode(bytes.NewReader(nil), 5); err == nil {
		t.Error("newCode from an empty source: no error")
	}
}

func TestNormaliseCode(t *testing.T) {
	for _, tt := range []struct{ typed, want, wantErr string }{
		{typed: "K7QXM", want: "K7QXM"},
		{typed: " k7q-xm ", want: "K7QXM"},
		{typed: "k7 q x m", want: "K7QXM"},
		{typed: "K7QX", wantErr: "a code has 5 characters; \"K7QX\" has 4"},
		{typed: "K7QXMM", wantErr: "has 6"},
		{typed: "K0QXM", wantErr: "never use 0, O, 1, I or L"},
		{typed: "KOQXM", wantErr: "never use 0, O, 1, I or L"},
		{typed: "kiqxm", wantErr: "never use 0, O, 1, I or L"},
		{typed: "K7Q!M", wantErr: "letters and the digits 2 to 9"},
		{typed: "", wantErr: "has 0"},
	} {
		got, err := NormaliseCode(tt.typed, CodeLen)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NormaliseCode(%q) = %q, %v; want an error saying %q", tt.typed, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormaliseCode(%q) = %q, %v; want %q", tt.typed, got, err, tt.want)
		}
	}
}
