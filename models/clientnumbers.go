package models

import (
	"slices"
)

// clientIDs numbers the clients of ops[idx] 0, 1, ... in order of client,
// and returns each one's number and how many there are.
func clientIDs(ops []Operation, idx []int32) (ids []int32, n int) {
	return numberClients(len(idx), func(k int) int { return ops[idx[k]].Client })
}

// numberClients numbers the clients of n operations (client(k) is the k-th
// one's) 0, 1, ... in order of client, and returns each operation's number
// and how many clients there are. Clients numbered closely (as workloads
// number them) are counted in an array, others sorted.
func numberClients(n int, client func(k int) int) (ids []int32, clients int) {
	ids = make([]int32, n)
	if n == 0 {
		return ids, 0
	}
	lo, hi := client(0), client(0)
	for k := range n {
		lo, hi = min(lo, client(k)), max(hi, client(k))
	}
	if uint64(hi-lo) < uint64(4*n+64) {
		num := make([]int32, hi-lo+1)
		for k := range n {
			num[client(k)-lo] = 1
		}
		for c := range num {
			if num[c] == 1 {
				num[c] = int32(clients)
				clients++
			} else {
				num[c] = -1
			}
		}
		for k := range n {
			ids[k] = num[client(k)-lo]
		}
		return ids, clients
	}
	sorted := make([]int, n)
	for k := range n {
		sorted[k] = client(k)
	}
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	for k := range n {
		c, _ := slices.BinarySearch(sorted, client(k))
		ids[k] = int32(c)
	}
	return ids, len(sorted)
}
