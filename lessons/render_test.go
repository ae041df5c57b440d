package lessons

import (
	"net/url"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

func TestEveryLessonRendersWithoutProblems(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Lessons) == 0 {
		t.Fatal("no lessons found")
	}
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatalf("%s: %v", l.File, err)
		}
		for _, p := range r.Problems {
			t.Errorf("%s", p)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{16: "16 B", 800: "800 B", 800_000_000: "800 MB", 1500: "1.5 kB", 24_000_000: "24 MB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReadingMinutesSkipsBlockJSON(t *testing.T) {
	prose := strings.Repeat("word ", 400)
	json := "```scenario-table\n" + strings.Repeat("{\"x\": 1} ", 2000) + "\n```\n"
	note := "```note\n" + strings.Repeat("word ", 200) + "\n```\n"
	for _, tt := range []struct {
		body string
		want int
	}{
		{prose, 2},
		{prose + "\n" + json, 3}, // 400 words + 20 for the table
		{prose + "\n" + note, 3}, // 400 + 200: a note is read like prose
	} {
		if got := (&Lesson{Body: tt.body}).ReadingMinutes(); got != tt.want {
			t.Errorf("ReadingMinutes = %d, want %d", got, tt.want)
		}
	}
}

func TestTimelineDescribesEveryLaneInWords(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := lib.Render(lib.Lesson("sliding-log"), nil)
	if err != nil {
		t.Fatal(err)
	}
	html := string(r.HTML)
	for _, want := range []string{`role="img"`, "<desc", "sliding-log admits 8 of 10, refusing at 25 s, 40 s."} {
		if !strings.Contains(html, want) {
			t.Errorf("the sliding-log lesson's time line lacks %q", want)
		}
	}
}

// The k the ring lesson recommends for a cache line must divide the window
// (the ring refuses any other) and its state must fit 64 bytes; the next k
// that divides the window must not fit, or the recommendation is too small.
func TestCacheLineKDividesTheWindowAndFits(t *testing.T) {
	for _, windowMs := range []int64{1000, 7000, 10_000, 60_000, 3_600_000} {
		k, err := cacheLineK(windowMs)
		if err != nil {
			t.Fatalf("window %d ms: %v", windowMs, err)
		}
		if windowMs%k != 0 {
			t.Errorf("window %d ms: k = %d does not divide it", windowMs, k)
		}
		size := func(k int64) int64 {
			t.Helper()
			per, err := EntryBytesPerKey(scenario.PolicySpec{Name: policies.SlidingBuckets, Buckets: k}, 1, windowMs-windowMs%k)
			if err != nil {
				t.Fatal(err)
			}
			return per
		}
		if per := size(k); per > cacheLineBytes {
			t.Errorf("window %d ms: k = %d keeps %d bytes, more than a cache line", windowMs, k, per)
		}
		next := k + 1
		for windowMs%next != 0 {
			next++
		}
		if per := size(next); per <= cacheLineBytes {
			t.Errorf("window %d ms: k = %d also divides it and keeps only %d bytes; k = %d is not the largest", windowMs, next, per, k)
		}
	}
}

// A k the ring cannot use is answered with a message naming the nearest
// ones it can, never swapped silently for the default.
func TestRingWidgetRefusesAKThatDoesNotDivideTheWindow(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		k, want string
	}{
		{"7", "k: 7 does not divide the 60 s window"},
		{"7", "The nearest that do: k = 6 or k = 8."},
		{"0", "k: 0 is outside 1 to 1000."},
		{"seven", "k: “seven” is not a whole number."},
	} {
		r, err := lib.Render(lib.Lesson("ring-of-buckets"), url.Values{"k": {tt.k}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(r.InputProblems, " "), tt.want) || !strings.Contains(string(r.HTML), `data-testid="ring-warning"`) {
			t.Errorf("k=%s: input problems %q, want %q shown beside the widget", tt.k, r.InputProblems, tt.want)
		}
	}
	r, err := lib.Render(lib.Lesson("ring-of-buckets"), url.Values{"k": {"12"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.InputProblems) > 0 || !strings.Contains(string(r.HTML), "With k = 12,") {
		t.Errorf("k=12 divides 60 s but was not shown: %q", r.InputProblems)
	}
}

// A caption lists each instant once: ten requests refused at 60 s read
// "60 s (×…)", not "60 s, 60 s, 60 s, …".
func TestCaptionsNameEachInstantOnce(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(r.HTML), "refusing at ")[1:] {
			list, _, _ := strings.Cut(line, ".<")
			list, _, _ = strings.Cut(list, ". ")
			seen := map[string]bool{}
			for _, item := range strings.Split(list, ", ") {
				at, _, _ := strings.Cut(item, " (×")
				if seen[at] {
					t.Errorf("%s: a caption names %s twice: refusing at %s", l.Slug, at, list)
					break
				}
				seen[at] = true
			}
		}
	}
}

// A problem with the page's address names the control by the label the
// visitor sees on the page (the lanes' caption, "As a table", the
// calculator's field), never by the address's own name for it
// ("lanes-1", "ki", "limit"), which appears nowhere on the page.
func TestAddressProblemsNameWhatTheVisitorSees(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		lesson    string
		in        url.Values
		want, not string
	}{
		{"fixed-window", url.Values{"lanes-1": {"soon"}}, "“The car park under a fixed window, car by car”: step “soon” is not a step", "lanes-1"},
		{"fixed-window", url.Values{"lanes-1-table": {"shut"}}, "As a table: “shut” is neither open nor closed", "lanes-1"},
		{"ring-of-buckets", url.Values{"ki": {"99"}}, "Choose k: “99” is not a position on the slider", "ki:"},
		{"sliding-log", url.Values{"limit": {"banana"}}, "Limit (permits per window): “banana” is not a whole number", "limit:"},
		{"sliding-log", url.Values{"keys": {"0"}}, "Keys (clients tracked): 0 is outside 1 to", "keys:"},
		{"choosing-a-policy", url.Values{"seed": {"x"}}, "Seed: “x” is not a whole number", "seed:"},
	} {
		l := lib.Lesson(tt.lesson)
		if l == nil {
			t.Fatalf("no lesson %q", tt.lesson)
		}
		r, err := lib.Render(l, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(r.InputProblems, " ")
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%s?%s: the problem reads %q, want it to say %q and not name %q", tt.lesson, tt.in.Encode(), got, tt.want, tt.not)
		}
	}
}
