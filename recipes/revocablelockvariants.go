package recipes

// The revocable lock's teaching variant; its implementation is
// ForceRevoke.

func init() {
	register(Variant{Name: "revocable-lock-force-revoke", Kind: "revocable-lock", Fails: "safety",
		Lesson: "The revoker of a revocable lock does not wait for the holder's consent: after a grace period " +
			"it deletes the holder's node itself (ForceRevoke). ZooKeeper then grants the lock to the next " +
			"client, but the holder, paused or busy between two checks, still believes it holds it, and its " +
			"session is fine, so its lease does not warn it: two holders act at once. Revocation in the " +
			"recipe is cooperative; forcing it is safe only with a fenced resource that rejects the stale " +
			"holder's lower token."})
}
