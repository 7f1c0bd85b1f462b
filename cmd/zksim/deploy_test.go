package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoFile is a file of the repository, read from this package's directory.
func repoFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The Indexed Job's manifest fields the seed sweep depends on.
type sweepJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          int    `yaml:"completions"`
		Parallelism          int    `yaml:"parallelism"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		PodFailurePolicy     struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name  string   `yaml:"name"`
					Image string   `yaml:"image"`
					Args  []string `yaml:"args"`
					Env   []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// The seed sweep's Indexed Job is one Kubernetes accepts and one that
// sweeps: indexed, as many shards in ZKSIM_SHARDS as completions, no
// --shard (each pod's comes from its index), the JSON printed, a shard
// that finds the unexpected not run again (exit 1 fails its index, 2 the
// Job), and the scenario read from the ConfigMap it mounts. Then the
// manifest's own command line, run locally for each index of a smaller
// sweep, merges into what one unsharded run prints.
func TestDeployIndexedJob(t *testing.T) {
	var job sweepJob
	if err := yaml.Unmarshal(repoFile(t, "deploy/k8s/seed-sweep.yaml"), &job); err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" {
		t.Fatalf("want a batch/v1 Job with completionMode Indexed, got %s %s %q", job.APIVersion, job.Kind, s.CompletionMode)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	shards := ""
	for _, e := range c.Env {
		if e.Name == shardsEnv {
			shards = e.Value
		}
	}
	if shards != strconv.Itoa(s.Completions) || s.Completions < 1 || s.Parallelism < 1 || s.Parallelism > s.Completions {
		t.Errorf("%s=%q, completions %d, parallelism %d: want ZKSIM_SHARDS = completions ≥ parallelism ≥ 1",
			shardsEnv, shards, s.Completions, s.Parallelism)
	}
	if s.Template.Spec.RestartPolicy != "Never" || s.BackoffLimitPerIndex == nil {
		t.Errorf("restartPolicy %q, backoffLimitPerIndex %v: podFailurePolicy needs Never, and an index's retries a limit",
			s.Template.Spec.RestartPolicy, s.BackoffLimitPerIndex)
	}
	actions := map[int]string{}
	for _, r := range s.PodFailurePolicy.Rules {
		if r.OnExitCodes.ContainerName != c.Name || r.OnExitCodes.Operator != "In" {
			t.Errorf("a failure rule names container %q (operator %q), not %q", r.OnExitCodes.ContainerName, r.OnExitCodes.Operator, c.Name)
		}
		for _, v := range r.OnExitCodes.Values {
			actions[v] = r.Action
		}
	}
	if actions[1] != "FailIndex" || actions[2] != "FailJob" {
		t.Errorf("exit 1 → %q, exit 2 → %q: want FailIndex and FailJob", actions[1], actions[2])
	}
	if len(c.Args) < 2 || c.Args[0] != "run" || !slices.Contains(c.Args, "--json") || slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--shard") }) {
		t.Fatalf("args %q: want run SCENARIO ... --json, without --shard", c.Args)
	}
	checkScenarioMounted(t, c.Args[1], c.VolumeMounts, s.Template.Spec.Volumes)
	runSweepLocally(t, c.Args)
}

// checkScenarioMounted checks that the scenario file lies in a mounted
// ConfigMap.
func checkScenarioMounted(t *testing.T, path string, mounts []struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
}, volumes []struct {
	Name      string `yaml:"name"`
	ConfigMap *struct {
		Name string `yaml:"name"`
	} `yaml:"configMap"`
}) {
	t.Helper()
	for _, m := range mounts {
		if filepath.Dir(path) != m.MountPath {
			continue
		}
		for _, v := range volumes {
			if v.Name == m.Name && v.ConfigMap != nil && v.ConfigMap.Name != "" {
				return
			}
		}
	}
	t.Errorf("the scenario %s is in no mounted ConfigMap", path)
}

// runSweepLocally runs the Job's command line as its pods would, for
// every index of a sweep of 4 shards of 12 seeds (the scenario a built-in
// one), merges their JSON, and compares with the unsharded run.
func runSweepLocally(t *testing.T, args []string) {
	dir := t.TempDir()
	scenario, err := filepath.Abs(filepath.Join("..", "..", "scenarios", "library", "lock-noguid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	args = slices.Clone(args)
	args[1] = scenario
	i := slices.Index(args, "--seeds")
	if i < 0 || i+1 == len(args) {
		t.Fatalf("args %q: want --seeds N", args)
	}
	args[i+1] = "12"
	const n = 4
	files := []string{"merge"}
	for idx := range n {
		status, out, errOut := runBinaryEnv(t, dir, []string{fmt.Sprintf("%s=%d", jobIndexEnv, idx), fmt.Sprintf("%s=%d", shardsEnv, n)}, args...)
		var o runOutput
		if err := json.Unmarshal([]byte(out), &o); err != nil || status > 1 || o.Shard != fmt.Sprintf("%d/%d", idx+1, n) {
			t.Fatalf("pod %d: status %d, shard %q, %v\n%s", idx, status, o.Shard, err, errOut)
		}
		name := fmt.Sprintf("shard-%d.json", idx)
		writeFiles(t, dir, map[string]string{name: out})
		files = append(files, name)
	}
	mstatus, merged, _ := runBinary(t, dir, files...)
	wstatus, whole, _ := runBinary(t, dir, args...)
	var m, w runOutput
	if json.Unmarshal([]byte(merged), &m) != nil || json.Unmarshal([]byte(whole), &w) != nil {
		t.Fatalf("merged:\n%s\nwhole:\n%s", merged, whole)
	}
	if mstatus != wstatus || m.Got != w.Got || m.Ran != w.Ran || len(m.Violations) != len(w.Violations) {
		t.Errorf("merged (exit %d): %s, %d seeds, %d violations; whole (exit %d): %s, %d seeds, %d violations",
			mstatus, m.Got, m.Ran, len(m.Violations), wstatus, w.Got, w.Ran, len(w.Violations))
	}
}

// Outside a Job, or in one whose environment is half set, zksim run says
// so before any work (exit 2); --shard wins over the environment.
func TestShardFromEnvironment(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		env  func(string) string
		want string // the shard, or the error's start
	}{
		{env(), "0/0"},
		{env(jobIndexEnv, "0", shardsEnv, "4"), "1/4"},
		{env(jobIndexEnv, "3", shardsEnv, "4"), "4/4"},
		{env(jobIndexEnv, "4", shardsEnv, "4"), "JOB_COMPLETION_INDEX=4 is not an index"},
		{env(jobIndexEnv, "2"), "JOB_COMPLETION_INDEX=2 is set"},
		{env(shardsEnv, "4"), "ZKSIM_SHARDS=4 is set"},
		{env(jobIndexEnv, "-1", shardsEnv, "4"), "JOB_COMPLETION_INDEX=\"-1\""},
		{env(jobIndexEnv, "1", shardsEnv, "0"), "ZKSIM_SHARDS=\"0\""},
	} {
		sh, err := shardFromEnv(tc.env)
		got := sh.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	dir := t.TempDir()
	status, _, errOut := runBinaryEnv(t, dir, []string{jobIndexEnv + "=1"}, "run", "lock-noguid", "--seeds", "4", "--json")
	if status != 2 || !strings.Contains(errOut, "ZKSIM_SHARDS is not") {
		t.Errorf("JOB_COMPLETION_INDEX alone: exit %d, %s", status, errOut)
	}
	status, out, _ := runBinaryEnv(t, dir, []string{jobIndexEnv + "=1", shardsEnv + "=2"}, "run", "lock-noguid", "--seeds", "4", "--shard", "1/4", "--json")
	if !strings.Contains(out, `"shard": "1/4"`) || status > 1 {
		t.Errorf("--shard with the Job's environment: exit %d, %s", status, out)
	}
}

// The CI example's matrix runs shards 1..N of one range, N in --shard
// matching the matrix, on a scenario the repository holds, and a last job
// merges them; the Dockerfile builds with the Go go.mod asks for.
func TestDeployCIExampleAndImage(t *testing.T) {
	var wf struct {
		Jobs map[string]struct {
			Needs    any `yaml:"needs"`
			Strategy struct {
				Matrix struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(repoFile(t, "deploy/ci/github-actions.yml"), &wf); err != nil {
		t.Fatal(err)
	}
	shard, merge := wf.Jobs["shard"], wf.Jobs["merge"]
	n := len(shard.Strategy.Matrix.Shard)
	for i, s := range shard.Strategy.Matrix.Shard {
		if s != i+1 {
			t.Errorf("matrix shards %v: want 1 to %d", shard.Strategy.Matrix.Shard, n)
			break
		}
	}
	runRe := regexp.MustCompile(`zksim run (\S+) .*--shard \$\{\{ matrix\.shard \}\}/(\d+) --json`)
	var scenario string
	for _, st := range shard.Steps {
		if m := runRe.FindStringSubmatch(st.Run); m != nil {
			scenario = m[1]
			if m[2] != strconv.Itoa(n) {
				t.Errorf("--shard .../%s with %d shards in the matrix", m[2], n)
			}
		}
	}
	if scenario == "" {
		t.Fatal("no step runs zksim run ... --shard ${{ matrix.shard }}/N --json")
	}
	repoFile(t, scenario)
	merges := slices.ContainsFunc(merge.Steps, func(st struct {
		Run string `yaml:"run"`
	}) bool {
		return strings.Contains(st.Run, "zksim merge shard-*.json")
	})
	if merge.Needs != "shard" || !merges {
		t.Errorf("the merge job needs %v and merges: %v; want it after the shards, merging them", merge.Needs, merges)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(repoFile(t, "go.mod"))
	if !strings.Contains(string(repoFile(t, "deploy/Dockerfile")), "FROM golang:"+string(goVersion[1])) {
		t.Errorf("deploy/Dockerfile does not build with Go %s, which go.mod asks for", goVersion[1])
	}
}
