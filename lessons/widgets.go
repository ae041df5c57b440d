package lessons

import (
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strconv"

	"github.com/windowlab/playground/limiter/redisbench"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// inputInt reads a visitor's number from the page's query, falling back to
// def when it is missing or unreadable, and clamping it to [lo, hi]. A
// problem names the field by label, as the visitor sees it on the page,
// not by its name in the address.
func (st *renderState) inputInt(name, label string, def, lo, hi int64) (int64, string) {
	raw := st.in.Get(name)
	if raw == "" {
		return def, ""
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return def, st.inputProblem(fmt.Sprintf("%s: “%s” is not a whole number, so %d is used.", label, raw, def))
	}
	if n < lo || n > hi {
		c := min(max(n, lo), hi)
		return c, st.inputProblem(fmt.Sprintf("%s: %d is outside %d to %d, so %d is used.", label, n, lo, hi, c))
	}
	return n, ""
}

// inputProblem records what was wrong with a visitor's input and returns
// the message for the widget to show.
func (st *renderState) inputProblem(msg string) string {
	st.out.InputProblems = append(st.out.InputProblems, msg)
	return msg
}

// maxRingK bounds the k a visitor may ask the ring widget for: each k is
// one more run of the lesson's traffic, and its table one more row.
const maxRingK = 1000

// ringK reads the visitor's ?k=. A k the widget does not list is added to
// the comparison when it divides the window into whole milliseconds; any
// other k is refused with a message naming the nearest ones that do.
func (st *renderState) ringK(windowMs int64) (k int64, warn string) {
	raw := st.in.Get("k")
	if raw == "" {
		return 0, ""
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err != nil:
		return 0, st.inputProblem(fmt.Sprintf("k: “%s” is not a whole number.", raw))
	case n < 1 || n > maxRingK:
		return 0, st.inputProblem(fmt.Sprintf("k: %d is outside 1 to %d.", n, maxRingK))
	case windowMs%n != 0:
		below, above := n-1, n+1
		for windowMs%below != 0 {
			below--
		}
		for above <= maxRingK && windowMs%above != 0 {
			above++
		}
		near := fmt.Sprintf("k = %d", below)
		if above <= maxRingK {
			near += fmt.Sprintf(" or k = %d", above)
		}
		return 0, st.inputProblem(fmt.Sprintf("k: %d does not divide the %s window into equal sub-buckets of whole milliseconds (%s ÷ %d = %s ms), so the ring refuses it. The nearest that do: %s.",
			n, scenario.FormatMs(windowMs), groupDigits(windowMs), n, strconv.FormatFloat(float64(windowMs)/float64(n), 'f', 2, 64), near))
	}
	return n, ""
}

// memoryBlock is the JSON of a ```memory-calculator block.
type memoryBlock struct {
	Limit    int64    `json:"limit"`
	Keys     int64    `json:"keys"`
	Policies []string `json:"policies"`
}

type memoryRow struct {
	Policy  string
	Numbers int64
	PerKey  string
	Total   string
}

func (st *renderState) memoryCalculator(body []byte) (template.HTML, error) {
	var b memoryBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	if len(b.Policies) == 0 {
		b.Policies = lessonRefs(false)
	}
	const maxKeys = 1_000_000_000
	var warns []string
	limit, w1 := st.inputInt("limit", "Limit (permits per window)", b.Limit, 1, policies.MaxLimit)
	keys, w2 := st.inputInt("keys", "Keys (clients tracked)", b.Keys, 1, maxKeys)
	for _, w := range []string{w1, w2} {
		if w != "" {
			warns = append(warns, w)
		}
	}
	var rows []memoryRow
	t := Table{Caption: "memory", Head: []string{"policy", "numbers per key", "bytes per key", "all keys"}}
	for _, ref := range b.Policies {
		spec, err := scenario.ParsePolicyRef(ref)
		if err != nil {
			return "", err
		}
		window := int64(1000)
		if o, ok := divisor(spec.Name); ok {
			window = 1000 * spec.Option(o) // a whole number of ms per sub-bucket
		}
		per, err := EntryBytesPerKey(spec, limit, window)
		if err != nil {
			return "", err
		}
		r := memoryRow{Policy: ref, Numbers: per / 8, PerKey: FormatBytes(per), Total: FormatBytes(per * keys)}
		rows = append(rows, r)
		t.Rows = append(t.Rows, []string{r.Policy, strconv.FormatInt(r.Numbers, 10), r.PerKey, r.Total})
	}
	st.out.Tables = append(st.out.Tables, t)
	warn := ""
	for _, w := range warns {
		warn += w + " "
	}
	return renderHTML(memoryWidget(memoryView{
		Keep:  st.openValues(),
		Limit: limit, Keys: keys, KeysText: groupDigits(keys), Rows: rows, Warn: warn,
		MaxLimit: policies.MaxLimit, MaxKeys: maxKeys,
	}))
}

// groupDigits writes 1000000 as 1,000,000.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ringBlock is the JSON of a ```bucket-ring block: traffic to run, and the
// k values to compare between the fixed window and the sliding log.
type ringBlock struct {
	Scenario scenarioRef `json:"scenario"`
	Ks       []int64     `json:"ks"`
	K        int64       `json:"k"` // the k selected by default
}

type ringRow struct {
	Name      string
	Slots     int64
	Bytes     string
	Admitted  int
	Accuracy  Accuracy
	MaxError  string
	Selected  bool
	KLink     string
	KValue    int64
	HasKValue bool
}

func (st *renderState) bucketRing(body []byte) (template.HTML, error) {
	var b ringBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	s, err := st.resolve(b.Scenario)
	if err != nil {
		return "", err
	}
	if len(b.Ks) == 0 {
		return "", fmt.Errorf("ks: list the k values to compare")
	}
	ks := slices.Clone(b.Ks)
	slices.Sort(ks)
	def := b.K
	if def == 0 {
		def = ks[0]
	}
	asked, warn := st.ringK(s.WindowMs)
	if asked != 0 && !slices.Contains(ks, asked) {
		ks = append(ks, asked)
		slices.Sort(ks)
	}
	idx := slices.Index(ks, def)
	if asked != 0 {
		idx = slices.Index(ks, asked)
	}
	if raw := st.in.Get("ki"); raw != "" { // the slider sends a position
		if n, err := strconv.Atoi(raw); err == nil && n >= 0 && n < len(ks) {
			idx = n
		} else {
			warn = st.inputProblem(fmt.Sprintf("Choose k: “%s” is not a position on the slider (0 to %d).", raw, len(ks)-1))
		}
	}
	if idx < 0 {
		idx = 0
	}
	specs := []scenario.PolicySpec{{Name: policies.FixedWindow}}
	for _, k := range ks {
		specs = append(specs, scenario.PolicySpec{Name: policies.SlidingBuckets, Buckets: k})
	}
	specs = append(specs, scenario.PolicySpec{Name: policies.SlidingLog})
	res, err := runEach(s, specs)
	if err != nil {
		return "", err
	}
	// Estimates with every request counted, against the exact count.
	errs, err := EstimateErrors(s, specs)
	if err != nil {
		return "", err
	}
	logRes := res.Results[len(specs)-1]
	var rows []ringRow
	for i, p := range res.Results {
		per, err := EntryBytesPerKey(specs[i], s.Limit, s.WindowMs)
		if err != nil {
			return "", err
		}
		r := ringRow{Name: p.Label, Slots: per / 8, Bytes: FormatBytes(per), Admitted: p.Admitted}
		if r.Accuracy, err = AgainstExactLog(s, p); err != nil {
			return "", err
		}
		r.MaxError = strconv.FormatFloat(errs[i].Worst, 'f', 2, 64)
		if i > 0 && i < len(specs)-1 {
			k := specs[i].Buckets
			r.HasKValue, r.KValue = true, k
			q := st.keepOpen(url.Values{"k": {strconv.FormatInt(k, 10)}})
			r.KLink = "?" + q.Encode() + "#ring"
			r.Selected = i-1 == idx
		}
		rows = append(rows, r)
	}
	t := Table{Caption: "ring", Head: []string{"policy", "numbers kept per key", "bytes per key", "admitted", "wrongly allowed", "wrongly refused", "most in one window", "largest estimate error"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.Name, strconv.FormatInt(r.Slots, 10), r.Bytes, strconv.Itoa(r.Admitted),
			strconv.Itoa(r.Accuracy.WronglyAllowed), strconv.Itoa(r.Accuracy.WronglyRefused), strconv.FormatInt(r.Accuracy.MostInWindow, 10), r.MaxError})
	}
	st.out.Tables = append(st.out.Tables, t)
	total := 0
	for _, d := range logRes.Decisions {
		if !d.Probe {
			total++
		}
	}
	return renderHTML(ringWidget(ringView{
		Keep: st.openValues(),
		K:    ks[idx], Ks: ks, Index: idx, Rows: rows, Selected: rows[idx+1], Warn: warn,
		Total: total, Limit: s.Limit, Window: scenario.FormatMs(s.WindowMs),
	}))
}

