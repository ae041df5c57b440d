package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/policies"
)

// FieldError says which field of a scenario is wrong and why. Field is a
// JSON path such as "requests[3].at" or "policies[1].buckets"; it is empty
// for errors about the document as a whole (malformed JSON).
type FieldError struct {
	Field  string
	Reason string
}

func (e FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Errors is every problem found in one scenario, in document order.
type Errors []FieldError

// maxReported keeps an error message readable when a file is wrong
// everywhere; the first few problems are what a person fixes first.
const maxReported = 10

func (es Errors) Error() string {
	listed, stopped := es, len(es) > 0 && es[len(es)-1] == stoppedReading
	if stopped {
		listed = es[:len(es)-1]
	}
	msgs := make([]string, 0, min(len(listed), maxReported)+2)
	for i, e := range listed {
		if i == maxReported {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(listed)-maxReported))
			break
		}
		msgs = append(msgs, e.Error())
	}
	if stopped {
		msgs = append(msgs, stoppedReading.Reason)
	}
	return "invalid scenario: " + strings.Join(msgs, "; ")
}

// stoppedReading ends the Errors of a document that reached
// maxDecodeErrors: the rest was not read, so how many more problems it
// holds is not known, and neither the message nor a program reading the
// list should take the list for all of them.
var stoppedReading = FieldError{Reason: fmt.Sprintf("reading stopped after %d problems, so there may be more", maxDecodeErrors)}

// Field returns the reason given for one field, or "".
func (es Errors) Field(field string) string {
	for _, e := range es {
		if e.Field == field {
			return e.Reason
		}
	}
	return ""
}

// Decode reads one scenario of at most MaxBodyBytes from r and validates it
// as ParseRun does.
// Every error it returns is an Errors value naming the field and the reason.
func Decode(r io.Reader) (Scenario, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBodyBytes+1))
	if err != nil {
		return Scenario{}, Errors{{Reason: "reading scenario: " + err.Error()}}
	}
	if len(data) > MaxBodyBytes {
		return Scenario{}, TooLarge()
	}
	return ParseRun(data)
}

// TooLarge is what Decode says of input over MaxBodyBytes; the web server
// says the same of any request body over that bound, scenario or not.
func TooLarge() Errors {
	return Errors{{Reason: fmt.Sprintf("the input is larger than %d bytes (1 MiB), the most a scenario or any request may hold", MaxBodyBytes)}}
}

// wire is the JSON form: it accepts "policy" as a shorthand for a
// one-element "policies", and pointers tell a missing field from zero.
type wire struct {
	Limit    *int64          `json:"limit"`
	WindowMs *int64          `json:"windowMs"`
	Policy   json.RawMessage `json:"policy"` // decoded by decodePolicy
	Policies wireList        `json:"policies"`
	Requests wireList        `json:"requests"`
	Comment  json.RawMessage `json:"comment"` // free text for people; ignored
}

// wireList holds a list's elements undecoded, so that each is decoded on
// its own and a type error can name its index: encoding/json's own path
// ("requests.at") drops it.
type wireList []json.RawMessage

type wireRequest struct {
	At    *int64 `json:"at"`
	Key   string `json:"key"`
	Cost  *int64 `json:"cost"`
	Count *int64 `json:"count"`
	Probe bool   `json:"probe"`
}

// Parse decodes and validates one scenario held in memory. Its requests may
// be left out: a lesson's or a link's scenario may be settings alone.
func Parse(data []byte) (Scenario, error) { return parse(data, false) }

// ParseRun is Parse for a scenario someone asked to run (simulate, POST
// /api/simulate): its requests must be given, as a list ([] for none),
// since a run of none answers nothing, which reads as success.
func ParseRun(data []byte) (Scenario, error) { return parse(data, true) }

