package web

import "testing"

func TestTrimCSS(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a comment line goes", "/* why */\na { color: red; }\n", "a { color: red; }\n"},
		{"a comment over lines goes", "/* one\n   two */\nb {}\n", "b {}\n"},
		{"indentation and blank lines go", ".x {\n  color: red;\n\n\tmargin: 0;\n}\n", ".x {\ncolor: red;\nmargin: 0;\n}\n"},
		{"a comment after a rule", "a { color: red; } /* why */\nb {}\n", "a { color: red; } \nb {}\n"},
		{"a comment between tokens leaves a space", "a/**/b {}", "a b {}"},
		{"a comment next to a space leaves none", "a /* x */b {}", "a b {}"},
		{"a string keeps its comment marks", `a::before { content: "/* not */"; }`, `a::before { content: "/* not */"; }`},
		{"a single-quoted string with an escaped quote", `a { content: '\'/*'; }`, `a { content: '\'/*'; }`},
		{"an unclosed string runs to the line's end", "a { content: \"x\nb {}", "a { content: \"x\nb {}"},
		{"an unclosed comment runs to the end", "a {}\n/* open", "a {}\n"},
		{"nothing", "", ""},
	}
	for _, tt := range tests {
		if got := string(trimCSS([]byte(tt.in))); got != tt.want {
			t.Errorf("%s: trimCSS(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
