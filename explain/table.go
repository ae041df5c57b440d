package explain

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/windowlab/playground/scenario"
)

// Table prints the result side by side: one row per request, one
// column per policy, then a row of totals. Words, not colours or symbols
// alone, say what happened, so the table reads the same in any terminal.
func Table(w io.Writer, r scenario.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"#", "at", "key", "cost"}
	for _, p := range r.Results {
		if p.OneServer != nil { // several servers: which decided, first
			head = append(head, "node")
		}
		head = append(head, p.Label)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	if len(r.Results) > 0 {
		for i, d := range r.Results[0].Decisions {
			row := []string{strconv.Itoa(i + 1), scenario.FormatMs(d.At), d.Key, strconv.FormatInt(d.Cost, 10)}
			if d.Probe {
				row[3] = "probe"
			}
			for _, p := range r.Results {
				if p.OneServer != nil {
					row = append(row, NodeCell(p.Decisions[i]))
				}
				row = append(row, cell(p.Decisions[i]))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
	}
	total := []string{"", "", "admitted", ""}
	for _, p := range r.Results {
		if p.OneServer != nil {
			total = append(total, "")
		}
		total = append(total, fmt.Sprintf("%d of %d", p.Admitted, p.Admitted+p.Refused))
		if p.OneServer != nil {
			total[len(total)-1] += fmt.Sprintf(" (one server: %d)", *p.OneServer)
		}
	}
	fmt.Fprintln(tw, strings.Join(total, "\t"))
	return tw.Flush()
}