// parse is Parse, refusing a scenario without requests when needRequests.
func parse(data []byte, needRequests bool) (Scenario, error) {
	var w wire
	errs := decodeFields(data, &w, map[string]any{
		"limit": &w.Limit, "windowMs": &w.WindowMs, "policy": &w.Policy,
		"policies": &w.Policies, "requests": &w.Requests, "comment": &w.Comment,
	})
	if len(errs) == 1 && errs[0].Field == "" {
		return Scenario{}, errs // not a JSON object at all
	}
	if dup := duplicateKeys(data); len(dup) > 0 {
		errs = append(errs, dup...)
	}
	// Missing and null alike: wireList is nil for both. It is said with
	// whatever else is wrong, so it does not count as a broken field.
	var noRequests Errors
	if needRequests && w.Requests == nil && errs.Field("requests") == "" {
		noRequests = Errors{{"requests", "missing: give the list of requests, [] for none"}}
	}
	s := Scenario{}
	if w.Limit != nil {
		s.Limit = *w.Limit
	}
	if w.WindowMs != nil {
		s.WindowMs = *w.WindowMs
	}
	// A field or list element that did not decode leaves a gap that would
	// make the later checks speak of the wrong entry, or of a field as
	// missing that was only mistyped.
	broken := len(errs) > 0
	var one *PolicySpec
	if len(w.Policy) > 0 && string(w.Policy) != "null" { // null: left out
		one = &PolicySpec{}
		if es := decodePolicy(w.Policy, one); len(es) > 0 {
			errs = appendUnder(errs, "policy", es)
			broken = true
		}
	}
	var specs []PolicySpec
	if w.Policies != nil {
		specs = []PolicySpec{}
	}
	for i, raw := range w.Policies {
		if len(errs) >= maxDecodeErrors {
			break
		}
		var p PolicySpec
		if es := decodePolicy(raw, &p); len(es) > 0 {
			errs = appendUnder(errs, fmt.Sprintf("policies[%d]", i), es)
			broken = true
		}
		specs = append(specs, p)
	}
	switch {
	case one != nil && w.Policies != nil:
		errs = append(errs, FieldError{"policy", `give either "policy" or "policies", not both`})
	case one != nil:
		s.Policies = []PolicySpec{*one}
	default:
		s.Policies = specs
	}
	for i, raw := range w.Requests {
		if len(errs) >= maxDecodeErrors {
			break
		}
		var r wireRequest
		if es := decodeFields(raw, &r, map[string]any{
			"at": &r.At, "key": &r.Key, "cost": &r.Cost, "count": &r.Count, "probe": &r.Probe,
		}); len(es) > 0 {
			errs = appendUnder(errs, fmt.Sprintf("requests[%d]", i), es)
			broken = true
			continue
		}
		req := Request{Key: r.Key, Probe: r.Probe, Cost: 1, Count: 1}
		if r.At == nil {
			errs = append(errs, FieldError{fmt.Sprintf("requests[%d].at", i), "missing (milliseconds since the start)"})
		} else {
			req.At = *r.At
		}
		if r.Cost != nil {
			req.Cost = *r.Cost
		}
		if r.Count != nil {
			req.Count = *r.Count
		}
		s.Requests = append(s.Requests, req)
	}
	if len(errs) >= maxDecodeErrors {
		// The checks below would read a document only partly read, and
		// whatever they added would follow the entry that says reading
		// stopped, which must come last.
		return Scenario{}, append(errs[:maxDecodeErrors], stoppedReading)
	}
	if broken {
		return Scenario{}, append(errs, noRequests...)
	}
	errs = append(errs, s.validate(w.Limit != nil, w.WindowMs != nil)...)
	errs = append(errs, noRequests...)
	if one != nil && len(errs) > 0 {
		// validate speaks of the list; the person wrote the one policy,
		// perhaps as a bare name that has no ".name" to point at.
		for i, e := range errs {
			if rest, ok := strings.CutPrefix(e.Field, "policies[0]"); ok {
				if rest == ".name" && bytes.HasPrefix(bytes.TrimSpace(w.Policy), []byte(`"`)) {
					rest = ""
				}
				errs[i].Field = "policy" + rest
			}
		}
	}
	if len(errs) > 0 {
		return Scenario{}, errs
	}
	return s, nil
}

// maxDecodeErrors bounds the type errors Parse collects: a 10,000-request
// list that is wrong everywhere yields the first few, as Errors prints.
const maxDecodeErrors = 2 * maxReported

