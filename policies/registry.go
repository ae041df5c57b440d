package policies

import (
	"fmt"
	"slices"
	"strings"
)

// The registry is the one list of policies. Every layer that names, builds,
// decodes, offers, words, draws, asks or runs a policy iterates it (or looks
// a name up in it) instead of switching on the name.
//
// Adding a policy, say stepped-bucket, adds these files and one line below,
// and touches nothing else:
//
//   - policies/stepped_bucket.go: its name constant and Info (name, human
//     name, the words a learner may write for it, the Options it takes,
//     make: newKeyed of its rule); its rule, a type implementing Rule[S]
//     on a state type S of its own (Decide, Allow, Never, Unseen, Peek,
//     Snapshot, Absorb, Stats, and RingLen, Fresh and Clone, which
//     flatState gives a state holding no ring), with its exported
//     constructor NewSteppedBucketRule (ruleOf); its terms type (at most
//     termsWords numbers) with its tag (termsTag of its name), fill and the
//     Terms.SteppedBucket accessor; and its Held type for State. The
//     compiler demands each of these of the rule; a policy whose hot path
//     is measured embeds keyed in a type of its own that calls the rule's
//     Allow itself (see fixedWindowPolicy);
//   - policies/stepped_bucket_test.go: its table tests, and an init that
//     registers its policyCase (the small domain TestRuleCopiesAgree walks
//     exhaustively, and whether its Absorb keeps instants apart);
//     testdata/stepped-bucket-*.json: its vectors, worked out by hand;
//   - explain/stepped_bucket.go: its wording (the explain.wording
//     interface: name, working, state and status lines, legend, steps,
//     what to work out), registered from that file's init;
//   - lane/stepped_bucket.go (or .templ, with its generated file): its
//     state drawing (lane.stateDrawing, or nothingHeld when its estimate's
//     curve says it all), registered from that file's init;
//   - limiter/stepped_bucket.go: its Redis form (redisForm) and its
//     concurrent form (registerSlots with NewSteppedBucketRule), registered
//     from that file's init; limiter/redis/stepped_bucket.lua: its script,
//     after redis/prelude.lua, deciding as the rule does;
//   - lessons/sections/LESSON.stepped-bucket.md: what a lesson says of it,
//     appended to that lesson (see lessons/sections/README.md), with any
//     scenario it names in lessons/scenarios/; exercises/*.json: an
//     exercise or more, whose "lesson" links it from the lesson's page;
//   - the line `steppedBucketInfo,` in registry below.
//
// Then regenerate what is measured of every policy, in a commit of its
// own: the Redis forms' figures (limiter/redisbench.Command), which the
// lessons' comparison shows, and the benchmark tables (scripts/bench.sh).
//
// Tests in policies, explain, lane, limiter and lessons check that every
// registry entry builds, has its cases and vectors, is worded, is drawn,
// has a concurrent and a Redis form agreeing with it, and is measured.
//
// A policy taking options that others take already lists them in its
// Info.Options and needs nothing more: short refs, labels, the results'
// params, validation messages, the playground's form and its error labels
// iterate the options. An option no policy took before is declared once
// next to the others in this file (Option: its field of Params through get
// and set, default, bounds, label, help, noun, word, what it runs with when
// left out, its checks in normalise, and read and written where a scenario
// writes some value otherwise), and, being a new field, is added where
// fields are spelled out: Params here, and in scenario the spec's field,
// PolicySpec.options/setOptions, and ParamsOut. Scenario decoding, conform's
// counterexamples and the conform command's flags iterate Options.
var registry = []Info{
	fixedWindowInfo,
	slidingLogInfo,
	slidingCounterInfo,
	slidingBucketsInfo,
	tokenBucketInfo,
	gcraInfo,
	leakyBucketInfo,
	steppedBucketInfo,
	expHistogramInfo,
}

// Info describes one policy: what scenarios, URLs and JSON call it, what
// people call it, the options it takes besides its limit and window, and
// how to build it.
type Info struct {
	Name  string // "sliding-counter"
	Human string // "sliding counter"
	// Words are what a learner may write for the policy besides its
	// name: "log", "counter".
	Words []string
	// Options are the settings the policy takes besides Limit and
	// WindowMs, in the order forms show them.
	Options []Option
	// Windows is true for a policy that counts permits in windows of
	// WindowMs aligned to the epoch, which its lanes draw with the permits
	// each admitted.
	Windows bool
	// Refills is true for a policy that gives room back as time passes
	// (a bucket, GCRA) rather than as requests leave a window, so that an
	// answer off by a whole window is no miscount of it.
	Refills bool
	// make builds the policy from parameters that New has validated and
	// normalised: newKeyed of the policy's rule, or a policy type that
	// embeds it (see keyed).
	make func(Params) Local
}

