package lessons

import (
	"fmt"
	"html/template"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
)

// timelineBlock is the JSON of a ```scenario-timeline block: the same
// scenario drawn as one lane per policy along a time axis.
type timelineBlock struct {
	Caption  string      `json:"caption"`
	Scenario scenarioRef `json:"scenario"`
	Policies []string    `json:"policies"`
}

type timelineMark struct {
	X, Y     float64
	Admitted bool
	Title    string
}

type timelineLane struct {
	Label   string
	Y       float64
	Marks   []timelineMark
	Summary string
}

type timelineTick struct {
	X     float64
	Label string
}

var timelineTmpl = template.Must(template.New("timeline").Parse(`<figure class="timeline" data-testid="timeline">
<svg viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-labelledby="{{.ID}}-title {{.ID}}-desc" preserveAspectRatio="xMinYMin meet">
<title id="{{.ID}}-title">{{.Caption}}</title>
<desc id="{{.ID}}-desc">{{range .Lanes}}{{.Summary}} {{end}}</desc>
{{range .Ticks}}<line class="tick" x1="{{.X}}" x2="{{.X}}" y1="18" y2="{{$.Height}}"></line><text class="tick-label" x="{{.X}}" y="12" text-anchor="middle">{{.Label}}</text>
{{end}}{{range .Lanes}}<text class="lane-label" x="4" y="{{.Y}}" dy="-40">{{.Label}}</text>
<line class="lane-line" x1="{{$.Left}}" x2="{{$.Width}}" y1="{{.Y}}" y2="{{.Y}}"></line>
{{range .Marks}}{{if .Admitted}}<circle class="mark-admitted" cx="{{.X}}" cy="{{.Y}}" r="5"><title>{{.Title}}</title></circle>{{else}}<path class="mark-refused" d="M{{.X}} {{.Y}} m-5 -5 l10 10 m0 -10 l-10 10"><title>{{.Title}}</title></path>{{end}}
{{end}}{{end}}</svg>
<figcaption>{{.Caption}}. Dots are admitted requests, crosses refused ones; requests at the same instant are stacked. {{range .Lanes}}{{.Summary}} {{end}}</figcaption>
</figure>`))

func (st *renderState) timeline(body []byte) (template.HTML, error) {
	var b timelineBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	if b.Caption == "" {
		return "", fmt.Errorf("a timeline needs a caption")
	}
	s, res, err := st.run(b.Scenario, b.Policies)
	if err != nil {
		return "", err
	}
	const left, width, laneGap = 8.0, 640.0, 84.0
	end := s.WindowMs
	for _, r := range s.Requests {
		end = max(end, r.At+s.WindowMs/6)
	}
	end = (end + s.WindowMs - 1) / s.WindowMs * s.WindowMs
	x := func(t int64) float64 { return left + 20 + (width-left-40)*float64(t)/float64(end) }
	v := map[string]any{"ID": fmt.Sprintf("timeline-%d", st.blockSeen["scenario-timeline"]), "Caption": b.Caption, "Width": width, "Left": left}
	var ticks []timelineTick
	for t := int64(0); t <= end; t += s.WindowMs {
		ticks = append(ticks, timelineTick{X: x(t), Label: scenario.FormatMs(t)})
	}
	var lanes []timelineLane
	for i, p := range res.Results {
		lane := timelineLane{Label: p.Label, Y: 74 + laneGap*float64(i)}
		stack := map[int64]int{}
		for _, d := range p.Decisions {
			if d.Probe {
				continue
			}
			n := stack[d.At]
			stack[d.At]++
			lane.Marks = append(lane.Marks, timelineMark{
				X: x(d.At), Y: lane.Y - 11*float64(n), Admitted: d.Allowed(),
				Title: fmt.Sprintf("%s at %s", explain.Verdict(d.Allowed()), scenario.FormatMs(d.At)),
			})
		}
		lane.Summary = fmt.Sprintf("%s admits %d of %d", p.Label, p.Admitted, p.Admitted+p.Refused)
		if refused := refusalTimes(p.Decisions); refused != "" {
			lane.Summary += ", refusing at " + refused
		}
		lane.Summary += "."
		lanes = append(lanes, lane)
	}
	v["Ticks"] = ticks
	v["Lanes"] = lanes
	v["Height"] = 40 + laneGap*float64(len(lanes))
	return execHTML(timelineTmpl, v)
}
