package lessons

import (
	"fmt"
	"html/template"

	weblane "github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/scenario"
)

// A section's picture: a ```picture block, written right under a section's
// heading, draws a scenario's lanes decided, by the same lane renderer as
// the playground and a ```lanes block, so that a section of prose opens
// with something to look at. It has no step controls: the section's words
// are about the picture as a whole. It is drawn beside the words on a wide
// screen and above them on a phone (lessons.css). Its text alternative is
// each lane's own (title and description) and the summary under it.
//
// Like any picture before a prediction, it must not draw a decision the
// learner is about to predict: a lesson's section pictures use traffic its
// predictions do not ask about (TestEverySectionOpensWithItsPicture).
type pictureBlock struct {
	Caption  string      `json:"caption"`
	Scenario scenarioRef `json:"scenario"`
	Policies []string    `json:"policies"`
}

// sectionPictureView is one ```picture block, for its templ component.
type sectionPictureView struct {
	ID      string
	Caption string
	Summary string
	Inputs  []weblane.Input
	Options weblane.Options
}

func (st *renderState) sectionPicture(body []byte) (template.HTML, error) {
	var b pictureBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	if b.Caption == "" {
		return "", fmt.Errorf("a picture needs a caption")
	}
	s, res, err := st.run(b.Scenario, b.Policies)
	if err != nil {
		return "", err
	}
	if n := len(res.Results[0].Decisions); n > MaxLaneSteps {
		return "", fmt.Errorf("the scenario has %d requests; a picture draws at most %d", n, MaxLaneSteps)
	}
	id := fmt.Sprintf("picture-%d", st.blockSeen["picture"])
	v := sectionPictureView{ID: id, Caption: b.Caption, Summary: lanesSummary(res)}
	if v.Options, v.Inputs, err = lessonLanes(id, s, s); err != nil {
		return "", err
	}
	st.out.Pictures = append(st.out.Pictures, SectionPicture{Caption: b.Caption, Scenario: b.Scenario.Name, Policies: b.Policies, Traffic: s})
	return renderHTML(sectionPicture(v))
}

// SectionPicture is what a rendered ```picture block drew, for tests.
type SectionPicture struct {
	Caption  string
	Scenario string // its name; "" for a scenario written in the block
	Policies []string
	Traffic  scenario.Scenario // the scenario as drawn, named or not
}