// decodeFields decodes the JSON object data into v. encoding/json stops
// reporting at the first mistyped or unknown field, so when there is one
// the object is decoded again field by field into fields (pointers into v,
// by JSON name) to report every one, each named. Anything else wrong (not
// JSON, not an object) is one error.
func decodeFields(data []byte, v any, fields map[string]any) Errors {
	err := strictUnmarshal(data, v)
	if err == nil {
		return nil
	}
	fe := jsonError(err)
	var typ *json.UnmarshalTypeError
	mistyped := errors.As(err, &typ) && typ.Field != "" // a field, not the whole value
	if !mistyped && fe.Reason != "unknown field" {
		return Errors{fe}
	}
	return decodeObject(data, fields)
}

// decodeObject decodes the JSON object data field by field into fields,
// each by its name, reporting every unknown or mistyped field (up to
// maxDecodeErrors), each named. data is one JSON object already read
// whole (a json.RawMessage of a valid document).
func decodeObject(data []byte, fields map[string]any) Errors {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the object's "{", already checked
		return Errors{jsonError(err)}
	}
	var errs Errors
	for dec.More() && len(errs) < maxDecodeErrors {
		tok, err := dec.Token()
		if err != nil {
			return append(errs, jsonError(err))
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return append(errs, jsonError(err))
		}
		dst, ok := fields[name]
		if !ok {
			errs = append(errs, FieldError{name, "unknown field"})
			continue
		}
		if err := strictUnmarshal(raw, dst); err != nil {
			errs = append(errs, elementError(name, err))
		}
	}
	return errs
}

// decodePolicy reads one policy, a bare name or an object. An object is
// read field by field, as decodeFields reads the scenario's own fields,
// so that every mistyped or unknown field in it is reported, each named
// ("burst"), not the first; its option fields are those of every option
// some policy takes (policies.Options), each read as the option says.
func decodePolicy(raw json.RawMessage, p *PolicySpec) Errors {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		if err := strictUnmarshal(raw, p); err != nil {
			return Errors{jsonError(err)}
		}
		return nil
	}
	// The numbers are read through pointers because 0 in a PolicySpec
	// means "left out": a 0 someone wrote would otherwise run silently as
	// the scenario's limit or window (options: see wireOption).
	var w struct {
		Name     string
		Limit    *int64
		WindowMs *int64
		wireDeployment
	}
	fields := map[string]any{
		"name": &w.Name, "limit": &w.Limit, "windowMs": &w.WindowMs,
		"nodes": &w.Nodes, "route": &w.Route, "seed": &w.Seed, "syncMs": &w.SyncMs,
		"central": &w.Central, "skewMs": &w.SkewMs,
	}
	opts := policies.Options()
	written := make([]wireOption, len(opts))
	for i, o := range opts {
		written[i].o = o
		fields[o.Name] = &written[i]
	}
	errs := decodeObject(raw, fields)
	*p = PolicySpec{Name: w.Name}
	errs = w.wireDeployment.read(&p.Deployment, errs)
	for _, f := range []struct {
		name, leftOut string
		v, dst        *int64
	}{
		{"limit", "the scenario's limit", w.Limit, &p.Limit},
		{"windowMs", "the scenario's window", w.WindowMs, &p.WindowMs},
	} {
		switch {
		case f.v == nil, errs.Field(f.name) != "": // left out, or mistyped and said so
		case *f.v == 0:
			errs = append(errs, FieldError{f.name, leaveOut(f.name, f.leftOut)})
		default:
			*f.dst = *f.v
		}
	}
	for _, wo := range written {
		if !wo.given || errs.Field(wo.o.Name) != "" {
			continue
		}
		if why := wo.setIn(p); why != "" {
			errs = append(errs, FieldError{wo.o.Name, why})
		}
	}
	return errs
}

// wireOption is one option's field of a policy object as written: a
// Choice's word, or a Number's whole number or its word. A Number's 0 is
// read apart from the field left out, since 0 in a PolicySpec means left
// out: a 0 someone wrote would otherwise run silently as the limit's
// burst or six buckets.
type wireOption struct {
	o     policies.Option
	given bool
	n     int64  // a Number's number, or its WordValue for its Word
	word  string // a Choice's word
}

