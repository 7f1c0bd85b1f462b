package trace

import (
	"strconv"
	"strings"

	"github.com/zksim/zksim/client"
)

// Short renders what a record says happened in the short form a column of
// a timeline or a label of a diagram has room for, from the record's
// fields: a session's change of state is its new state, an apply shows no
// zxid or session (the full trace has them), and every path is its last
// element, a sequential node's name without its guid and with its
// sequence number's leading zeros dropped (/lock-3; ShortPath). Free text
// (a note, a role's reason, a fault, an error) has its paths shortened
// the same way and its "(session 0x…)" dropped.
func (t *Trace) Short(r *Record) string {
	switch r.Kind {
	case KState:
		if name, ok := strings.CutPrefix(stateName(r.Arg), "State"); ok && r.Sess >= 0 && isWord(name) {
			return "session " + name
		}
	case KApply:
		if r.Sess >= 0 && r.Zxid >= 0 {
			s := "apply " + ShortOp(r.Op, r.Path)
			if r.Code != 0 {
				s += ": " + codeText(r.Code)
			}
			return s
		}
	case KSend:
		s := ShortOp(r.Op, r.Path) + "  #" + strconv.FormatInt(r.Arg, 10)
		if r.Task > 0 { // sent by another task than its process's first: name it, in its process's column
			_, task, _ := strings.Cut(t.TaskName(r.From, r.Task), "/")
			s += "  [" + task + "]"
		}
		return s
	case KReply:
		return "reply " + ShortOp(r.Op, r.Path) + ": " + codeText(r.Code) + "  #" + strconv.FormatInt(r.Arg, 10)
	case KNotify:
		return "notify " + eventTypeName(r.Arg) + " " + shortPaths(r.Path)
	}
	return shortText(t.Action(r))
}

// ShortOp is a request and its path in the short form (ShortPath), as a
// timeline's column and a diagram's arrow show it: "create /lock-3".
func ShortOp(op client.Op, path string) string { return opPath(op, shortPaths(path)) }

// ShortPath is path's last element, without a guid prefix (twelve or more
// hex digits and a dash, after go-zk's protected "_c_" when there is one)
// and with a sequence number's leading zeros dropped: "/lock-3" for
// "/app/lock/3f2a…c1-lock-0000000003" and for
// "/app/lock/_c_4f1c…9e-lock-0000000003".
func ShortPath(path string) string {
	last := path[strings.LastIndexByte(path, '/')+1:]
	guid := strings.TrimPrefix(last, client.ProtectedPrefix)
	if n := hexRun(guid); n >= 12 && n < len(guid) && guid[n] == '-' {
		last = guid[n+1:]
	}
	if k := len(last) - 10; k >= 0 && digits(last[k:]) {
		n, _ := strconv.Atoi(last[k:])
		last = last[:k] + strconv.Itoa(n)
	}
	return "/" + last
}

// shortText is free text with every path in it shortened (a path: a '/'
// and what follows up to a space, a quote or a colon) and every
// " (session 0x…)" dropped.
func shortText(s string) string { return shortPaths(dropSessions(s)) }

// shortPaths shortens every path in s (ShortPath).
func shortPaths(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i + 1
		for s[i] == '/' && j < len(s) && !pathEnd(s[j]) {
			j++
		}
		if s[i] != '/' || j == i+1 {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(ShortPath(s[i:j]))
		i = j
	}
	return b.String()
}

// pathEnd reports whether c ends a path in free text.
func pathEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\r', '"', ':':
		return true
	}
	return false
}

// dropSessions drops every "(session 0x…)" from s, with the white space
// before it.
func dropSessions(s string) string {
	const open = "(session 0x"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		n := hexRun(s[i+len(open):])
		end := i + len(open) + n
		space := i
		for space > 0 && pathEnd(s[space-1]) && s[space-1] != '"' && s[space-1] != ':' {
			space--
		}
		if n == 0 || end >= len(s) || s[end] != ')' || space == i {
			return s[:i+1] + dropSessions(s[i+1:])
		}
		s = s[:space] + s[end+1:]
	}
}

// hexRun is how many lower-case hex digits s starts with.
func hexRun(s string) int {
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] >= 'a' && s[n] <= 'f') {
		n++
	}
	return n
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isWord reports whether s is letters, digits and underscores, at least
// one.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}