// Takes reports whether the policy takes the option named o.
func (i Info) Takes(o string) bool {
	return slices.ContainsFunc(i.Options, func(opt Option) bool { return opt.Name == o })
}

// Choice is the Choice option the policy takes (sliding-counter's
// arithmetic), whose words pages may show as policies of their own.
func (i Info) Choice() (Option, bool) {
	return i.first(func(o Option) bool { return o.Kind == Choice })
}

// Divisor is the option that splits the policy's window into that many
// sub-buckets (Option.DividesWindow: sliding-buckets' k), if it takes one.
func (i Info) Divisor() (Option, bool) {
	return i.first(func(o Option) bool { return o.DividesWindow })
}

func (i Info) first(is func(Option) bool) (Option, bool) {
	if j := slices.IndexFunc(i.Options, is); j >= 0 {
		return i.Options[j], true
	}
	return Option{}, false
}

// OptionKind is what values an option holds.
type OptionKind int

const (
	// Choice is one word of Option.Choices.
	Choice OptionKind = iota + 1
	// Number is a whole number in [Option.Min, Option.Max].
	Number
)

// Option is one setting a policy takes besides its limit and window.
type Option struct {
	// Name is the option's field in scenarios and JSON, and its signal in
	// the playground's form: "arithmetic", "buckets", "burst".
	Name  string
	Label string // what a form's field calls it: "k"
	Help  string // a form's hint beside the field, "" for none
	Kind  OptionKind
	// Choices are the words a Choice option takes, its default first.
	Choices []string
	// Default is what a Number option runs with when a spec leaves it out;
	// 0 means the policy derives it (burst: the limit).
	Default  int64
	Min, Max int64
	// Word is one word a Number option takes besides its numbers, standing
	// for WordValue ("nodelay": NoDelay); "" for none.
	Word      string
	WordValue int64
	// Labels is how a lane's label writes a Number's value, a format of
	// one %d: "k=%d", "burst %d".
	Labels string
	// Noun is how a sentence names the option: "an arithmetic", "buckets".
	Noun string
	// DividesWindow is true for a Number the window must be a whole
	// multiple of (k sub-buckets of equal whole milliseconds), which a
	// form checks before the policy refuses it.
	DividesWindow bool
	// normalise checks the option in p for the named policy and fills its
	// default, returning an error that names the option.
	normalise func(policy string, p *Params) error
	// get and set are the option's field of Params, as a number: a
	// Choice's is the index of its word in Choices.
	get func(Params) int64
	set func(*Params, int64)
	// given, if set, is Given for an option whose zero value Of cannot
	// tell from its default (a Choice's empty word).
	given func(Params) bool
	// word, for a Choice, sets its field to a word as written, one of
	// Choices or not (normalise refuses the others, naming them).
	word func(*Params, string)
	// LeftOut is what a Number runs with when a spec leaves it out, as a
	// sentence ends "leave burst out for …": "a burst equal to the limit",
	// "6 buckets". A Number with a LeftOut may not be written 0 (0 is how
	// Params says "left out"); one without ("" : delay) may.
	LeftOut string
	// read, if set, is Read for a Number whose written numbers mean more
	// than themselves (the leaky bucket's burst 0: no queue).
	read func(policy string, v int64) (int64, bool)
	// written, if set, is Written for a Number some of whose values a
	// scenario writes otherwise (NoQueue as 0, NoDelay as the word).
	written func(Params) (any, bool)
}

// Read is the value that v, a number a scenario or a flag wrote for the
// option of the named policy, sets Params to, and false when v may not be
// written: 0 for an option whose 0 reads as left out (one with a
// LeftOut), a negative number where negatives stand for something inside
// (the burst's NoQueue). A Choice's word is set with SetWord instead.
func (o Option) Read(policy string, v int64) (int64, bool) {
	if o.read != nil {
		return o.read(policy, v)
	}
	return v, v != 0 || o.LeftOut == ""
}