// UnmarshalJSON reads the field as its option takes it. What it cannot
// read is a *json.UnmarshalTypeError or a wantError, so that decoding
// names the field ("policies[0].delay") as for any mistyped number.
func (w *wireOption) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil // as encoding/json reads null: left out
	}
	w.given = true
	if w.o.Kind == policies.Choice {
		return json.Unmarshal(b, &w.word)
	}
	if w.o.Word == "" {
		return json.Unmarshal(b, &w.n)
	}
	var word string
	if json.Unmarshal(b, &word) == nil && word == w.o.Word {
		w.n = w.o.WordValue
		return nil
	}
	if err := json.Unmarshal(b, &w.n); err != nil || w.n < 0 {
		return wantError{want: wordWant(w.o), got: string(b)}
	}
	return nil
}

// setIn sets the option in spec *p, or says why it was not: a 0 (or a
// negative burst) that may not be written.
func (w wireOption) setIn(p *PolicySpec) string {
	o := w.o
	if in, ok := policies.Lookup(p.Name); ok {
		if i := slices.IndexFunc(in.Options, func(x policies.Option) bool { return x.Name == o.Name }); i >= 0 {
			o = in.Options[i] // the policy's own (exp-histogram's k, not sliding-buckets')
		}
	}
	if o.Kind == policies.Choice {
		set := p.options()
		o.SetWord(&set, w.word)
		p.setOptions(set)
		return ""
	}
	v, ok := o.Read(p.Name, w.n)
	switch {
	case ok:
		*p = p.WithOption(o, v)
		return ""
	case w.n == 0 && notTaken(p.Name, o) != "":
		// "give at least 1" would be wrong advice: it takes none.
		return notTaken(p.Name, o)
	case w.n == 0:
		return leaveOut(o.Name, o.LeftOut)
	}
	return numberRange(o, w.n)
}

// leaveOut is why a 0 written for a setting that has a default when left
// out (a lane's limit or window, most options) is refused.
func leaveOut(field, leftOut string) string {
	return fmt.Sprintf("0 is not allowed: give at least 1, or leave %s out for %s", field, leftOut)
}

// numberRange is why a spec may not hold v for option o, a number below 1
// that is no word of its (the burst's -1 is NoQueue inside) or above
// MaxLimit.
func numberRange(o policies.Option, v int64) string {
	return fmt.Sprintf("%d is out of range (1 to %d, or leave it out for %s)", v, MaxLimit, o.LeftOut)
}

// wordWant is what an option with a word takes.
func wordWant(o policies.Option) string {
	return fmt.Sprintf("a whole number of permits or %q", o.Word)
}

// wantError is a field's value that is not of what the field takes.
type wantError struct{ want, got string }

func (e wantError) Error() string { return fmt.Sprintf("want %s, got %s", e.want, e.got) }

// wireDeployment is a policy object's deployment fields as written:
// pointers tell "nodes": 0 and "seed": 0 from left out.
type wireDeployment struct {
	Nodes   *int64  `json:"nodes"`
	Route   string  `json:"route"`
	Seed    *uint64 `json:"seed"`
	SyncMs  *int64  `json:"syncMs"`
	Central bool    `json:"central"`
	SkewMs  []int64 `json:"skewMs"`
}

// read copies the fields into d, adding to errs what only the written form
// shows (a 0 node count, a seed given for a route that draws none, more
// offsets than a Skews holds); validate checks the rest, for scenarios
// built in Go too.
func (w wireDeployment) read(d *Deployment, errs Errors) Errors {
	route := w.Route
	if route == "" {
		route = string(cluster.RoundRobin)
	}
	switch {
	case w.Nodes == nil, errs.Field("nodes") != "":
	case *w.Nodes < 1 || *w.Nodes > MaxNodes:
		errs = append(errs, FieldError{"nodes", nodesRange(*w.Nodes)})
	default:
		d.Nodes = int(*w.Nodes)
	}
	d.Route, d.Central = w.Route, w.Central
	if w.Seed != nil && errs.Field("seed") == "" {
		if route != string(cluster.Random) {
			errs = append(errs, FieldError{"seed", fmt.Sprintf(`only route "random" draws from a seed; this lane's route is %q`, route)})
		}
		d.Seed = *w.Seed
	}
	if w.SyncMs != nil {
		d.SyncMs = *w.SyncMs
	}
	if w.SkewMs != nil {
		var ok bool
		if d.SkewMs, ok = SkewsOf(w.SkewMs...); !ok {
			errs = append(errs, FieldError{"skewMs", fmt.Sprintf("%d entries; give one per node, at most %d", len(w.SkewMs), MaxNodes)})
		}
	}
	return errs
}

