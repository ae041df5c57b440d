package policies

import "strconv"

// A Variant is one registered policy with its options as the benchmarks
// measure it and their report names it: once per word of a Choice option
// (sliding-counter floor and exact compute differently), each Number that
// has a default at it (k=6), the rest left for the policy to derive.
type Variant struct {
	// Label names it in benchmark names: the policy's name, then each
	// Choice's word and each defaulted Number as its Label and value:
	// "sliding-counter-floor", "sliding-buckets-k6".
	Label string
	// Title names it in tables: "sliding-counter floor",
	// "sliding-buckets k=6".
	Title string
	Name  string
	// Params holds its options; Limit and WindowMs are the caller's.
	Params Params
	// Flat is true when the policy's state is a few numbers a key, with no
	// ring (timestamps, buckets) whose length its parameters set: the
	// small-state policies the speed goals hold to the map fixed window.
	Flat bool
}

// Variants lists every registered policy's variants, in registry order.
func Variants() []Variant {
	var out []Variant
	for _, in := range registry {
		vs := []Variant{{Label: in.Name, Title: in.Name, Name: in.Name}}
		for _, o := range in.Options {
			var next []Variant
			for _, v := range vs {
				switch {
				case o.Kind == Choice:
					for i, w := range o.Choices {
						c := v
						o.set(&c.Params, int64(i))
						c.Label, c.Title = c.Label+"-"+w, c.Title+" "+w
						next = append(next, c)
					}
				case o.Default != 0:
					o.set(&v.Params, o.Default)
					v.Label += "-" + o.Label + strconv.FormatInt(o.Default, 10)
					v.Title += " " + o.Describe(o.Default)
					next = append(next, v)
				default:
					next = append(next, v)
				}
			}
			vs = next
		}
		for i := range vs {
			vs[i].Flat = holdsNoRing(in, vs[i].Params)
		}
		out = append(out, vs...)
	}
	return out
}

// holdsNoRing reports whether the policy's keys hold no ring at parameters
// p with a limit and a window every policy takes.
func holdsNoRing(in Info, p Params) bool {
	p.Limit, p.WindowMs = 100, 60_000
	l, err := newPolicy(in.Name, p)
	if err != nil {
		panic("policies: a variant of " + in.Name + " does not build: " + err.Error()) // TestVariants builds every one
	}
	r, ok := l.(interface{ ringLen() int64 })
	return ok && r.ringLen() == 0
}
