package traffic

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Generated describes a synthetic combined log for tests and benchmarks:
// Lines requests from Clients addresses over Span, a few clients sending
// far more than the rest (the busiest about a hundred times the quietest),
// seeded so the same description always writes the same bytes.
type Generated struct {
	Lines   int
	Clients int
	Start   time.Time
	Span    time.Duration
	Seed    uint64
}

// WriteCombined writes the log in the Combined Log Format, times in order.
func (g Generated) WriteCombined(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(g.Seed, 0x7a4f))
	clients := max(g.Clients, 1)
	paths := []string{"/", "/api/v1/items", "/api/v1/items/42", "/api/v2/search?q=rate", "/static/app.js", "/login"}
	agents := []string{"Mozilla/5.0 (X11; Linux x86_64)", "curl/8.5.0", "Go-http-client/1.1"}
	step := g.Span / time.Duration(max(g.Lines, 1))
	var buf []byte
	for i := range g.Lines {
		// A client chosen as the square of a uniform draw: low numbers
		// (the busy clients) are drawn far more often.
		u := rng.Float64()
		c := int(u * u * float64(clients))
		at := g.Start.Add(time.Duration(i) * step).In(time.FixedZone("", 2*3600))
		buf = buf[:0]
		buf = fmt.Appendf(buf, "10.%d.%d.%d - - [%s] \"GET %s HTTP/1.1\" 200 %d \"-\" \"%s\"\n",
			c>>16&255, c>>8&255, c&255, at.Format("02/Jan/2006:15:04:05 -0700"),
			paths[rng.IntN(len(paths))], 200+rng.IntN(5000), agents[rng.IntN(len(agents))])
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
