package lessons

import (
	"strings"
	"testing"
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