// SetWord sets a Choice's field of *p to word as written, which New
// refuses, naming the option, when it is none of Choices.
func (o Option) SetWord(p *Params, word string) {
	if o.word != nil {
		o.word(p, word)
	}
}

// Written is the option's value in p, parameters as a policy runs them
// (Normalised), as scenario JSON writes it, and false when a scenario
// leaves it out: a Choice's word, a Number's number, the leaky bucket's
// no queue as 0 and its delay of the whole queue as the option's word; a
// Number with no LeftOut (delay) is left out at 0.
func (o Option) Written(p Params) (any, bool) {
	switch {
	case o.written != nil:
		return o.written(p)
	case o.Kind == Choice:
		return o.Describe(o.get(p)), true
	case o.LeftOut == "" && o.get(p) == 0:
		return nil, false
	}
	return o.get(p), true
}

// Of is the option's value in p: a Number's number, a Choice's index in
// Choices (the default's, 0, when p leaves it empty; -1 for a word that is
// not one of them).
func (o Option) Of(p Params) int64 { return o.get(p) }

// Resolve fills in *p the default of an option a spec left out: a Choice's
// first word, a Number's Default when it is not 0 (0 is derived by the
// policy itself, as the burst is from the limit).
func (o Option) Resolve(p *Params) {
	switch {
	case o.Kind == Choice:
		if v := o.get(*p); v >= 0 {
			o.set(p, v) // an empty field reads as the first word
		}
	case o.Default != 0 && o.get(*p) == 0:
		o.set(p, o.Default)
	}
}

// Labelled reports whether a label always shows the option (it always has
// a value: a Choice, or a Number with a Default), rather than only when a
// spec sets it.
func (o Option) Labelled() bool { return o.Kind == Choice || o.Default != 0 }

// Describe is value v of the option as a label writes it: "floor", "k=6",
// "burst 10", "no queue", "nodelay", "delay 2".
func (o Option) Describe(v int64) string {
	switch {
	case o.Kind == Choice && (v < 0 || v >= int64(len(o.Choices))):
		return "?"
	case o.Kind == Choice:
		return o.Choices[v]
	case o.Word != "" && v == o.WordValue:
		return o.Word
	case o.Name == BurstOptionName && v == NoQueue:
		return "no queue" // leaky-bucket's only: no number is it
	}
	return fmt.Sprintf(o.Labels, v)
}

// Given reports whether p sets the option at all: a Choice's field is not
// empty, a Number's is not 0.
func (o Option) Given(p Params) bool {
	if o.given != nil {
		return o.given(p)
	}
	return o.get(p) != 0
}

// Options lists every option some policy takes, each once, in the order
// of the registry and of each policy's Options.
func Options() []Option {
	var out []Option
	for _, in := range registry {
		for _, o := range in.Options {
			if !slices.ContainsFunc(out, func(x Option) bool { return x.Name == o.Name }) {
				out = append(out, o)
			}
		}
	}
	return out
}

// Set sets the option's field of *p to v, as Of reads it.
func (o Option) Set(p *Params, v int64) { o.set(p, v) }

// DefaultBuckets is k for sliding-buckets when a spec leaves it out.
const DefaultBuckets = 6

// The names of the options, as Option.Name holds them.
const (
	ArithmeticOptionName = "arithmetic"
	BucketsOptionName    = "buckets"
	BurstOptionName      = "burst"
	DelayOptionName      = "delay"
)

// noDelayWord is the delay's word, nginx's: every excess permit passes at
// once.
const noDelayWord = "nodelay"

