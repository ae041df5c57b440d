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
				row = append(row, cell(p.Decisions[i]))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
	}
	total := []string{"", "", "admitted", ""}
	for _, p := range r.Results {
		total = append(total, fmt.Sprintf("%d of %d", p.Admitted, p.Admitted+p.Refused))
	}
	fmt.Fprintln(tw, strings.Join(total, "\t"))
	return tw.Flush()
}
