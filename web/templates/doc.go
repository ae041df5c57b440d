// Package templates holds the site's pages as templ components, one file
// per page with its view model beside it:
//
//   - layout.templ, page.go: the layout every page shares and Page, what it
//     needs (title, section, assets, presentation mode);
//   - home.templ, errors.templ: the home page, 404 and 500;
//   - lesson.templ, exercise.templ, lesson_model.go: the lessons and their
//     index, the exercises with their answer feedback; predict.templ: a
//     lesson's checked prediction and the intro that lets a learner reset;
//   - play.templ: the playground page and the regions its stream replaces
//     (clock, summary, lanes, explanation, sharing); play_model.go: its view
//     model and wording; play_settings.go: what the settings form shows of
//     a scenario; play_signals.go: the page's Datastar signals;
//     play_errors.go: which error slot shows a field's problem;
//     play_control.templ: what a browser that may only watch is told;
//   - present.templ, present.go: the presentation view's layout, which
//     fits a projector (PresentLayout, also for a room's projector), its
//     lane sizes and its one-line explanation;
//   - room.templ, room_model.go: a workshop room's projector, an attendee's phone
//     page, joining and pairing, and the regions a room's hub fans out.
//
// A lane's drawing is package lane; package web renders these
// components into responses and SSE events.
//
// Components take plain values. The layout needs a Page, which handlers in
// package web build with (*web.Server).Page.
package templates
