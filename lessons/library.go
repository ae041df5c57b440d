package lessons

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/exercises"
	"github.com/windowlab/playground/scenario"
)

//go:embed *.md scenarios/*.json sections/*.md
var content embed.FS

// Lesson is one lesson file, parsed but not rendered.
type Lesson struct {
	Slug    string // from the file name: 01-fixed-window.md is "fixed-window"
	Order   int    // from the file name's number
	Title   string
	Summary string
	File    string // file name inside the folder
	Body    string // the Markdown after the header
}

// Library is every lesson and shared scenario, in order.
type Library struct {
	Lessons   []*Lesson
	Scenarios map[string]scenario.Scenario // scenarios/NAME.json by NAME
	// Exercises are the exercises an ```exercise block may name. Load
	// fills it; a library read by LoadFS alone has none, and its exercise
	// blocks show the id for a title.
	Exercises *exercises.Set
}

var lessonName = regexp.MustCompile(`^(\d+)-([a-z0-9-]+)\.md$`)

// Load reads the lessons and scenarios embedded in this package, then the
// exercises (package exercises), which name those scenarios and lessons.
func Load() (*Library, error) {
	lib, err := LoadFS(content)
	if err != nil {
		return nil, err
	}
	if lib.Exercises, err = exercises.Load(lib); err != nil {
		return nil, err
	}
	return lib, nil
}

// HasLesson reports whether a lesson has the slug; with Scenario it makes
// the library the exercises' catalog.
func (lib *Library) HasLesson(slug string) bool { return lib.Lesson(slug) != nil }

// LoadFS reads lessons (NN-slug.md) and scenarios (scenarios/*.json) from
// fsys. Every problem with a file is an error naming the file.
func LoadFS(fsys fs.FS) (*Library, error) {
	lib := &Library{Scenarios: map[string]scenario.Scenario{}}
	names, err := fs.Glob(fsys, "scenarios/*.json")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		s, err := scenario.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("lessons: %s: %w", name, err)
		}
		lib.Scenarios[strings.TrimSuffix(path.Base(name), ".json")] = s
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		m := lessonName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		l, err := parseLesson(e.Name(), m, data)
		if err != nil {
			return nil, err
		}
		if lib.Lesson(l.Slug) != nil {
			return nil, fmt.Errorf("lessons: %s: a second lesson with slug %q", e.Name(), l.Slug)
		}
		lib.Lessons = append(lib.Lessons, l)
	}
	slices.SortFunc(lib.Lessons, func(a, b *Lesson) int { return a.Order - b.Order })
	if err := lib.addSections(fsys); err != nil {
		return nil, err
	}
	return lib, nil
}

// addSections appends each sections/SLUG.NAME.md to the end of the lesson
// with that slug, in the order of NAME (see sections/README.md).
func (lib *Library) addSections(fsys fs.FS) error {
	names, err := fs.Glob(fsys, "sections/*.md")
	if err != nil {
		return err
	}
	slices.Sort(names) // Glob's order already; sorted here so that it is the rule
	for _, name := range names {
		base := path.Base(name)
		if base == "README.md" {
			continue
		}
		slug, _, ok := strings.Cut(base, ".")
		l := lib.Lesson(slug)
		if !ok || l == nil {
			return fmt.Errorf("lessons: %s: no lesson has the slug %q (name a section SLUG.NAME.md)", name, slug)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		l.Body = strings.TrimRight(l.Body, "\n") + "\n\n" + strings.TrimSpace(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))) + "\n"
	}
	return nil
}

func parseLesson(file string, m []string, data []byte) (*Lesson, error) {
	order, _ := strconv.Atoi(m[1])
	l := &Lesson{Slug: m[2], Order: order, File: file}
	text := string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, fmt.Errorf("lessons: %s: must start with a --- header holding title and summary", file)
	}
	header, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return nil, fmt.Errorf("lessons: %s: the header has no closing ---", file)
	}
	for i, line := range strings.Split(header, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("lessons: %s: header line %d: want \"name: value\"", file, i+2)
		}
		switch strings.TrimSpace(k) {
		case "title":
			l.Title = strings.TrimSpace(v)
		case "summary":
			l.Summary = strings.TrimSpace(v)
		default:
			return nil, fmt.Errorf("lessons: %s: header line %d: unknown field %q (want title or summary)", file, i+2, k)
		}
	}
	if l.Title == "" {
		return nil, fmt.Errorf("lessons: %s: the header needs a title", file)
	}
	l.Body = body
	return l, nil
}

// Lesson returns the lesson with the slug, or nil.
func (lib *Library) Lesson(slug string) *Lesson {
	for _, l := range lib.Lessons {
		if l.Slug == slug {
			return l
		}
	}
	return nil
}

// Neighbours returns the lessons before and after the one with the slug;
// either is nil at the ends.
func (lib *Library) Neighbours(slug string) (prev, next *Lesson) {
	for i, l := range lib.Lessons {
		if l.Slug == slug {
			if i > 0 {
				prev = lib.Lessons[i-1]
			}
			if i+1 < len(lib.Lessons) {
				next = lib.Lessons[i+1]
			}
		}
	}
	return prev, next
}

// ReadingMinutes estimates the reading time of the lesson at 200 words a
// minute, at least one.
// Live blocks count as their prose only: the JSON inside them is not read,
// a margin note is.
func (l *Lesson) ReadingMinutes() int {
	words, block := 0, ""
	for _, line := range strings.Split(l.Body, "\n") {
		if info, ok := strings.CutPrefix(line, "```"); ok {
			if block == "" {
				block = strings.TrimSpace(info) + " "
				if !strings.HasPrefix(block, "note ") {
					words += 20 // a table or widget takes a moment to read
				}
			} else {
				block = ""
			}
			continue
		}
		if block == "" || strings.HasPrefix(block, "note ") {
			words += len(strings.Fields(line))
		}
	}
	return max(1, (words+199)/200)
}

// Scenario finds a shared scenario by name: a file scenarios/NAME.json, or
// generated traffic named generated/SHAPE/LIMIT/WINDOWMS/WINDOWS/SEED (see
// scenario.Generated).
func (lib *Library) Scenario(name string) (scenario.Scenario, error) {
	if s, ok := lib.Scenarios[name]; ok {
		return s, nil
	}
	if strings.HasPrefix(name, scenario.GeneratedPrefix) {
		return scenario.Generated(name)
	}
	return scenario.Scenario{}, fmt.Errorf("no scenario named %q (define it with a ```scenario %s block or add scenarios/%s.json)", name, name, name)
}
