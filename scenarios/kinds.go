package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/models"
)

// kind is one recipe kind's workload: its defaults, the implementations
// it knows (the recipe and its teaching variants), how its clients run,
// and which checks judge it.
type kind struct {
	name string
	doc  string
	// clients is the default number of clients; minClients the fewest
	// that make sense.
	clients, minClients int
	// recipe is the recipe's implementation; variants the teaching
	// variants', by name.
	recipe   Implementation
	variants map[string]Implementation
	// defaults fills in a workload's zero fields.
	defaults func(w *Workload, clients int)
	// checks are the checks that judge a spec of this kind by default.
	checks func(s Spec) []string
	// alsoChecks are the checks a spec may name beyond those: another
	// promise the kind's histories can be judged by (a queue's delivery).
	alsoChecks []string
	// spawn starts the workload's clients.
	spawn func(r *runner)
	// input sets what the kind's checks need beyond the history.
	input func(in *models.Input, s Spec)
	// situations are what a run of the kind may reach, for its coverage.
	situations []situation
	// fenceless, when set, says why the kind's resource cannot be fenced:
	// a spec with Workload.Fenced is refused with it.
	fenceless string
}

var kinds = map[string]*kind{}

func registerKind(k *kind) { kinds[k.name] = k }

// Kinds lists the recipe kinds a scenario can drive.
func Kinds() []string {
	var out []string
	for n := range kinds {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func lookupKind(name string) (*kind, error) {
	if k, ok := kinds[name]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("kind: %q; want one of %s", name, strings.Join(Kinds(), ", "))
}

// renamed are the old names of the variants and scenarios renamed so that
// each begins with its kind's name, as the kind is written everywhere
// else: refused with the new name.
var renamed = map[string]string{
	"doublebarrier-counts-ready": "double-barrier-counts-ready", "doublebarrier-herd": "double-barrier-herd",
	"doublebarrier-trusts-lowest": "double-barrier-trusts-lowest", "priorityqueue-stale-list": "priority-queue-stale-list",
	"priorityqueue-trusts-watch": "priority-queue-trusts-watch", "shared-lock-forced-revocation": "revocable-lock-force-revoke",
}

// variant finds a teaching variant's implementation.
func (k *kind) variant(name string) (Implementation, error) {
	if impl, ok := k.variants[name]; ok {
		return impl, nil
	}
	var names []string
	for n := range k.variants {
		names = append(names, n)
	}
	slices.Sort(names)
	if now := renamed[name]; now != "" {
		return Implementation{}, fmt.Errorf("variant: %q is called %q now (a variant's name begins with its kind's)", name, now)
	}
	if len(names) == 0 {
		return Implementation{}, fmt.Errorf("variant: %q; the %s kind has no teaching variants", name, k.name)
	}
	return Implementation{}, fmt.Errorf("variant: %q is not a %s variant; want one of %s", name, k.name, strings.Join(names, ", "))
}

// implementation is what a spec runs: the user's, a variant's, or the
// recipe.
func (k *kind) implementation(s Spec) Implementation {
	if s.Impl != nil {
		return *s.Impl
	}
	if s.Variant != "" {
		impl, _ := k.variant(s.Variant)
		return impl
	}
	return k.recipe
}

// orDefault sets *v to d when it is zero.
func orDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