// comparedShapes are the traffic shapes the comparison offers, in the
// order it shows them.
var comparedShapes = []scenario.Shape{scenario.Steady, scenario.Poisson, scenario.Bursty, scenario.EndLoaded, scenario.Adversarial}

// lessonBuckets is the k a widget gives a policy that takes sub-buckets
// when the block names no policies: finer than the default 6, as the
// lessons compare a ring of ten.
const lessonBuckets = 10

// lessonRefs are the policies a widget shows when its block names none:
// every registered policy in the registry's order, sub-buckets at
// lessonBuckets, and, when eachChoice, once per choice of a choice option
// (sliding-counter/floor and /exact: their accuracy differs, their memory
// does not).
func lessonRefs(eachChoice bool) []string {
	var out []string
	for _, in := range policies.Registered() {
		spec := scenario.PolicySpec{Name: in.Name}
		if o, ok := in.Divisor(); ok {
			spec = spec.WithOption(o, lessonBuckets)
		}
		if o, ok := in.Choice(); ok && eachChoice {
			for i := range o.Choices {
				out = append(out, spec.WithOption(o, int64(i)).Ref())
			}
			continue
		}
		out = append(out, spec.Ref())
	}
	return out
}

// compareBlock is the JSON of a ```compare block.
type compareBlock struct {
	Limit    int64          `json:"limit"`
	WindowMs int64          `json:"windowMs"`
	Windows  int            `json:"windows"`
	Shape    scenario.Shape `json:"shape"`
	Seed     uint64         `json:"seed"`
	Policies []string       `json:"policies"`
}

