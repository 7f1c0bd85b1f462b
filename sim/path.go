package sim

import (
	"strings"
	"unicode/utf8"
)

// validServerPath applies the server's path rules (ZooKeeper's
// PathUtils.validatePath): absolute, no trailing slash except the root, no
// empty component, no "." or ".." component, and none of the characters the
// server refuses (NUL, control characters, U+007F–U+009F, U+D800–U+F8FF,
// U+FFF0–U+FFFF, which in the server's UTF-16 includes every character beyond
// U+FFFF). A sequential create is validated with a digit appended, so
// "/queue/" may be the prefix of a sequential node. The server answers a bad
// path with BadArguments.
func validServerPath(path string, sequential bool) bool {
	return plainPath(path) || serverPathRules(path, sequential)
}

// serverPathRules is validServerPath's full check.
func serverPathRules(path string, sequential bool) bool {
	if sequential {
		path += "1"
	}
	if path == "" || path[0] != '/' {
		return false
	}
	if path == "/" {
		return true
	}
	if path[len(path)-1] == '/' {
		return false
	}
	for rest := path[1:]; ; {
		comp, after, more := strings.Cut(rest, "/")
		if comp == "" || comp == "." || comp == ".." {
			return false
		}
		if !more {
			break
		}
		rest = after
	}
	for _, r := range path {
		switch {
		case r == 0,
			r > 0 && r < 0x20,
			r >= 0x7f && r <= 0x9f,
			r >= 0xd800 && r <= 0xf8ff,
			r >= 0xfff0 && r <= 0xffff, // also invalid UTF-8, decoded as U+FFFD
			r > 0xffff:                 // a surrogate pair in the server's UTF-16
			return false
		}
	}
	return true
}

// validClientPath mirrors go-zookeeper/zk's client-side check, which runs
// before a request is sent and answers zk.ErrInvalidPath. It is deliberately
// a faithful copy of that library's rules, quirks included: it lets "/./a"
// through (the server then answers a create NoNode, as it looks the parent
// "/." up before validating the path, and a setData BadArguments), and it
// does not refuse U+D800–U+EFFF, U+FFFF or characters beyond U+FFFF as the
// server does.
func validClientPath(path string, sequential bool) bool {
	return plainPath(path) || clientPathRules(path, sequential)
}

// clientPathRules is validClientPath's full check.
func clientPathRules(path string, sequential bool) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	n := len(path)
	if n == 1 {
		return true
	}
	if !sequential && path[n-1] == '/' {
		return false
	}
	for i, w := 1, 0; i < n; i += w {
		r, width := utf8.DecodeRuneInString(path[i:])
		switch {
		case r == 0:
			return false
		case r == '/':
			last, _ := utf8.DecodeLastRuneInString(path[:i])
			if last == '/' {
				return false
			}
		case r == '.':
			last, lastWidth := utf8.DecodeLastRuneInString(path[:i])
			if last == '.' {
				last, _ = utf8.DecodeLastRuneInString(path[:i-lastWidth])
			}
			if last == '/' {
				if i+1 == n {
					return false
				}
				// w is still the previous rune's width here, as in the library.
				next, _ := utf8.DecodeRuneInString(path[i+w:])
				if next == '/' {
					return false
				}
			}
		case r > 0 && r <= 0x1f,
			r >= 0x7f && r <= 0x9f,
			r >= 0xf000 && r <= 0xf8ff,
			r >= 0xfff0 && r < 0xffff:
			return false
		}
		w = width
	}
	return true
}

// plainPath reports whether path is absolute, made of printable ASCII other
// than '.', without an empty component or a trailing '/': such a path is
// valid by the client's and the server's rules alike (with a digit appended
// too), which need looking at only for the rest. Almost every path the
// recipes use is plain; checking it costs one pass over its bytes.
func plainPath(path string) bool {
	n := len(path)
	if n < 2 || path[0] != '/' || path[n-1] == '/' {
		return false
	}
	for i := 1; i < n; i++ {
		c := path[i]
		if c < 0x20 || c > 0x7e || c == '.' || (c == '/' && path[i-1] == '/') {
			return false
		}
	}
	return true
}

// readKey is the node a read of path looks up: the server's tree keys its
// root both as "/" and as "" (ZooKeeper's DataTree), so a read of "" reads
// the root. go-zookeeper/zk never sends "" (no path to the library); a
// client over the wire may.
func readKey(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// parentOf splits a path into its parent and last component: a child of the
// root has the parent "/"; a path without '/' has the parent "".
func parentOf(path string) (parent, name string) {
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return "", path
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}
