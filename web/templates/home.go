package templates

import (
	"fmt"
	"sync"

	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// The home page's picture: the boundary burst, small enough to read at a
// glance. Five requests just before a window's edge and five just after,
// against a limit of 5 per 10 s: a fixed window starts a fresh count at the
// edge and lets all ten through, a sliding log looks back a whole window and
// lets five. Every mark and count is the policies' own, replayed here; the
// page plays the frames in turn (home.js) and shows the last one still under
// prefers-reduced-motion or without scripts.
var homeBurst = scenario.Scenario{
	Limit:    5,
	WindowMs: 10_000,
	Policies: []scenario.PolicySpec{{Name: "fixed-window"}, {Name: "sliding-log"}},
	Requests: burstAt(8_600, 8_900, 9_200, 9_500, 9_800, 10_200, 10_500, 10_800, 11_100, 11_400),
}

func burstAt(ats ...int64) []scenario.Request {
	out := make([]scenario.Request, len(ats))
	for i, at := range ats {
		out[i] = scenario.Request{At: at, Cost: 1, Count: 1}
	}
	return out
}

// homeSpan is the stretch of time the picture shows, the edge at 10 s in
// its middle.
const homeFrom, homeTo = 5_000, 15_000

// HomeFrame is the picture after the first N requests.
type HomeFrame struct {
	N     int
	Now   string // what the frame shows, in words
	Lanes []lane.Input
}

// HomePicture is the home page's live picture: its frames in order (the
// last holds every decision) and a caption computed from the policies.
type HomePicture struct {
	Frames  []HomeFrame
	Caption string
	Options lane.Options
	// PlayLanes is how many policies a new playground decides side by
	// side (play.DefaultScenario), which the page's text says.
	PlayLanes int
}

// Last is the frame shown still.
func (h HomePicture) Last() int { return len(h.Frames) - 1 }

var homePicture = sync.OnceValues(buildHomePicture)

// Picture is the home page's picture, replayed once per process.
func Picture() (HomePicture, error) { return homePicture() }

func buildHomePicture() (HomePicture, error) {
	res, err := scenario.Run(homeBurst)
	if err != nil {
		return HomePicture{}, err
	}
	fw, sl := res.Results[0], res.Results[1]
	reqs := homeBurst.Requests
	h := HomePicture{
		Caption: fmt.Sprintf("%d requests in %s straddle the edge of a window at %s, under a limit of %d per %s. The fixed window lets %d through; the sliding log lets %d.",
			len(homeBurst.Requests), scenario.FormatMs(reqs[len(reqs)-1].At-reqs[0].At), scenario.FormatMs(homeBurst.WindowMs),
			homeBurst.Limit, scenario.FormatMs(homeBurst.WindowMs), fw.Admitted, sl.Admitted),
		// On a phone the card is about 300 px wide: a drawing of as many
		// units keeps its marks and labels at their size there.
		Options:   lane.Options{Width: 440, Height: 120, NarrowWidth: 300, From: homeFrom, To: homeTo},
		PlayLanes: len(play.DefaultScenario().Policies),
	}
	for n := 0; n <= len(homeBurst.Requests); n++ {
		sc := homeBurst
		sc.Requests = homeBurst.Requests[:n]
		now := int64(homeFrom)
		if n > 0 {
			now = sc.Requests[n-1].At
		}
		lanes, err := lane.Replayed(fmt.Sprintf("home-%d", n), sc, now)
		if err != nil {
			return HomePicture{}, err
		}
		f := HomeFrame{N: n, Now: "Before the first request", Lanes: lanes}
		if n > 0 {
			f.Now = fmt.Sprintf("Request %d of %d, at %s", n, len(homeBurst.Requests), scenario.FormatMs(now))
		}
		h.Frames = append(h.Frames, f)
	}
	return h, nil
}
