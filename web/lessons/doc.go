// Package lessons is the lessons feature (/lessons, /exercises): the
// lessons and their index, a lesson's lanes, its predictions checked with
// or without JavaScript (lesson_predictions.go), and the exercises with
// their answer feedback. Its pages and view models are in web/lessons/pages.
//
// Inside this package the name lessons is the domain package
// github.com/windowlab/playground/lessons; importers name this one
// weblessons.
package lessons
