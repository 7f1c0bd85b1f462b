package trace

// Role is what a server is doing in the ensemble: what a KRole record
// says it became (Arg).
type Role uint8

// The roles.
const (
	RoleDown      Role = iota // crashed
	RoleLooking               // electing, or cut off from a quorum: serves no client
	RoleFollowing             // synced with a leader: serves clients
	RoleLeading               // orders writes: serves clients
)

func (r Role) String() string {
	return [...]string{"down", "looking", "following", "leading"}[r]
}
