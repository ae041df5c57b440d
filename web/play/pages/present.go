package pages

import (
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/web/templates"
)

// PlayLaneOptions are the options of the playground's interactive lanes,
// sized for the presentation view when the page is one.
func PlayLaneOptions(pp PlayPage) lane.Options {
	o := lane.Options{SelectURL: pp.Base + "/select"}
	if pp.Page.Presentation {
		o = templates.PresentLaneOptions(len(pp.View.Lanes), o)
	}
	return o
}

// streamURL is the page's stream; the presentation view's stream draws
// its lanes and explanation for the presentation.
func streamURL(pp PlayPage) string {
	if pp.Page.Presentation {
		return pp.Base + "/stream?present=1"
	}
	return pp.Base + "/stream"
}
