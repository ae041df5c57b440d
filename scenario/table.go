package scenario

import (
	"fmt"
	"io"
	"math/big"
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

// FormatFraction writes a fraction the way every page prints numbers: exactly
// when it has at most three decimal places (4, 4.5, 4.995), otherwise
// rounded to two (4.17).
func FormatFraction(f policies.Fraction) string {
	if f.Den == 0 {
		return "0"
	}
	r := new(big.Rat).SetFrac64(f.Num, f.Den)
	for places := 0; places <= 3; places++ {
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt64(pow10(places)))
		if scaled.IsInt() {
			return r.FloatString(places)
		}
	}
	// Two decimals, unless that would print a whole number for a value that
	// is not one (4.00 for 4.00017 hides the fact that it exceeds 4).
	for places := 2; places < 6; places++ {
		text := r.FloatString(places)
		if strings.TrimRight(strings.TrimRight(text, "0"), ".") != strings.Split(text, ".")[0] {
			return text
		}
	}
	return r.FloatString(6)
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}
