package policies

import "fmt"

// ByName holds one value per policy for a layer above this package (a
// policy's wording in explain, its drawing in lane), each registered from
// that policy's own file in the layer, so the layer reaches a policy through
// the value, never through a switch on its name.
type ByName[T any] struct {
	layer  string
	values map[string]T
}

// NewByName is an empty table for the named layer (the name is for the
// panic a mistaken registration raises).
func NewByName[T any](layer string) *ByName[T] {
	return &ByName[T]{layer: layer, values: map[string]T{}}
}

// Register records name's value. It panics, at init, on a name the
// registry does not list or one registered twice: both are a programming
// mistake no test run could miss.
func (b *ByName[T]) Register(name string, v T) {
	if _, ok := Lookup(name); !ok {
		panic(fmt.Sprintf("%s: %q is not a registered policy", b.layer, name))
	}
	if _, dup := b.values[name]; dup {
		panic(fmt.Sprintf("%s: %q registered twice", b.layer, name))
	}
	b.values[name] = v
}

// Lookup is name's value and whether one was registered.
func (b *ByName[T]) Lookup(name string) (T, bool) {
	v, ok := b.values[name]
	return v, ok
}

// Of is name's value, or fallback for a name nothing registered (a
// scenario built in Go without validation).
func (b *ByName[T]) Of(name string, fallback T) T {
	if v, ok := b.values[name]; ok {
		return v
	}
	return fallback
}

// Missing lists the registry's policies this layer has no value for, in
// the registry's order, so each layer's test can say which file is missing.
func (b *ByName[T]) Missing() []string {
	var out []string
	for _, info := range registry {
		if _, ok := b.values[info.Name]; !ok {
			out = append(out, info.Name)
		}
	}
	return out
}
