package main

import (
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// The seed sweep's manifest is a Job as Kubernetes defines it: decoded
// strictly into the API's own batch/v1 types (k8s.io/api, offline), an
// unknown or misspelt field, or a value of the wrong type, is an error.
// A misspelt copy is refused, so the check can fail.
func TestSweepManifestAgainstTheKubernetesSchema(t *testing.T) {
	manifest := repoFile(t, "deploy/k8s/seed-sweep.yaml")
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(manifest, &job); err != nil {
		t.Fatalf("deploy/k8s/seed-sweep.yaml is not a batch/v1 Job: %v", err)
	}
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion ||
		job.Spec.BackoffLimitPerIndex == nil || job.Spec.PodFailurePolicy == nil {
		t.Errorf("the Job is not an Indexed Job with a per-index backoff and a failure policy: %+v", job.Spec)
	}
	misspelt := strings.Replace(string(manifest), "backoffLimitPerIndex:", "backoffLimitPerIndx:", 1)
	if err := yaml.UnmarshalStrict([]byte(misspelt), &job); err == nil {
		t.Error("a misspelt field passed the strict decoding")
	}
}

// README's Kubernetes walkthrough waits for the Job to finish either way
// (kubectl wait takes one --for; given two, the last wins, and a sweep
// that completes would be waited on for the whole timeout), and takes
// each index's JSON from the pod that ran it to its end (exit 0 or 1),
// not the logs of every pod of the index (a retried index's concatenate,
// which merge cannot read).
func TestREADMEKubernetesWalkthrough(t *testing.T) {
	readme := string(repoFile(t, "README.md"))
	start := strings.Index(readme, "kubectl apply -f deploy/k8s/seed-sweep.yaml")
	if start < 0 {
		t.Fatal("README has no Kubernetes walkthrough")
	}
	block := readme[start:]
	block = block[:strings.Index(block, "```")]
	for _, line := range strings.Split(block, "\n") {
		if strings.Contains(line, "kubectl wait") && strings.Count(line, "--for") > 1 {
			t.Errorf("one kubectl wait with two --for conditions waits for the last alone: %s", line)
		}
	}
	if !strings.Contains(block, "--for=condition=complete") || !strings.Contains(block, "--for=condition=failed") {
		t.Errorf("the walkthrough does not wait for both ends of the Job:\n%s", block)
	}
	if regexp.MustCompile(`kubectl logs -l `).MatchString(block) || !strings.Contains(block, "exitCode<2") {
		t.Errorf("the walkthrough does not take each index's JSON from the one pod that ran it to its end:\n%s", block)
	}
}