func nodesRange(n int64) string {
	return fmt.Sprintf("%d is out of range [1, %d] (servers running the policy)", n, MaxNodes)
}

// checkDeployment checks a lane's deployment against the bounds package
// cluster documents; field is the lane's path ("policies[0]").
func checkDeployment(add func(string, string, ...any), field string, d Deployment) {
	if d.Nodes < 0 || d.Nodes > MaxNodes {
		add(field+".nodes", "%s", nodesRange(int64(d.Nodes)))
		return
	}
	switch cluster.Route(d.Route) {
	case "", cluster.RoundRobin, cluster.Random, cluster.ByKey:
	default:
		add(field+".route", "%q is none of %q (the default), %q, %q", d.Route, cluster.RoundRobin, cluster.Random, cluster.ByKey)
	}
	if d.Seed != 0 && cluster.Route(d.Route) != cluster.Random {
		add(field+".seed", `only route "random" draws from a seed`)
	}
	if d.SyncMs < 0 || d.SyncMs > MaxSyncMs {
		add(field+".syncMs", "%d is out of range [0, %d] (milliseconds between syncs; 0 never syncs)", d.SyncMs, int64(MaxSyncMs))
	}
	nodes := max(d.Nodes, 1)
	if skews := d.SkewMs.Ms(); len(skews) > 0 && len(skews) != nodes {
		add(field+".skewMs", "%d entries for %d nodes: give one offset per node", len(skews), nodes)
	}
	for i, v := range d.SkewMs.Ms() {
		if v < -MaxSkewMs || v > MaxSkewMs {
			add(fmt.Sprintf("%s.skewMs[%d]", field, i), "%d is out of range [%d, %d] (milliseconds)", v, -int64(MaxSkewMs), int64(MaxSkewMs))
		}
	}
	if !d.Several() {
		// One server has no one to sync with, route to or be skewed
		// against: a field that changes nothing is likely a mistake.
		for _, f := range []struct {
			name  string
			given bool
		}{{"route", d.Route != ""}, {"syncMs", d.SyncMs != 0}, {"skewMs", d.SkewMs.n > 0}} {
			if f.given {
				add(field+"."+f.name, "applies to several servers only: give nodes above 1, or central")
			}
		}
	}
}

// appendUnder appends es, found in the part of the document at prefix, to
// errs, up to maxDecodeErrors in all.
func appendUnder(errs Errors, prefix string, es Errors) Errors {
	for _, e := range es {
		if len(errs) >= maxDecodeErrors {
			break
		}
		errs = append(errs, under(prefix, e))
	}
	return errs
}

// Validate checks a scenario built in Go (not decoded) against the same
// rules as Parse.
func (s Scenario) Validate() error {
	if errs := s.validate(s.Limit != 0, s.WindowMs != 0); len(errs) > 0 {
		return errs
	}
	return nil
}

