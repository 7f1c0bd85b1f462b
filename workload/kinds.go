package workload

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// Kind is one recipe kind's workload: its defaults, the recipe's
// implementation (its teaching variants are recipes', registered under the
// kind's name), how its clients run, and which checks judge it.
type Kind struct {
	name string
	doc  string
	// clients is the default number of clients; minClients the fewest
	// that make sense.
	clients, minClients int
	// recipe is the recipe's implementation.
	recipe recipes.Implementation
	// defaults fills in a workload's zero fields.
	defaults func(s *Shape, clients int)
	// checks are the checks that judge a run of this kind by default.
	checks func(p Plan) []string
	// alsoChecks are the checks a scenario may name beyond those: another
	// promise the kind's histories can be judged by (a queue's delivery).
	alsoChecks []string
	// spawn starts the workload's clients.
	spawn func(r *runner)
	// input sets what the kind's checks need beyond the history.
	input func(in *models.Input, p Plan)
	// situations are what a run of the kind may reach, for its coverage.
	situations []situation
	// fenceless, when set, says why the kind's resource cannot be fenced:
	// a workload with Shape.Fenced is refused with it.
	fenceless string
}

var kinds = map[string]*Kind{}

func registerKind(k *Kind) { kinds[k.name] = k }

// Kinds lists the recipe kinds a workload can drive.
func Kinds() []string {
	var out []string
	for n := range kinds {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Lookup finds a kind by its name, or says which names there are.
func Lookup(name string) (*Kind, error) {
	if k, ok := kinds[name]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("kind: %q; want one of %s", name, strings.Join(Kinds(), ", "))
}

// Name is the kind's name, as scenarios write it.
func (k *Kind) Name() string { return k.name }

// Doc says in a few words what the kind is.
func (k *Kind) Doc() string { return k.doc }

// Clients is the kind's default number of clients; MinClients the fewest
// that make sense.
func (k *Kind) Clients() int    { return k.clients }
func (k *Kind) MinClients() int { return k.minClients }

// Fenceless says why the kind's resource cannot be fenced ("": it can):
// a workload with Shape.Fenced is refused with it.
func (k *Kind) Fenceless() string { return k.fenceless }

// Defaults fills in s's zero fields with the kind's defaults for clients.
func (k *Kind) Defaults(s *Shape, clients int) { k.defaults(s, clients) }

// Checks are the checks that judge a run of the kind by default.
func (k *Kind) Checks(p Plan) []string { return k.checks(p) }

// Input sets what the kind's checks need beyond the history: the number
// that may proceed at once, a semaphore's permits, a barrier's size, the
// liveness bound the kind allows.
func (k *Kind) Input(in *models.Input, p Plan) {
	if k.input != nil {
		k.input(in, p)
	}
}

// Renamed are the old names of the variants and scenarios renamed so that
// each begins with its kind's name, as the kind is written everywhere
// else: refused with the new name.
var Renamed = map[string]string{
	"doublebarrier-counts-ready": "double-barrier-counts-ready", "doublebarrier-herd": "double-barrier-herd",
	"doublebarrier-trusts-lowest": "double-barrier-trusts-lowest", "priorityqueue-stale-list": "priority-queue-stale-list",
	"priorityqueue-trusts-watch": "priority-queue-trusts-watch", "shared-lock-forced-revocation": "revocable-lock-force-revoke",
}

// Variant finds a teaching variant's implementation: the one recipes
// registers under the name, if it is a variant of this kind.
func (k *Kind) Variant(name string) (recipes.Implementation, error) {
	if v, ok := recipes.VariantNamed(name); ok && v.Kind == k.name {
		return v.Impl, nil
	}
	names := k.Variants()
	if now := Renamed[name]; now != "" {
		return recipes.Implementation{}, fmt.Errorf("variant: %q is called %q now (a variant's name begins with its kind's)", name, now)
	}
	if len(names) == 0 {
		return recipes.Implementation{}, fmt.Errorf("variant: %q; the %s kind has no teaching variants", name, k.name)
	}
	return recipes.Implementation{}, fmt.Errorf("variant: %q is not a %s variant; want one of %s", name, k.name, strings.Join(names, ", "))
}

// Variants are the names of the kind's teaching variants, sorted: those
// recipes registers under the kind's name.
func (k *Kind) Variants() []string {
	var names []string
	for _, v := range recipes.Variants() { // sorted by kind, then name
		if v.Kind == k.name {
			names = append(names, v.Name)
		}
	}
	return names
}

// Implementation is what a run of the kind runs: impl when set (a user's
// own), else the teaching variant named, else the recipe.
func (k *Kind) Implementation(impl *recipes.Implementation, variant string) recipes.Implementation {
	if impl != nil {
		return *impl
	}
	if variant != "" {
		v, _ := k.Variant(variant)
		return v
	}
	return k.recipe
}

// AllChecks are the checks that can judge the kind's histories: those it
// runs, fenced or not, those it may (alsoChecks), and the herd, ownership
// and leaks checks, which read what any run's world saw.
// A check of another kind would find nothing to judge and pass a run it
// never looked at.
func (k *Kind) AllChecks() []string {
	out := append([]string{"herd", "ownership", "leaks"}, k.alsoChecks...)
	for _, fenced := range []bool{false, true} {
		for _, c := range k.checks(Plan{Shape: Shape{Fenced: fenced}}) {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// JudgedBy refuses a check named that is not one of the kind's.
func (k *Kind) JudgedBy(checks []string) error {
	all := k.AllChecks()
	for _, c := range checks {
		if !slices.Contains(all, c) {
			return fmt.Errorf("checks: %q is not a check of a %s scenario (its checks: %s)", c, k.name, strings.Join(all, ", "))
		}
	}
	return nil
}

// orDefault sets *v to d when it is zero.
func orDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
