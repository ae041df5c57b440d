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

// measures says, for each word a policy calls its number (estimateWord),
// what the number in a table cell's brackets means, so that a reader of
// "REFUSED (100.67, …)" at limit 100 knows it is no count.
var measures = map[string]string{
	"count":         "the requests the window held before this one, compared with the limit",
	"estimate":      "the weighted count of the windows before this one, compared with the limit",
	"in use":        "the permits in use before this one (the burst less those available), compared with the burst",
	"in the bucket": "the permits in the bucket before this one, the one being served included, compared with the burst + 1 (the queue and its head), so it may pass the limit",
}

// TableLegend writes, after Table, one line per measure the table's
// brackets hold, naming the lanes that use it and what each compares it
// with: a count, a weighted estimate, permits in use, a queue's level.
func TableLegend(w io.Writer, r scenario.Result) error {
	var order []string
	lanes := map[string][]string{}
	for _, p := range r.Results {
		word := wordingOf(p.Policy).estimateWord()
		if _, ok := lanes[word]; !ok {
			order = append(order, word)
		}
		capacity := ""
		for _, d := range p.Decisions {
			if !d.Probe {
				capacity = fmt.Sprintf(" against %d", d.Detail.Capacity)
				break
			}
		}
		lanes[word] = append(lanes[word], p.Label+capacity)
	}
	var b strings.Builder
	b.WriteString("\nIn brackets, the policy's number before the request, then a refusal's wait or a queued request's:\n")
	for _, word := range order {
		meaning, ok := measures[word]
		if !ok {
			meaning = "the policy's estimate before this one, compared with its capacity"
		}
		fmt.Fprintf(&b, "  %s (%s): %s\n", word, strings.Join(lanes[word], "; "), meaning)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