type compareRow struct {
	Policy   string
	Admitted int
	Accuracy Accuracy
	Bytes    string
	// Redis is the policy's row in the committed Redis measurement.
	Redis redisbench.Row
}

func (st *renderState) compare(body []byte) (template.HTML, error) {
	var b compareBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	if len(b.Policies) == 0 {
		b.Policies = lessonRefs(true)
	}
	shape := b.Shape
	if in := scenario.Shape(st.in.Get("shape")); slices.Contains(comparedShapes, in) {
		shape = in
	}
	seed, _ := st.inputInt("seed", "Seed", int64(b.Seed), 0, 1_000_000)
	var specs []scenario.PolicySpec
	for _, ref := range b.Policies {
		spec, err := scenario.ParsePolicyRef(ref)
		if err != nil {
			return "", err
		}
		specs = append(specs, spec)
	}
	runShape := func(shape scenario.Shape) (scenario.Scenario, scenario.Result, []Accuracy, error) {
		times, err := scenario.AtRate(shape, b.Limit, b.WindowMs, int64(b.Windows), uint64(seed)).Times()
		if err != nil {
			return scenario.Scenario{}, scenario.Result{}, nil, err
		}
		s := scenario.Scenario{Limit: b.Limit, WindowMs: b.WindowMs, Policies: specs, Requests: scenario.Requests(times, "", 1)}
		res, err := scenario.Run(s)
		if err != nil {
			return s, res, nil, err
		}
		var acc []Accuracy
		for _, p := range res.Results {
			a, err := AgainstExactLog(s, p)
			if err != nil {
				return s, res, nil, err
			}
			acc = append(acc, a)
		}
		return s, res, acc, nil
	}
	s, res, acc, err := runShape(shape)
	if err != nil {
		return "", err
	}
	total := len(res.Results[0].Decisions)
	bench, err := redisbench.Committed()
	if err != nil {
		return "", err
	}
	var rows []compareRow
	t := Table{Caption: "compare " + string(shape), Head: []string{"policy", "admitted", "wrongly allowed", "wrongly refused", "most in one window", "bytes", "redis"}}
	for i, p := range res.Results {
		per, err := EntryBytesPerKey(specs[i], b.Limit, b.WindowMs)
		if err != nil {
			return "", err
		}
		red, err := measuredOnRedis(bench, specs[i], s)
		if err != nil {
			return "", err
		}
		r := compareRow{Policy: p.Label, Admitted: p.Admitted, Accuracy: acc[i], Bytes: FormatBytes(per), Redis: red}
		rows = append(rows, r)
		t.Rows = append(t.Rows, []string{r.Policy, strconv.Itoa(r.Admitted), strconv.Itoa(acc[i].WronglyAllowed), strconv.Itoa(acc[i].WronglyRefused),
			strconv.FormatInt(acc[i].MostInWindow, 10), r.Bytes, redisFigures(red)})
	}
	st.out.Tables = append(st.out.Tables, t)
	var names []string
	for _, p := range res.Results {
		names = append(names, p.Label)
	}
	var matrix [][]string
	for _, sh := range comparedShapes {
		_, _, shapeAcc, err := runShape(sh)
		if err != nil {
			return "", err
		}
		row := []string{string(sh)}
		for _, a := range shapeAcc {
			row = append(row, fmt.Sprintf("%s wrong; at most %d", a.Wrong(), a.MostInWindow))
		}
		matrix = append(matrix, row)
	}
	return renderHTML(compareWidget(compareView{
		Keep:   st.openValues(),
		Shapes: comparedShapes, Shape: shape, Seed: seed, Rows: rows, Total: total,
		Limit: b.Limit, Window: scenario.FormatMs(b.WindowMs), Names: names, Matrix: matrix,
		Play: scenario.EncodeURL(s), Bench: bench, BenchPath: redisbench.Path,
	}))
}

