// Package templates holds what every page of the site shares, as templ
// components and plain values:
//
//   - layout.templ, page.go: the layout every page shares and Page, what it
//     needs (title, section, assets, presentation mode);
//   - home.templ, errors.templ: the home page, 404 and 500;
//   - present.templ, present.go: the presentation view's layout, which
//     fits a projector (PresentLayout: the playground's and a room's), its
//     lane sizes and its one-line explanation;
//   - format.go: the numbers and words every feature writes alike.
//
// Each feature's own pages are in its package (web/play/pages,
// web/room/pages, web/lessons/pages). Components take plain values; the
// layout needs a Page, which handlers build with (*web.Server).Page.
package templates
