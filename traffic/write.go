package traffic

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/windowlab/playground/scenario"
)

// WriteSummary writes what reading the log found, in two or three lines.
func WriteSummary(w io.Writer, s Summary) {
	gz := ""
	if s.Gzip {
		gz = ", gzip"
	}
	fmt.Fprintf(w, "%s (%s%s): %d lines, %d requests from %d clients (key %s), %s\n",
		s.Name, s.Format, gz, s.Lines, s.Requests, s.Clients, s.Key, s.Span())
	if s.OutOfOrder > 0 {
		fmt.Fprintf(w, "%d lines earlier than a line before them, decided by each policy's late rule\n", s.OutOfOrder)
	}
	if s.Unreadable > 0 {
		fmt.Fprintf(w, "%d lines unreadable and left out", s.Unreadable)
		for i, u := range s.Shown {
			sep := "; "
			if i == 0 {
				sep = ": "
			}
			fmt.Fprintf(w, "%sline %d: %s", sep, u.Line, u.Reason)
		}
		if s.Unreadable > int64(len(s.Shown)) {
			fmt.Fprint(w, "; …")
		}
		fmt.Fprintln(w)
	}
}

func pct(part, whole int64) string {
	if whole == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 2, 64) + "%"
}

// WriteText writes a report as tables: one line per policy, then each
// policy's clients refused most.
func WriteText(w io.Writer, r Report, top int) error {
	WriteSummary(w, r.Log)
	fmt.Fprintf(w, "limit %d per %s\n\n", r.Limit, scenario.FormatMs(r.WindowMs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\trequests\tadmitted\trefused\trefused %\tclients refused\tlate\t")
	for _, p := range r.Policies {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d of %d\t%d\t\n", p.Label, p.Requests, p.Admitted, p.Refused,
			pct(p.Refused, p.Requests), p.ClientsRefused, r.Log.Clients, p.Late)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range r.Policies {
		if p.ClientsRefused == 0 {
			continue
		}
		fmt.Fprintf(w, "\nrefused most by %s (peak: most requests in one %s window):\n", p.Label, scenario.FormatMs(r.WindowMs))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "client\trequests\tadmitted\trefused\tpeak\t")
		for i, c := range p.Clients {
			if i == top && top > 0 || c.Refused == 0 {
				break
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", c.Key, c.Requests, c.Admitted, c.Refused, c.Peak)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// WriteCSV writes a report as one table: a row per policy (client empty)
// followed by a row per client under it.
func WriteCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"policy", "label", "client", "requests", "admitted", "refused", "clientsRefused", "peak"})
	n := strconv.FormatInt
	for _, p := range r.Policies {
		_ = cw.Write([]string{p.Name, p.Label, "", n(p.Requests, 10), n(p.Admitted, 10), n(p.Refused, 10), strconv.Itoa(p.ClientsRefused), ""})
		for _, c := range p.Clients {
			_ = cw.Write([]string{p.Name, p.Label, c.Key, n(c.Requests, 10), n(c.Admitted, 10), n(c.Refused, 10), "", n(c.Peak, 10)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSweepText writes a sweep as a table: a row per limit, a column
// pair per policy (requests refused, clients refused).
func WriteSweepText(w io.Writer, r SweepReport) error {
	WriteSummary(w, r.Log)
	fmt.Fprintf(w, "window %s; each cell: requests refused / clients ever refused\n\n", scenario.FormatMs(r.WindowMs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "limit\t")
	for _, c := range r.Policies {
		fmt.Fprintf(tw, "%s\t", c.Label)
	}
	fmt.Fprintln(tw)
	if len(r.Policies) > 0 {
		for i := range r.Policies[0].Points {
			fmt.Fprintf(tw, "%d\t", r.Policies[0].Points[i].Limit)
			for _, c := range r.Policies {
				p := c.Points[i]
				fmt.Fprintf(tw, "%s / %s\t", pct(p.Refused, p.Requests), pct(int64(p.ClientsRefused), int64(p.Clients)))
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// WriteSweepCSV writes a sweep as a row per policy and limit.
func WriteSweepCSV(w io.Writer, r SweepReport) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"policy", "label", "limit", "requests", "refused", "refusedShare", "clients", "clientsRefused", "clientsRefusedShare"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	for _, c := range r.Policies {
		for _, p := range c.Points {
			_ = cw.Write([]string{c.Name, c.Label, strconv.FormatInt(p.Limit, 10), strconv.FormatInt(p.Requests, 10),
				strconv.FormatInt(p.Refused, 10), f(p.RefusedShare), strconv.Itoa(p.Clients), strconv.Itoa(p.ClientsRefused), f(p.ClientsShare)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteFitText writes each policy's fitted limit.
func WriteFitText(w io.Writer, r FitReport) error {
	WriteSummary(w, r.Log)
	fmt.Fprintf(w, "the smallest limit per %s with %s:\n\n", scenario.FormatMs(r.WindowMs), r.Target)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range r.Policies {
		if f.Limit == 0 {
			fmt.Fprintf(tw, "%s\tnone up to %d\t(%s of requests, %s of clients refused there)\n", f.Name, scenario.MaxLimit,
				pct(f.Point.Refused, f.Point.Requests), pct(int64(f.Point.ClientsRefused), int64(f.Point.Clients)))
			continue
		}
		fmt.Fprintf(tw, "%s\tlimit %d\t(%s of requests, %s of clients refused; %d limits tried)\n", f.Label, f.Limit,
			pct(f.Point.Refused, f.Point.Requests), pct(int64(f.Point.ClientsRefused), int64(f.Point.Clients)), f.Tried)
	}
	return tw.Flush()
}

// WriteFitCSV writes a row per policy.
func WriteFitCSV(w io.Writer, r FitReport) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"policy", "limit", "refusedShare", "clientsRefusedShare", "tried"})
	for _, f := range r.Policies {
		_ = cw.Write([]string{f.Name, strconv.FormatInt(f.Limit, 10), strconv.FormatFloat(f.Point.RefusedShare, 'f', 6, 64),
			strconv.FormatFloat(f.Point.ClientsShare, 'f', 6, 64), strconv.Itoa(f.Tried)})
	}
	cw.Flush()
	return cw.Error()
}
