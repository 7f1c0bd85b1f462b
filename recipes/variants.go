package recipes

import (
	"slices"
	"strings"
)

// Variant is a teaching variant: a recipe with one classic mistake, the
// lesson the mistake teaches, and its constructors. The tool lists them, a
// scenario runs one by its name (its kind's workload calls Impl); the
// checks catch each one the way its lesson says.
type Variant struct {
	// Name is how the tool and the scenarios refer to it, e.g. "lock-herd".
	Name string
	// Kind is the recipe kind it implements, e.g. "lock".
	Kind string
	// Lesson says what goes wrong and why the recipe avoids it.
	Lesson string
	// Fails names the property a check finds broken: "safety", "liveness"
	// or "herd".
	Fails string
	// Impl is the variant's constructors: those its kind's workload calls
	// (the recipe's where the mistake is not theirs, as a variant of the
	// configuration keeps the recipe's writer).
	Impl Implementation
}

var variants []Variant

// register adds a teaching variant, with its constructors; each recipe's
// variants are registered beside it, once: the workload of the variant's
// kind finds it here by its name (VariantNamed).
func register(v Variant) { variants = append(variants, v) }

// Variants lists every teaching variant, by kind then name.
func Variants() []Variant {
	out := slices.Clone(variants)
	slices.SortFunc(out, func(a, b Variant) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// VariantNamed is the teaching variant called name, if there is one.
func VariantNamed(name string) (Variant, bool) {
	for _, v := range variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}
