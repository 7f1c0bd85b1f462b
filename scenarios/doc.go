// Package scenarios holds the workloads that drive the simulated ensemble
// and record what clients observed, and the scenarios built from them.
//
// Today it holds the store workload (store.go), which checks the znode
// store itself under faults, and the two read scenarios that show
// ZooKeeper's read guarantee (staleread.go). The recipe workloads and the
// scenario file format come later.
package scenarios
