package lessons

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A section file is appended to its lesson, in the order of its name, and
// one naming no lesson is an error naming the file.
func TestSectionsAreAppendedToTheirLesson(t *testing.T) {
	lesson := &fstest.MapFile{Data: []byte("---\ntitle: Beyond\n---\nBody.\n")}
	lib, err := LoadFS(fstest.MapFS{
		"06-beyond.md":           lesson,
		"sections/beyond.b.md":   {Data: []byte("Second.\n")},
		"sections/beyond.a.md":   {Data: []byte("\nFirst.\n\n")},
		"sections/README.md":     {Data: []byte("not a section")},
		"scenarios/nothing.json": {Data: []byte(`{"limit": 1, "windowMs": 1000}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lib.Lesson("beyond").Body, "Body.\n\nFirst.\n\nSecond.\n"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
	_, err = LoadFS(fstest.MapFS{"06-beyond.md": lesson, "sections/other.a.md": {Data: []byte("x")}})
	if err == nil || !strings.Contains(err.Error(), "sections/other.a.md") {
		t.Errorf("a section of no lesson: error %v, want one naming the file", err)
	}
}