func (s Scenario) validate(hasLimit, hasWindow bool) Errors {
	var errs Errors
	add := func(field, format string, args ...any) {
		errs = append(errs, FieldError{field, fmt.Sprintf(format, args...)})
	}
	specs := s.Specs()
	if len(specs) > MaxPolicies {
		add("policies", "%d policies; at most %d", len(specs), MaxPolicies)
		specs = specs[:MaxPolicies]
	}
	needLimit, needWindow := false, false
	instances := 0
	for i, p := range specs {
		field := fmt.Sprintf("policies[%d]", i)
		if !slices.Contains(policies.Names, p.Name) {
			add(field+".name", "unknown policy %q (want one of %s)", p.Name, strings.Join(policies.Names, ", "))
			continue
		}
		if p.Limit == 0 {
			needLimit = true
		} else {
			checkLimit(add, field+".limit", p.Limit)
		}
		if p.WindowMs == 0 {
			needWindow = true
		} else {
			checkWindow(add, field+".windowMs", p.WindowMs)
		}
		for _, o := range policies.Options() {
			if !o.Given(p.options()) {
				continue
			}
			if why := notTaken(p.Name, o); why != "" {
				add(field+"."+o.Name, "%s", why)
			}
		}
		if p.Burst < 0 && p.Burst != policies.NoQueue || p.Burst > MaxLimit {
			add(field+".burst", "%s", numberRange(policies.BurstOption, int64(p.Burst)))
		}
		if p.Delay < 0 && int64(p.Delay) != policies.NoDelay || p.Delay > MaxLimit {
			add(field+".delay", "%d is out of range (0 to the burst, or %q)", int64(p.Delay), policies.DelayOption.Word)
		}
		checkDeployment(add, field, p.Deployment)
		instances += p.instances()
	}
	if instances > MaxInstances {
		add("policies", "the lanes hold %d policies across their nodes (each node one, and 2 more per lane on several servers); at most %d", instances, MaxInstances)
	}
	if needLimit {
		if !hasLimit {
			add("limit", "missing (permits per window, a whole number from 1 to %d)", MaxLimit)
		} else {
			checkLimit(add, "limit", s.Limit)
		}
	}
	if needWindow {
		if !hasWindow {
			add("windowMs", "missing (the window in milliseconds, from 1 to %d)", int64(MaxWindowMs))
		} else {
			checkWindow(add, "windowMs", s.WindowMs)
		}
	}
	if len(errs) == 0 {
		// The policy's own checks (arithmetic names, bucket counts that
		// divide the window) speak for what is left.
		for i, p := range specs {
			var pe *policies.ParamError
			if _, err := policies.New(p.Name, p.Params(s)); errors.As(err, &pe) {
				// The policy names the field it refuses: point at it.
				add(fmt.Sprintf("policies[%d].%s", i, pe.Field), "%s", pe.Reason)
			} else if err != nil {
				add(fmt.Sprintf("policies[%d]", i), "%s", strings.TrimPrefix(err.Error(), "policies: "))
			} else if p.Several() {
				if _, err := cluster.New(p.config(s)); err != nil {
					add(fmt.Sprintf("policies[%d]", i), "%s", strings.TrimPrefix(err.Error(), "cluster: "))
				}
			}
		}
	}
	errs = append(errs, s.validateRequests()...)
	return errs
}

// notTaken says why the policy name takes no option o, or "" if it does:
// "only token-bucket and gcra take a burst", from the registry.
func notTaken(name string, o policies.Option) string {
	if in, ok := policies.Lookup(name); ok && in.Takes(o.Name) {
		return ""
	}
	takers := policies.Taking(o.Name)
	verb := "takes"
	if len(takers) > 1 {
		verb = "take"
	}
	return fmt.Sprintf("only %s %s %s", policies.JoinNames(takers), verb, o.Noun)
}

func checkLimit(add func(string, string, ...any), field string, v int64) {
	if v < 1 || v > MaxLimit {
		add(field, "%d is out of range (a whole number from 1 to %d)", v, MaxLimit)
	}
}

func checkWindow(add func(string, string, ...any), field string, v int64) {
	if v < 1 || v > MaxWindowMs {
		add(field, "%d is out of range (milliseconds, from 1 to %d)", v, int64(MaxWindowMs))
	}
}

