package sim

import (
	"crypto/sha1"
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/trace"
)

// Access control as a ZooKeeper 3.8 server applies it (ZooKeeperServer's
// checkACL and fixupACL, the digest and ip providers): every node carries
// an ACL; a connection carries the ids it has authenticated as; a request
// is allowed a permission on a node when one of the node's entries grants
// it and names world:anyone or one of the connection's ids.

// authID is an id a connection has: scheme digest ("user:base64(sha1(
// user:password))") or ip (the client's address).
type authID struct {
	scheme, id string
}

// clientAddr is every simulated client's address: clients and servers run
// on one machine, as a live ensemble on 127.0.0.1 does.
const clientAddr = "127.0.0.1"

// ipID is the id every connection has from the start (the server adds
// the peer's address to each new connection).
var ipID = authID{"ip", clientAddr}

// openACL is the ACL of the root and of /zookeeper and /zookeeper/quota.
var openACL = zk.WorldACL(zk.PermAll)

// configACL is the ACL of the configuration node: anyone may read it. Like
// openACL it is shared by every tree (an ACL is replaced, never changed in
// place, and a client gets a copy).
var configACL = zk.WorldACL(zk.PermRead)

// digestID is the id addAuth("digest", "user:password") authenticates as:
// the user (up to the first colon) and the base64 of the SHA-1 of the
// whole "user:password", both of the credentials as the server decodes
// them (javaString: bytes that are not UTF-8 become U+FFFD first).
func digestID(auth []byte) string {
	creds := javaString(string(auth)) // the server hashes the credentials as Java decoded them
	user, _, _ := strings.Cut(creds, ":")
	sum := sha1.Sum([]byte(creds))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// whoAmI is what whoAmI answers a connection with ids: each id as its
// scheme and user (a digest's name, up to the first ':' of its id; an
// ip's address), in the order the server's set of a connection's ids
// iterates (javaSetOrder), both written as the server writes strings
// (javaEcho). They travel as ACL entries' Scheme and ID (reply.acl).
func whoAmI(ids []authID) []zk.ACL {
	ordered := javaSetOrder(ids)
	out := make([]zk.ACL, len(ordered))
	for i, id := range ordered {
		user := id.id
		if id.scheme == "digest" {
			user, _, _ = strings.Cut(user, ":")
		}
		out[i] = zk.ACL{Scheme: javaEcho(id.scheme), ID: javaEcho(user)}
	}
	return out
}

// permits reports whether a connection with ids has perm on a node with
// acl: an empty ACL allows everything; otherwise an entry granting perm
// must name world:anyone, or a digest id the connection has, or an ip
// (with an optional /bits mask) that covers the connection's address.
func permits(acl []zk.ACL, perm int32, ids []authID) bool {
	if len(acl) == 0 {
		return true
	}
	for _, a := range acl {
		if a.Perms&perm == 0 {
			continue
		}
		switch a.Scheme {
		case "world":
			if a.ID == "anyone" {
				return true
			}
		case "digest":
			for _, id := range ids {
				if id.scheme == "digest" && id.id == a.ID {
					return true
				}
			}
		case "ip":
			for _, id := range ids {
				if id.scheme == "ip" && ipMatches(a.ID, id.id) {
					return true
				}
			}
		}
	}
	return false
}

// fixupACL is the ACL a create or setACL stores, or InvalidACL: exact
// duplicates dropped (first kept); an empty list refused; world only as
// world:anyone; auth replaced by every digest id the connection has (none:
// refused); digest ids of the form user:hash; ip ids an IPv4 address with
// an optional /bits; any other scheme refused. Permissions are not checked
// (an entry with none grants nothing).
func fixupACL(acl []zk.ACL, ids []authID) ([]zk.ACL, int32) {
	if aclAsIs(acl) {
		return acl, trace.CodeOK // the common case: keep the caller's slice, copying nothing
	}
	acl = javaACL(acl)
	out := acl[:0:0]
	for i, a := range acl {
		dup := false
		for _, b := range acl[:i] {
			dup = dup || a == b
		}
		if dup {
			continue
		}
		switch a.Scheme {
		case "world":
			if a.ID != "anyone" {
				return nil, trace.CodeInvalidACL
			}
			out = append(out, a)
		case "auth":
			n := len(out)
			for _, id := range javaSetOrder(ids) {
				if id.scheme == "digest" {
					out = append(out, zk.ACL{Perms: a.Perms, Scheme: "digest", ID: id.id})
				}
			}
			if len(out) == n {
				return nil, trace.CodeInvalidACL
			}
		case "digest":
			if !validDigestID(a.ID) {
				return nil, trace.CodeInvalidACL
			}
			out = append(out, a)
		case "ip":
			if _, _, ok := parseIPID(a.ID); !ok {
				return nil, trace.CodeInvalidACL
			}
			out = append(out, a)
		default:
			return nil, trace.CodeInvalidACL
		}
	}
	if len(out) == 0 {
		return nil, trace.CodeInvalidACL
	}
	if len(out) == len(acl) && sameACL(out, acl) {
		return acl, trace.CodeOK // the common case: keep the caller's slice
	}
	return out, trace.CodeOK
}

// javaACL is acl as the server reads it: each scheme and id decoded as
// Java decodes the bytes of a string (javaString), so that bytes that are
// not UTF-8 are stored, compared and shown as U+FFFD.
func javaACL(acl []zk.ACL) []zk.ACL { return aclStrings(acl, javaString) }

// aclAsIs reports whether fixupACL would keep acl as it is: not empty, no
// duplicates, no auth entry, every entry valid (and UTF-8). Every create checks its
// ACL on every replica, and this answers that without building a copy.
func aclAsIs(acl []zk.ACL) bool {
	if len(acl) == 0 {
		return false
	}
	for i, a := range acl {
		for _, b := range acl[:i] {
			if a == b {
				return false
			}
		}
		if !utf8.ValidString(a.ID) {
			return false
		}
		switch a.Scheme {
		case "world":
			if a.ID != "anyone" {
				return false
			}
		case "digest":
			if !validDigestID(a.ID) {
				return false
			}
		case "ip":
			if _, _, ok := parseIPID(a.ID); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func sameACL(a, b []zk.ACL) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// validDigestID is the digest provider's check, Java's split(":") having
// exactly two parts: trailing colons dropped, then exactly one colon.
func validDigestID(id string) bool {
	return strings.Count(strings.TrimRight(id, ":"), ":") == 1
}

// parseIPID reads an ip ACL id as the server's ip provider does: four
// numbers from 0 to 255 and an optional /bits (0 to 32), each read by
// Java's Integer.parseInt (javaParseInt: a sign, digits of any script,
// leading zeros), so that "１２７.0.0.1" and "127.0.0.1/-0" are valid;
// IPv4 only (3.8 has no IPv6 here).
func parseIPID(id string) (addr uint32, bits int, ok bool) {
	host, mask, hasMask := strings.Cut(id, "/")
	bits = 32
	if hasMask {
		b, ok := javaParseInt(mask)
		if !ok || b < 0 || b > 32 {
			return 0, 0, false
		}
		bits = b
	}
	parts := strings.Split(host, ".")
	if len(parts) != 4 {
		return 0, 0, false
	}
	for _, p := range parts {
		v, ok := javaParseInt(p)
		if !ok || v < 0 || v > 255 {
			return 0, 0, false
		}
		addr = addr<<8 | uint32(v)
	}
	return addr, bits, true
}

// ipMatches reports whether the ip ACL id pattern covers address addr.
func ipMatches(pattern, addr string) bool {
	p, bits, ok := parseIPID(pattern)
	a, _, ok2 := parseIPID(addr)
	if !ok || !ok2 {
		return false
	}
	mask := ^uint32(0) << (32 - bits)
	if bits == 0 {
		mask = 0
	}
	return p&mask == a&mask
}

// maskDigests is an ACL as getACL shows it to a client without ADMIN on
// the node: each digest id's hash replaced by x (javaMaskDigest: on every
// line of it).
func maskDigests(acl []zk.ACL) []zk.ACL {
	out := make([]zk.ACL, len(acl))
	for i, a := range acl {
		if a.Scheme == "digest" {
			a.ID = javaMaskDigest(a.ID)
		}
		out[i] = a
	}
	return out
}