// measuredOnRedis is spec's row in the committed Redis measurement, found
// by its policy and arithmetic as it runs in s; an error names the policy
// and the command that measures it when the file has no such row.
func measuredOnRedis(bench redisbench.Report, spec scenario.PolicySpec, s scenario.Scenario) (redisbench.Row, error) {
	p, err := policies.Normalised(spec.Name, spec.Params(s))
	if err != nil {
		return redisbench.Row{}, err
	}
	row, ok := bench.Of(spec.Name, string(p.Arithmetic))
	if !ok {
		return redisbench.Row{}, fmt.Errorf("lessons: %s %s has no row in %s (run %s)", spec.Name, p.Arithmetic, redisbench.Path, redisbench.Command)
	}
	return row, nil
}

// redisFigures is a row's commands and round trips per decision as the
// comparison shows them.
func redisFigures(r redisbench.Row) string {
	return fmt.Sprintf("%.2f commands, %.2f round trips", r.Commands, r.RoundTrips)
}

// runEach runs the scenario once per spec, so a comparison may hold more
// policies than one scenario allows.
func runEach(s scenario.Scenario, specs []scenario.PolicySpec) (scenario.Result, error) {
	var out scenario.Result
	for _, spec := range specs {
		one := s
		one.Policies = []scenario.PolicySpec{spec}
		res, err := scenario.Run(one)
		if err != nil {
			return out, err
		}
		out.Results = append(out.Results, res.Results[0])
	}
	return out, nil
}
