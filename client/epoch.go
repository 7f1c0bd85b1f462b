package client

import "time"

// Epoch is the wall-clock instant a run's time 0 stands for, in both
// worlds: the simulator's znode ctime and mtime and Conn.Now are Epoch
// plus the virtual time, and a live run's Conn.Now is Epoch plus the time
// since its clients started, so that a workload's clock and a history's
// times read the same in both.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