func (s Scenario) validateRequests() Errors {
	var errs Errors
	add := func(i int, field, format string, args ...any) {
		errs = append(errs, FieldError{fmt.Sprintf("requests[%d].%s", i, field), fmt.Sprintf(format, args...)})
	}
	var total int64
	prev := int64(0)
	keys := map[string]string{} // hash → first key with that hash, to catch collisions
	for i, r := range s.Requests {
		if len(errs) >= maxReported {
			break
		}
		switch {
		case r.At < 0 || r.At > policies.MaxTime:
			add(i, "at", "%d is out of range (milliseconds, from 0 to %d)", r.At, int64(policies.MaxTime))
		case r.At < prev:
			add(i, "at", "%d is earlier than the request before it (%d): times must not go backwards", r.At, prev)
		default:
			prev = r.At
		}
		if r.Cost < 1 || r.Cost > MaxCost {
			add(i, "cost", "%d is out of range (a whole number from 1 to %d)", r.Cost, MaxCost)
		}
		if r.Count < 1 || r.Count > MaxCount {
			add(i, "count", "%d is out of range (a whole number from 1 to %d)", r.Count, MaxCount)
		} else if total += r.Count; total > MaxRequests {
			add(i, "count", "brings the scenario to %d requests; at most %d", total, MaxRequests)
			break
		}
		if len(r.Key) > MaxKeyLen {
			add(i, "key", "longer than %d bytes", MaxKeyLen)
			continue
		}
		name := r.KeyName()
		h := fmt.Sprint(policies.Mix32(name))
		if first, ok := keys[h]; ok && first != name {
			add(i, "key", "%q and %q hash to the same key; rename one", first, name)
		} else if !ok {
			if len(keys) == MaxKeys {
				add(i, "key", "more than %d distinct keys", MaxKeys)
				continue
			}
			keys[h] = name
		}
	}
	return errs
}

// KeyName is the request's key, or DefaultKey.
func (r Request) KeyName() string {
	if r.Key == "" {
		return DefaultKey
	}
	return r.Key
}

// UnmarshalJSON accepts a bare policy name or an object with options.
func (p *PolicySpec) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		*p = PolicySpec{}
		return json.Unmarshal(data, &p.Name)
	}
	type plain PolicySpec // no UnmarshalJSON: avoids recursion
	var v plain
	if err := strictUnmarshal(data, &v); err != nil {
		return err
	}
	*p = PolicySpec(v)
	return nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the scenario object")
	}
	return nil
}

// elementError is jsonError for one element of a list, its field prefixed
// with the element's place ("requests[2]").
func elementError(prefix string, err error) FieldError {
	return under(prefix, jsonError(err))
}

// under places a problem found in a part of the document at that part.
func under(prefix string, fe FieldError) FieldError {
	if fe.Field == "" || fe.Field == "scenario" {
		fe.Field = prefix
	} else {
		fe.Field = prefix + "." + fe.Field
	}
	return fe
}

// jsonError turns encoding/json's errors into a FieldError a person can act on.
func jsonError(err error) FieldError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var want wantError
	switch {
	case errors.As(err, &want):
		return FieldError{Reason: want.Error()}
	case errors.As(err, &syn):
		return FieldError{Reason: fmt.Sprintf("malformed JSON at byte %d: %v", syn.Offset, err)}
	case errors.As(err, &typ):
		want := typ.Type.String()
		switch want {
		case "int64", "*int64", "uint64", "*uint64":
			want = "a whole number"
		case "[]int64":
			want = "a list of whole numbers"
		case "string":
			want = "a string"
		case "bool":
			want = "true or false"
		case "scenario.wire":
			want = "a scenario object"
		case "scenario.wireRequest":
			want = "a request object"
		case "scenario.PolicySpec", "scenario.plain":
			want = "a policy name or an object"
		case "scenario.wireList":
			want = "a list"
		case "scenario.Delay":
			want = wordWant(policies.DelayOption)
		}
		field := typ.Field
		if field == "" {
			field = "scenario"
		}
		return FieldError{Field: field, Reason: fmt.Sprintf("want %s, got %s", want, typ.Value)}
	case errors.Is(err, io.EOF):
		return FieldError{Reason: "empty input: want a scenario object"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return FieldError{Reason: "malformed JSON: the input ends too early"}
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return FieldError{Field: strings.Trim(f, `"`), Reason: "unknown field"}
	}
	return FieldError{Reason: strings.TrimPrefix(msg, "json: ")}
}
