package sim

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
)

// The server is a Java program, and some of what a client can see of it
// comes from Java's ways with strings rather than from ZooKeeper's own
// rules: how it decodes the bytes of a string it reads, how it parses a
// number, what a regular expression's "." stops at. These are those ways,
// as the 3.8 server on Java 17 shows them (docs/fidelity.md).

// javaString is the string the server reads from bytes s (jute's
// readString, and the digest provider's new String(credentials)): Java's
// UTF-8 decoder, each malformed sequence replaced by U+FFFD as Java 17
// replaces it (a sequence cut short is one replacement for the bytes it
// had; an encoded surrogate one for its three bytes; a byte that starts
// nothing one), written back as UTF-8. Valid UTF-8 comes back as it is.
func javaString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if r, n := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || n > 1 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		b.WriteRune(utf8.RuneError)
		i += javaMalformed(s[i:])
	}
	return b.String()
}

// javaMalformed is how many bytes at the start of s (which does not start
// with a valid UTF-8 sequence) Java's decoder replaces with one U+FFFD:
// the rules of java.lang.String's UTF-8 decoding (decodeUTF8_UTF16).
func javaMalformed(s string) int {
	cont := func(i int) bool { return i < len(s) && s[i]&0xc0 == 0x80 }
	b1 := s[0]
	switch {
	case b1 >= 0xc2 && b1 <= 0xdf: // a 2-byte lead whose second byte is missing or wrong
		return 1
	case b1 >= 0xe0 && b1 <= 0xef:
		if len(s) < 3 {
			// Cut short: the lead and a good second byte are one.
			if len(s) == 2 && !malformed3of2(b1, s[1]) {
				return 2
			}
			return 1
		}
		if malformed3of2(b1, s[1]) {
			return 1
		}
		if !cont(2) {
			return 2
		}
		return 3 // an encoded surrogate (ED A0..BF ..): all three
	case b1 >= 0xf0 && b1 <= 0xf7:
		if b1 > 0xf4 || len(s) < 2 || malformed4of2(b1, s[1]) {
			return 1
		}
		if !cont(2) {
			return 2
		}
		if !cont(3) {
			return 3
		}
		return 1 // not reached: a valid 4-byte sequence decodes
	}
	return 1
}

// malformed3of2 is Java's isMalformed3_2: the second byte of a 3-byte
// sequence is no continuation, or makes an overlong form after E0.
func malformed3of2(b1, b2 byte) bool {
	return (b1 == 0xe0 && b2&0xe0 == 0x80) || b2&0xc0 != 0x80
}

// malformed4of2 is Java's isMalformed4_2: the second byte of a 4-byte
// sequence is out of the lead's range.
func malformed4of2(b1, b2 byte) bool {
	return (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 == 0xf4 && b2&0xf0 != 0x80) || b2&0xc0 != 0x80
}

// javaParseInt is Integer.parseInt(s): an optional sign, then one or more
// decimal digits of any script in the Basic Multilingual Plane (Java's
// Character.digit, on UTF-16 chars: a digit outside it is two chars,
// neither a digit), within an int's range.
func javaParseInt(s string) (int, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	n := int64(0)
	for _, r := range s {
		d := javaDigit(r)
		if d < 0 {
			return 0, false
		}
		n = n*10 + int64(d)
		if n > 1<<31 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 || n < -1<<31 {
		return 0, false
	}
	return int(n), true
}

// javaDigit is r's value as a decimal digit, or -1: a decimal digit (of
// any script) in the Basic Multilingual Plane. Unicode encodes each
// script's digits as a run of ten from its zero, so the value is the
// distance from the run's start.
func javaDigit(r rune) int {
	if r > 0xffff || !unicode.IsDigit(r) {
		return -1
	}
	zero := r
	for zero > 0 && unicode.IsDigit(zero-1) {
		zero--
	}
	return int(r-zero) % 10
}

// javaMaskDigest is a digest id as getACL shows it to a client without
// ADMIN: id.replaceAll(":.*", ":x"), where "." matches anything but a
// line terminator (\n, \r, U+0085, U+2028, U+2029), so that each line's
// text from its first colon is masked, and the line breaks kept.
func javaMaskDigest(id string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(id, ':')
		if i < 0 {
			b.WriteString(id)
			return b.String()
		}
		b.WriteString(id[:i])
		b.WriteString(":x")
		id = id[i+1:]
		end := strings.IndexFunc(id, func(r rune) bool {
			return r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029'
		})
		if end < 0 {
			return b.String()
		}
		id = id[end:]
	}
}

// javaEcho is s as the server writes a string back to a client (jute's
// writeString encodes each UTF-16 char of it on its own): a character
// beyond U+FFFF, two surrogates in Java, comes back as two 3-byte
// sequences (six bytes, not the four it was sent as), which is not UTF-8.
// Paths cannot hold such a character (the server refuses them in a
// write); ACL ids can, through the user of a digest's credentials.
func javaEcho(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r > 0xffff })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if r <= 0xffff {
			b.WriteRune(r)
			continue
		}
		hi, lo := utf16.EncodeRune(r)
		for _, u := range []rune{hi, lo} {
			b.Write([]byte{byte(0xe0 | u>>12), byte(0x80 | (u>>6)&0x3f), byte(0x80 | u&0x3f)})
		}
	}
	return b.String()
}

// wireString is s written by the server and read back by another (jute's
// writeString, then readString): javaEcho, then javaString. A character
// beyond U+FFFF comes back as two U+FFFD, since the two encoded surrogates
// it was written as are not UTF-8. It is how a follower receives the
// strings of a proposal from the leader, and the leader the ids of a
// connection a follower forwards a request for.
func wireString(s string) string {
	if e := javaEcho(s); e != s {
		return javaString(e)
	}
	return s
}

// aclStrings is acl with every scheme and id passed through f (one of the
// ways above); acl itself when f changes none of them, copying nothing.
func aclStrings(acl []zk.ACL, f func(string) string) []zk.ACL {
	var out []zk.ACL
	for i, a := range acl {
		scheme, id := f(a.Scheme), f(a.ID)
		if out == nil && (scheme != a.Scheme || id != a.ID) {
			out = slices.Clone(acl)
		}
		if out != nil {
			out[i] = zk.ACL{Perms: a.Perms, Scheme: scheme, ID: id}
		}
	}
	if out == nil {
		return acl
	}
	return out
}

// wireACL is acl with every scheme and id written and read back
// (wireString).
func wireACL(acl []zk.ACL) []zk.ACL { return aclStrings(acl, wireString) }

// wireIDs is ids written and read back (wireString): a follower forwards
// a request with its connection's ids so.
func wireIDs(ids []authID) []authID {
	var out []authID
	for i, id := range ids {
		w := authID{wireString(id.scheme), wireString(id.id)}
		if out == nil && w != id {
			out = slices.Clone(ids)
		}
		if out != nil {
			out[i] = w
		}
	}
	if out == nil {
		return ids
	}
	return out
}
