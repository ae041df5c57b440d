package templates

import (
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"
)

// SiteName is the name shown in the header and in every page title.
const SiteName = "Window Lab"

// Assets turns the name of a file in web/static (or "datastar.js") into the
// URL it is served at, which carries a hash of its content.
type Assets interface {
	URL(name string) string
}

// Section names the part of the site a page belongs to; the header marks the
// matching navigation link as the current page.
type Section string

// The sections the header links to. SectionNone is for pages outside them
// (home, errors).
const (
	SectionNone      Section = ""
	SectionLessons   Section = "lessons"
	SectionPlay      Section = "play"
	SectionExercises Section = "exercises"
)

// Page is what the layout needs to know about the page being rendered.
type Page struct {
	// Title is the page's own title; the <title> element adds the site name.
	// Empty means the site name alone.
	Title   string
	Section Section
	// Assets resolves static files. Nil serves them under their plain names,
	// which is only useful when rendering outside the server (tests).
	Assets Assets
	// Version names the running build in the footer.
	Version string
	// Path is the page's path and query (a request URI such as
	// "/play?s=..."), used by the presentation-mode link.
	Path string
	// Presentation switches on large type and high contrast for projectors.
	Presentation bool
	// PresentationExit is where "Leave presentation mode" goes from a page
	// that is presentation only (the room's projector); "" is this page
	// without ?present=1.
	PresentationExit string
}

// Asset returns the URL of a static file.
func (p Page) Asset(name string) string {
	if p.Assets == nil {
		return "/static/" + name
	}
	return p.Assets.URL(name)
}

// FullTitle is the text of the <title> element.
func (p Page) FullTitle() string {
	if p.Title == "" {
		return SiteName
	}
	return p.Title + " · " + SiteName
}

// PresentationToggle is the URL of this page, query kept, with presentation
// mode switched the other way. Anything but a local path becomes "/".
// maxToggleValues bounds the values of one name the presentation toggle
// carries on.
const maxToggleValues = 32

func (p Page) PresentationToggle() string {
	if p.Presentation && p.PresentationExit != "" {
		return p.PresentationExit
	}
	u, err := url.Parse(p.Path)
	if err != nil || !strings.HasPrefix(p.Path, "/") || strings.HasPrefix(p.Path, "//") {
		u = &url.URL{Path: "/"}
	}
	q := u.Query()
	// The link carries the page's query on, but each value once and at
	// most maxToggleValues of a name (no page reads more: a lesson keeps
	// 32 open examples), so that a crafted query of thousands of values
	// is not printed back in every page's footer.
	for k, vs := range q {
		var kept []string
		for _, v := range vs {
			if len(kept) == maxToggleValues {
				break
			}
			if !slices.Contains(kept, v) {
				kept = append(kept, v)
			}
		}
		q[k] = kept
	}
	if p.Presentation {
		q.Del("present")
	} else {
		q.Set("present", "1")
	}
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

func (p Page) bodyClass() string {
	if p.Presentation {
		return "presentation"
	}
	return ""
}

// navAttrs marks the link to the page's own section as the current page.
func (p Page) navAttrs(s Section) templ.Attributes {
	if s == p.Section && s != SectionNone {
		return templ.Attributes{"aria-current": "page"}
	}
	return templ.Attributes{}
}
