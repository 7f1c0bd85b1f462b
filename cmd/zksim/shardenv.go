package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/zksim/zksim/search"
)

// The environment a Kubernetes Indexed Job gives each of its pods, read by
// zksim run when --shard is left out: the pod's index (0-based, set by
// Kubernetes) and the number of shards (set by the manifest, the Job's
// completions; Kubernetes does not pass that on by itself).
const (
	jobIndexEnv  = "JOB_COMPLETION_INDEX"
	shardsEnv    = "ZKSIM_SHARDS"
	shardsEnvUse = "the Job's completions, as in deploy/k8s/seed-sweep.yaml"
)

// shardFromEnv is the shard an Indexed Job's pod runs: index i (0-based)
// of ZKSIM_SHARDS shards is shard i+1 of N. It is the zero Shard (the
// whole range) outside such a Job. A half-set or malformed environment is
// an error, so that no pod silently runs the whole range.
func shardFromEnv(getenv func(string) string) (search.Shard, error) {
	idx, n := getenv(jobIndexEnv), getenv(shardsEnv)
	switch {
	case idx == "" && n == "":
		return search.Shard{}, nil
	case idx == "":
		return search.Shard{}, fmt.Errorf("%s=%s is set but %s is not: run inside an Indexed Job, or give --shard I/N", shardsEnv, n, jobIndexEnv)
	case n == "":
		return search.Shard{}, fmt.Errorf("%s=%s is set (an Indexed Job's pod) but %s is not: set it to %s, or give --shard I/N",
			jobIndexEnv, idx, shardsEnv, shardsEnvUse)
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 {
		return search.Shard{}, fmt.Errorf("%s=%q: want a whole number from 0", jobIndexEnv, idx)
	}
	total, err := strconv.Atoi(n)
	if err != nil || total < 1 {
		return search.Shard{}, fmt.Errorf("%s=%q: want a whole number from 1 (%s)", shardsEnv, n, shardsEnvUse)
	}
	if i >= total {
		return search.Shard{}, fmt.Errorf("%s=%d is not an index of %s=%d shards (0 to %d): the Job's completions and %s differ",
			jobIndexEnv, i, shardsEnv, total, total-1, shardsEnv)
	}
	return search.Shard{I: i + 1, N: total}, nil
}

// lookupShard is --shard when given, else the Indexed Job's shard, if any.
func lookupShard(flag string) (search.Shard, error) {
	if flag != "" {
		sh, err := search.ParseShard(flag)
		if err != nil {
			return sh, fmt.Errorf("--shard: %w", err)
		}
		return sh, nil
	}
	return shardFromEnv(os.Getenv)
}