// The options the policies take. Each is a field of Params.
var (
	ArithmeticOption = Option{
		Name: ArithmeticOptionName, Label: "arithmetic", Kind: Choice,
		Choices: []string{string(Floor), string(Exact)},
		get: func(p Params) int64 {
			if p.Arithmetic == "" {
				return 0
			}
			return int64(slices.Index([]Arithmetic{Floor, Exact}, p.Arithmetic))
		},
		set:   func(p *Params, v int64) { p.Arithmetic = []Arithmetic{Floor, Exact}[v] },
		word:  func(p *Params, w string) { p.Arithmetic = Arithmetic(w) },
		given: func(p Params) bool { return p.Arithmetic != "" },
		Noun:  "an arithmetic",
		normalise: func(name string, p *Params) error {
			switch p.Arithmetic {
			case "":
				p.Arithmetic = Floor
			case Floor, Exact:
			default:
				return paramErr(name, ArithmeticOptionName, "arithmetic %q is neither %q nor %q", p.Arithmetic, Floor, Exact)
			}
			return nil
		},
	}
	BucketsOption = Option{
		Name: BucketsOptionName, Label: "k", Labels: "k=%d", Noun: "buckets", Kind: Number, Default: DefaultBuckets, Min: 1, Max: MaxBuckets,
		DividesWindow: true, LeftOut: fmt.Sprintf("%d buckets", DefaultBuckets),
		get: func(p Params) int64 { return p.Buckets },
		set: func(p *Params, v int64) { p.Buckets = v },
		normalise: func(name string, p *Params) error {
			if p.Buckets < 1 || p.Buckets > MaxBuckets {
				return paramErr(name, BucketsOptionName, "buckets %d is out of range [1, %d]", p.Buckets, MaxBuckets)
			}
			if p.WindowMs%p.Buckets != 0 {
				return paramErr(name, BucketsOptionName, "windowMs %d is not a multiple of buckets %d", p.WindowMs, p.Buckets)
			}
			return nil
		},
	}
	BurstOption = Option{
		Name: BurstOptionName, Label: "Burst", Labels: "burst %d", Noun: "a burst", Help: "0 = limit", Kind: Number, Default: 0, Min: 0, Max: MaxLimit,
		LeftOut: "a burst equal to the limit",
		get:     func(p Params) int64 { return p.Burst },
		set:     func(p *Params, v int64) { p.Burst = v },
		read: func(policy string, v int64) (int64, bool) {
			if v == 0 && policy == LeakyBucket {
				return NoQueue, true // nginx's own default: limit_req without burst queues nothing
			}
			return v, v > 0 // -1 stands for no queue inside; written, it is out of range
		},
		written: func(p Params) (any, bool) {
			if p.Burst == NoQueue {
				return 0, true // a leaky bucket's no queue, as scenarios write it
			}
			return p.Burst, true
		},
		normalise: func(name string, p *Params) error {
			if p.Burst == NoQueue && name == LeakyBucket {
				return nil
			}
			if p.Burst < 0 || p.Burst > MaxLimit {
				return paramErr(name, BurstOptionName, "burst %d is out of range [0, %d]", p.Burst, MaxLimit)
			}
			if p.Burst == 0 {
				p.Burst = p.Limit
			}
			return nil
		},
	}
	// DelayOption follows BurstOption in a policy's Options: its bound is
	// the burst, which must be filled in first.
	DelayOption = Option{
		Name: DelayOptionName, Label: "Delay", Labels: "delay %d", Noun: "a delay", Help: "excess passing at once", Kind: Number, Default: 0, Min: 0, Max: MaxLimit,
		Word: noDelayWord, WordValue: NoDelay,
		get: func(p Params) int64 { return p.Delay },
		set: func(p *Params, v int64) { p.Delay = v },
		written: func(p Params) (any, bool) {
			switch p.Delay {
			case 0:
				return nil, false
			case NoDelay, p.Queue():
				return noDelayWord, true
			}
			return p.Delay, true
		},
		normalise: func(name string, p *Params) error {
			if p.Delay == NoDelay {
				p.Delay = p.Queue()
			}
			if p.Delay < 0 || p.Delay > p.Queue() {
				return paramErr(name, DelayOptionName, "delay %d is out of range [0, burst %d] (or nodelay)", p.Delay, p.Queue())
			}
			return nil
		},
	}
)

// Registered lists every policy in the order pages show them. The slice is
// the caller's own.
func Registered() []Info { return slices.Clone(registry) }

// Lookup finds the named policy.
func Lookup(name string) (Info, bool) {
	i := slices.IndexFunc(registry, func(in Info) bool { return in.Name == name })
	if i < 0 {
		return Info{}, false
	}
	return registry[i], true
}

// Names lists every policy's name in the order pages show them.
var Names = func() []string {
	out := make([]string, len(registry))
	for i, in := range registry {
		out[i] = in.Name
	}
	return out
}()

// Taking lists, in registry order, the names of the policies that take the
// option named o.
func Taking(o string) []string {
	var out []string
	for _, in := range registry {
		if in.Takes(o) {
			out = append(out, in.Name)
		}
	}
	return out
}

// JoinNames writes names as a sentence does: "a", "a and b", "a, b and c".
func JoinNames(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
