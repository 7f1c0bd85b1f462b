package recipes

import "errors"

// The errors a recipe returns when its caller misuses it, in
// go-zookeeper/zk's manner: sentinel values, wrapped with what was asked,
// so that errors.Is(err, recipes.ErrNotHeld) tells them apart.
var (
	// ErrNotHeld: a release of what the caller does not hold (Unlock
	// without Lock, Leave without Enter, Revoke with nothing held).
	ErrNotHeld = errors.New("recipes: not held")
	// ErrAlreadyHeld: an acquisition of what the caller holds or seeks
	// already (Lock twice, Enter twice, Campaign while leading).
	ErrAlreadyHeld = errors.New("recipes: already held or sought")
)
