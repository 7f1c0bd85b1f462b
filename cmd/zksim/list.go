package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/workload"
)

func listCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the recipe kinds and their checks, the teaching variants and the fault kinds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeList(cmd.OutOrStdout())
		},
	}
}

// faultKinds documents the fault schedule's syntax, one line a kind.
var faultKinds = [][2]string{
	{"crash sN | crash leader", "a server crashes: it keeps its log, loses everything else (... for D: restarts after D)"},
	{"restart sN", "a crashed server comes back and catches up from the leader"},
	{"partition A B", "cut both directions between two servers, or a client and a server (... for D: heals after D)"},
	{"isolate sN", "cut a server from every server and client (... for D: heals after D)"},
	{"heal A B | heal", "reopen links (all of them when none is named)"},
	{"pause cN DURATION", "a client process stops, heartbeats included (a long GC pause)"},
	{"pause sN DURATION | pause leader DURATION", "a server's process stops for a while: cut off, what it was sent kept for when it resumes"},
	{"one-way A B", "what A sends B is lost, B to A goes on (servers, or a client and a server; ... for D: heals after D)"},
	{"spike EXTRA for DURATION", "every link gets slower for a while"},
	{"disconnect cN for D", "a client process is cut from every server (its cable pulled); past the session timeout its session expires"},
	{"expire cN", "the leader expires the client's sessions now, as if they had timed out"},
	{"lag sN for D", "a server applies nothing for D and serves reads from what it had; a sync through it waits"},
	{"lose-reply", "(when cN OP#K applied: | when cN OP#K failed: | when cN notified#K:) the reply or notification is lost and the connection drops"},
	{"lose-request", "(when cN OP#K received:) the request is lost with its connection, never applied"},
	{"delay D", "(when cN OP#K applied: | when cN OP#K failed: | when cN notified#K:) the reply or notification leaves D late"},
	{"crash applier", "(when cN OP#K applied:) the server that applied it crashes before answering"},
}

// faultShapes are the session-shaped situations the random rates draw,
// made of the kinds above: a scenario file's `rates:` names them.
var faultShapes = [][2]string{
	{"disconnect", "a client cut off for just under or just over its session timeout (0.6-0.95 or 1.05-2 timeouts), with a leader failover in the middle one time in three (the new leader restarts the session timers)"},
	{"outage", "every server down at once and back after 1.2-2 session timeouts: the sessions survive their clients' wait"},
	{"short_pause", "a client process stops for 0.1-0.6 of its session timeout: its connection may drop, its session stays"},
	{"lag", "a server applies nothing for 0.5-5s: its clients, and one that reconnects to it, read the past until it catches up (a sync waits for it)"},
	{"triggered", "tied to a client's read or to a watch notification sent to it: the reply or notification lost, delayed 0.1-3s, or the client cut off past its session timeout"},
	{"lose_request", "a write lost before any server applies it (a release that fails with ConnectionLoss and did nothing)"},
}

func writeList(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RECIPE KIND\tCHECKS")
	for _, k := range workload.Kinds() {
		fmt.Fprintf(tw, "%s\t%s\n", k, strings.Join(scenarios.DefaultChecks(scenarios.Spec{Kind: k}), ", "))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "CHECK\tKIND\tWHAT IT JUDGES (a scenario's checks: names any its kind can be judged by)")
	for _, c := range models.Checks() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Kind, c.Doc)
	}
	lib, err := scenarios.Library()
	if err != nil {
		return err
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "BUILT-IN SCENARIO\tKIND\tEXPECTED")
	for _, sc := range lib {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", sc.Name, sc.Spec.Kind, sc.Expect)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "TEACHING VARIANT\tKIND\tFAILS\tLESSON")
	for _, v := range recipes.Variants() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Name, v.Kind, v.Fails, firstSentence(v.Lesson))
	}
	fmt.Fprintln(tw, "\nEach variant's shrunk counterexample, step by step: reports/testdata/golden/variants/NAME.txt.")
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "FAULT\tWHAT IT DOES")
	for _, f := range faultKinds {
		fmt.Fprintf(tw, "%s\t%s\n", f[0], f[1])
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "RATE (SESSION-SHAPED)\tWHAT IT DRAWS")
	for _, f := range faultShapes {
		fmt.Fprintf(tw, "%s\t%s\n", f[0], f[1])
	}
	fmt.Fprintln(tw, "\n`zksim run NAME` runs a built-in scenario (or a scenario file).")
	fmt.Fprintln(tw, "A fault strikes \"at TIME\", or at an event: \"when cN OP#K applied:\" (reads too),")
	fmt.Fprintln(tw, "\"when cN OP#K failed:\" (the Kth of them answered with an error), \"when cN OP#K received:\",")
	fmt.Fprintln(tw, "\"when cN notified#K:\" or \"when cN holds#K:\" (the Kth time cN holds its lock or")
	fmt.Fprintln(tw, "leadership); see docs/ARCHITECTURE.md.")
	return tw.Flush()
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
