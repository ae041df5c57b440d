package exercises

import (
	"github.com/windowlab/playground/ask"

	"strings"
	"testing"
)

// big.Rat reads "1e3" as 1000, which made "1e3" a readable (and "too
// late") answer of 1000 s. Exponents are refused with a message saying so,
// like "36000" is questioned rather than judged.
func TestExponentTimesAreRefused(t *testing.T) {
	in := load(t).Get("try-it-2-exact").Instance(0)
	for _, text := range []string{"1e3", "1e3 s", "3.6e4 ms", "3E1"} {
		fb, err := in.Check(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fb.Readable || !strings.Contains(fb.Problem, "not with an exponent") {
			t.Errorf("%q: readable = %v (given %q), problem %q; want it refused for the exponent", text, fb.Readable, fb.Given, fb.Problem)
		}
	}
}

// A which-question answered in words it cannot read names its own choices,
// each in a word that reads back as that choice alone.
func TestWhichMessageNamesTheQuestionsChoices(t *testing.T) {
	for _, tt := range []struct {
		lanes   []string
		want    []string
		notWant string
	}{
		{[]string{"sliding-counter/floor", "sliding-counter/exact"}, []string{"“floor” for the sliding counter (floor)", "“exact” for the sliding counter (exact)", "“both” or “neither”"}, "sliding-log"},
		{[]string{"sliding-log", "sliding-counter/exact"}, []string{"“log” for the sliding log", "“exact” for the sliding counter (exact)"}, "floor"},
		{[]string{"fixed-window", "sliding-log", "token-bucket/10"}, []string{"“fixed”", "“log”", "“token”", "“all” or “none”"}, "both"},
	} {
		_, err := ParseAnswer(AskWhich, "maybe", nil, tt.lanes)
		if err == nil {
			t.Fatalf("%v: \"maybe\" was read", tt.lanes)
		}
		msg := err.Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: message %q does not say %q", tt.lanes, msg, w)
			}
		}
		if strings.Contains(msg, tt.notWant) {
			t.Errorf("%v: message %q offers %q, which the question does not ask about", tt.lanes, msg, tt.notWant)
		}
		for _, l := range tt.lanes {
			w := ask.LaneWord(l, tt.lanes)
			ans, err := ParseAnswer(AskWhich, w, nil, tt.lanes)
			if err != nil || len(ans.Admit) != 1 || ans.Admit[0] != l {
				t.Errorf("%v: the offered word %q reads as %v (%v), want only %s", tt.lanes, w, ans.Admit, err, l)
			}
		}
	}
}

// The pages ask a which-question with checkboxes: committing none used to
// be answered with how to name policies in words, which no page offers.
// Nothing ticked is answered in the pages' own controls.
func TestWhichWithNothingTickedSpeaksTheCheckboxes(t *testing.T) {
	lanes := []string{"sliding-counter/floor", "sliding-counter/exact"}
	for _, text := range []string{"", "  "} {
		_, err := ParseAnswer(AskWhich, text, nil, lanes)
		if err == nil {
			t.Fatalf("%q with nothing ticked was read", text)
		}
		msg := err.Error()
		if !strings.Contains(msg, "Tick at least one") || !strings.Contains(msg, "“none of them”") || strings.Contains(msg, "Name the policies") {
			t.Errorf("%q with nothing ticked: message %q, want it to ask to tick at least one or “none of them”", text, msg)
		}
	}
}

// "-5" is read, and is no count: the message says so rather than that it
// cannot be read.
func TestNegativeCountSaysWhy(t *testing.T) {
	for _, tt := range []struct{ kind, text, want string }{
		{AskCount, "-5", "“-5”: a count can't be negative. Give a whole number from 0 up, such as 7."},
		{AskStack, "-1 requests", "a count can't be negative"},
		{AskCacheLineK, "k = -2", "k can't be negative"},
	} {
		_, err := ParseAnswer(tt.kind, tt.text, nil, nil)
		if err == nil {
			t.Fatalf("%s %q was read", tt.kind, tt.text)
		}
		if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "can't be read") {
			t.Errorf("%s %q: message %q, want %q", tt.kind, tt.text, msg, tt.want)
		}
	}
}

// An unreadable answer is quoted back cut short: a 200,000-character one
// made a 400 page of 400 KB.
func TestUnreadableAnswerIsQuotedShort(t *testing.T) {
	long := strings.Repeat("9x", 100_000)
	_, err := ParseAnswer(AskCount, long, nil, nil)
	if err == nil {
		t.Fatal("a 200,000-character answer was read")
	}
	if msg := err.Error(); len(msg) > 400 || !strings.Contains(msg, "…") {
		t.Errorf("the message is %d bytes (want at most 400, the answer cut with …): %.120s", len(msg), msg)
	}
}
