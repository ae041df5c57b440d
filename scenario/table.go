package scenario

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/windowlab/playground/policies"
)

// WriteTable prints the result side by side: one row per request, one
// column per policy, then a row of totals. Words, not colours or symbols
// alone, say what happened, so the table reads the same in any terminal.
func (r Result) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"#", "at", "key", "cost"}
	for _, p := range r.Results {
		head = append(head, p.Label)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	if len(r.Results) > 0 {
		for i, d := range r.Results[0].Decisions {
			row := []string{strconv.Itoa(i + 1), FormatMs(d.At), d.Key, strconv.FormatInt(d.Cost, 10)}
			if d.Probe {
				row[3] = "probe"
			}
			for _, p := range r.Results {
				row = append(row, Cell(p.Decisions[i]))
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

// Cell describes one decision in a few words: the outcome, the estimate
// before it and, for a refusal, the wait.
func Cell(d Decision) string {
	est := FormatFraction(d.Estimate)
	if d.Probe {
		return "estimate " + est
	}
	if d.Detail.Allowed {
		return "admit (" + est + ")"
	}
	if retry, ok := d.RetryAfter(); ok {
		return fmt.Sprintf("REFUSE (%s, retry %s)", est, FormatMs(retry))
	}
	return "REFUSE (" + est + ", never)"
}

// FormatFraction shows a whole number as is and anything else to two
// decimals, the precision the lessons print.
func FormatFraction(f policies.Fraction) string {
	if f.Den != 0 && f.Num%f.Den == 0 {
		return strconv.FormatInt(f.Num/f.Den, 10)
	}
	return strconv.FormatFloat(f.Float(), 'f', 2, 64)
}
