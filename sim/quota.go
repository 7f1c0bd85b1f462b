package sim

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Quotas, as the 3.8 server keeps their statistics (DataTree, StatsTrack).
// A quota on path P is the node /zookeeper/quota/P/zookeeper_limits (what
// the setquota command creates); its statistics are
// /zookeeper/quota/P/zookeeper_stats, whose data is "count=N,bytes=M": the
// nodes at and below P, and their data's bytes. The server counts them
// when the stats node is created, and from then on keeps them up to date in
// place as nodes below P are created, deleted and set: the stats node's
// data changes, its version and mzxid do not, and no watch fires. Limits
// are not enforced (zookeeper.enforceQuota is off by default): a quota
// only counts.

const (
	quotaRoot  = "/zookeeper/quota"
	limitsNode = "zookeeper_limits"
	statsNode  = "zookeeper_stats"
)

// quotaCreated is what the creation of path, with data of n bytes, does to
// the quotas: a limits node turns its path's quota on; a stats node is
// counted in full; and the deepest quota over path counts one node and n
// bytes more.
func (t *Tree) quotaCreated(path string, n int) {
	parent, name := parentOf(path)
	if p, ok := strings.CutPrefix(parent, quotaRoot); ok && strings.HasPrefix(p, "/") {
		switch name {
		case limitsNode:
			t.setQuota(p, true)
		case statsNode:
			t.recount(p)
		}
	}
	t.quotaChange(path, int64(n), 1)
}

// quotaRemoved is what the deletion of path, whose data had n bytes, does:
// a limits node turns its quota off; the deepest quota over path counts
// one node and n bytes fewer.
func (t *Tree) quotaRemoved(path string, n int) {
	parent, name := parentOf(path)
	if p, ok := strings.CutPrefix(parent, quotaRoot); ok && name == limitsNode && strings.HasPrefix(p, "/") {
		t.setQuota(p, false)
	}
	t.quotaChange(path, -int64(n), -1)
}

// setQuota turns the quota on p on or off (undone with a failed multi).
func (t *Tree) setQuota(p string, on bool) {
	had := slices.Contains(t.quotas, p)
	if had == on {
		return
	}
	if on {
		t.quotas = append(t.quotas, p)
	} else {
		t.quotas = slices.DeleteFunc(t.quotas, func(q string) bool { return q == p })
	}
	if t.inMulti {
		t.multiUndo = append(t.multiUndo, func() { t.setQuota(p, had) })
	}
}

// quotaOf is the deepest path with a quota at or above path (component by
// component: /qq is not under /q), or "".
func (t *Tree) quotaOf(path string) string {
	best := ""
	for _, q := range t.quotas {
		if len(q) > len(best) && (path == q || strings.HasPrefix(path, q+"/")) {
			best = q
		}
	}
	return best
}

// quotaChange adds count nodes and bytes to the statistics of the deepest
// quota over path, in place, if it has its stats node.
func (t *Tree) quotaChange(path string, bytes, count int64) {
	if len(t.quotas) == 0 {
		return
	}
	q := t.quotaOf(path)
	if q == "" {
		return
	}
	st := t.nodes[quotaRoot+q+"/"+statsNode]
	if st == nil {
		return // the server logs "Missing node for stat"
	}
	track, ok := parseStatsTrack(st.data)
	if !ok {
		return // the server's update fails on data it cannot parse
	}
	track.count += count
	track.bytes += bytes
	t.setStats(st, track.String())
}

// recount counts the nodes at and below p, and their data's bytes, into
// p's stats node: exactly "count=N,bytes=M".
func (t *Tree) recount(p string) {
	st := t.nodes[quotaRoot+p+"/"+statsNode]
	if st == nil {
		return
	}
	var track statsTrack
	var walk func(n *znode)
	walk = func(n *znode) {
		track.count++
		track.bytes += int64(len(n.data))
		for _, name := range n.listing.names {
			walk(t.nodes[n.path+"/"+name])
		}
	}
	if n := t.nodes[p]; n != nil {
		walk(n)
	}
	t.setStats(st, track.String())
}

// setStats replaces a stats node's data in place: only its data length
// changes (undone with a failed multi).
func (t *Tree) setStats(st *znode, data string) {
	old := st.data
	st.data = []byte(data)
	st.stat.DataLength = int32(len(st.data))
	if t.inMulti {
		t.multiUndo = append(t.multiUndo, func() { st.data, st.stat.DataLength = old, int32(len(old)) })
	}
}

// statsTrack is a quota's statistics as the server's StatsTrack reads
// them: count and bytes, and any other key=value pairs a client wrote,
// kept.
type statsTrack struct {
	count, bytes int64
	others       map[string]int64
}

// parseStatsTrack reads data as StatsTrack does: pairs separated by runs
// of ',' and ';', each key=value (a value missing or empty is -1, as is a
// key missing); false when a value is not a number.
func parseStatsTrack(data []byte) (statsTrack, bool) {
	s := statsTrack{count: -1, bytes: -1}
	pairs := strings.FieldsFunc(string(data), func(r rune) bool { return r == ',' || r == ';' })
	for _, pair := range pairs {
		kv := strings.Split(pair, "=")
		for len(kv) > 1 && kv[len(kv)-1] == "" {
			kv = kv[:len(kv)-1] // Java's split drops trailing empty strings
		}
		v := int64(-1)
		if len(kv) > 1 {
			n, err := strconv.ParseInt(kv[1], 10, 64)
			if err != nil {
				return s, false
			}
			v = n
		}
		switch kv[0] {
		case "count":
			s.count = v
		case "bytes":
			s.bytes = v
		default:
			if s.others == nil {
				s.others = map[string]int64{}
			}
			s.others[kv[0]] = v
		}
	}
	return s, true
}

// String is StatsTrack's toString: "count=N,bytes=M", then, when it has
// other keys, "=" and ";key=value" for each in sorted order.
func (s statsTrack) String() string {
	out := "count=" + strconv.FormatInt(s.count, 10) + ",bytes=" + strconv.FormatInt(s.bytes, 10)
	if len(s.others) == 0 {
		return out
	}
	out += "="
	for _, k := range slices.Sorted(maps.Keys(s.others)) {
		out += ";" + k + "=" + strconv.FormatInt(s.others[k], 10)
	}
	return out
}
