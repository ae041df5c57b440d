package pages

import (
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/web/templates"
)

// PlayLaneOptions are the options of the playground's interactive lanes,
// sized for the presentation view when the page is one.
func PlayLaneOptions(pp PlayPage) lane.Options {
	o := lane.Options{SelectURL: pp.Base + "/select"}
	switch {
	case pp.Page.Presentation:
		o = templates.PresentLaneOptions(len(pp.View.Lanes), o)
	case pp.Narrow:
		o.Width = lane.PhoneWidth
	}
	return o
}

// streamOnLoad opens the page's stream. The presentation view's stream
// draws its lanes and explanation for the presentation; the page's asks,
// on a screen as narrow as lane.css's phones (40rem), for lanes drawn
// lane.PhoneWidth wide, which its first frame sends in place of the wide
// ones the page came with (the server cannot know the screen's width).
// The expression runs again at each reconnect.
func streamOnLoad(pp PlayPage) string {
	if pp.Page.Presentation {
		return templates.StreamOnLoad(pp.Base + "/stream?present=1")
	}
	return templates.StreamOnLoadAt("'" + pp.Base + "/stream' + (matchMedia('(max-width: 40rem)').matches ? '?narrow=1' : '')")
}
