// Package pages holds the lessons feature's templ components and their view
// models. What every page shares (the layout, Page, the numbers' wording,
// the presentation layout) is web/templates.
package pages
