package reports

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/zksim/zksim/internal/debian"
	"github.com/zksim/zksim/search"
)

// chromium finds Debian's chromium, installing it when it is missing and
// this test may (root); it fails, never skips, when it cannot.
func chromium(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if err := debian.Install(nil, "chromium"); err != nil {
		t.Fatalf("chromium is missing: %v", err)
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("apt-get installed chromium, but it is not on the path: %v", err)
	}
	return p
}

// The report renders in headless Chromium with no console error, and every
// figure loads.
func TestReportRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	runs, err := search.ForReport(context.Background(), search.ReportOptions{Seeds: 3, Only: "lock-",
		LockClients: []int{2, 5, 10, 50}, HerdClients: []int{2, 5, 10, 50}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(Options{Out: dir, Runs: runs})
	if err != nil {
		t.Fatal(err)
	}
	if r.Matches() != len(r.Verdicts) || len(r.Verdicts) < 5 || len(r.Figures) < 10 {
		t.Fatalf("%d of %d verdicts as expected, %d figure files", r.Matches(), len(r.Verdicts), len(r.Figures))
	}
	html, err := os.ReadFile(r.Index)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lock-herd", "herd-notifications.png", "violations/lock-unsorted/linearizability-1.html",
		"violations/lock-unsorted/spacetime.svg", `<pre class="account">`,
		// Each teaching variant's lesson, above its counterexample, linked
		// from its row.
		`<p class="lesson"><b>The lesson.</b> It takes getChildren&#39;s answer to be in sequence order.`,
		`<a href="#lock-unsorted" title="its lesson and the counterexample that shows it">lock-unsorted</a>`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report does not mention %q", want)
		}
	}
	// No scratch path of the files it wrote.
	if strings.Contains(string(html), "wrote "+dir) || strings.Contains(string(html), "wrote /") {
		t.Errorf("the report prints the paths of the files it wrote")
	}

	// Its profile in the test's own directory, removed with it.
	ctx := headless(t, 60*time.Second)
	var mu sync.Mutex
	var problems []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				problems = append(problems, fmt.Sprintf("console error: %v", ev.Args))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, fmt.Sprintf("exception: %s", ev.ExceptionDetails.Text))
		}
	}
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	abs, _ := filepath.Abs(r.Index)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs)); err != nil { // it waits for the page to load
		t.Fatalf("chromium: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Array.from(document.images).every(i => i.complete)`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the figures did not finish loading: %v", err)
	}
	images, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.images.length`))
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.images).filter(i => i.naturalWidth > 0).length`))
	if err != nil {
		t.Fatal(err)
	}
	// Each step-through opens on the event where its violation shows (the
	// one its steps mark), not on the first: lock-herd's herd is far in.
	opened, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){var out=[];
		document.querySelectorAll(".stepper").forEach(function(el){
			var steps=JSON.parse(el.dataset.steps), at=steps.findIndex(function(s){return s.violation});
			var pos=el.querySelector(".step-pos").textContent;
			if (at < 0 || pos.indexOf("event "+(at+1)+" of ") != 0 || pos.indexOf("the violation shows here") < 0 ||
				el.querySelector(".step-range").value != at || el.id == "steps-lock-herd" && at < 10)
				out.push(el.id+": opens at "+JSON.stringify(pos)+", the violation's step is "+(at+1));
		});
		return out})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(opened) > 0 {
		t.Errorf("step-throughs that do not open on their violation: %v", opened)
	}
	// Step through a counterexample from its start: forward five events,
	// back one; the position and the state shown follow.
	stepper := `#steps-lock-noguid `
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){var r=document.querySelector("`+stepper+`.step-range");
		r.value=0; r.dispatchEvent(new Event("input")); return true})()`)); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(stepper+`.step-next`))); err != nil {
			t.Fatalf("clicking forward: %v", err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(stepper+`.step-prev`))); err != nil {
		t.Fatalf("clicking back: %v", err)
	}
	text := func(sel string) string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("`+stepper+sel+`").textContent`))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return v
	}
	if pos := text(".step-pos"); !strings.HasPrefix(pos, "event 5 of ") {
		t.Errorf("after five steps forward and one back the view shows %q", pos)
	}
	if clients := text(".step-clients"); !strings.Contains(clients, "c1: ") || !strings.Contains(clients, "c2: ") {
		t.Errorf("the clients shown: %q", clients)
	}
	if servers := text(".step-servers"); !strings.Contains(servers, "s1: ") || !strings.Contains(servers, "s3: ") {
		t.Errorf("the servers shown: %q", servers)
	}
	if event := text(".step-event"); event == "" {
		t.Errorf("no event shown")
	}
	// To the last event: the lock's children on the servers.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){var r=document.querySelector("`+stepper+`.step-range");
		r.value=r.max; r.dispatchEvent(new Event("input")); return true})()`)); err != nil {
		t.Fatal(err)
	}
	if servers := text(".step-servers"); !strings.Contains(servers, "lock-") {
		t.Errorf("at the last event the servers show no lock node: %q", servers)
	}
	// Its long node names wrap inside the panels, never clipped at their edge.
	clipped, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(function(){var n=0;
		document.querySelectorAll("`+stepper+`.step-panels pre").forEach(function(p){ if (p.scrollWidth > p.clientWidth+1) n++; });
		return n})()`))
	if err != nil {
		t.Fatal(err)
	}
	if clipped > 0 {
		t.Errorf("%d of the step-through's panels clip what they show at their edge", clipped)
	}
	// Somewhere in the counterexamples a client waits on its predecessor:
	// the watch it holds is shown, and gone again once it fired. (Which
	// counterexample shows it depends on how each was shrunk: every
	// step-through is walked.)
	walks, err := chromedp.Run(ctx, chromedp.Evaluate[[][]string](`(function(){var out=[];
		document.querySelectorAll(".step-range").forEach(function(r){
			var w=r.closest("[id^=steps-]").querySelector(".step-watches"), seen=[];
			for (var i=+r.min; i<=+r.max; i++) { r.value=i; r.dispatchEvent(new Event("input")); seen.push(w.textContent); }
			out.push(seen)});
		return out})()`))
	if err != nil {
		t.Fatal(err)
	}
	shown := slices.ContainsFunc(walks, func(watches []string) bool {
		held := slices.IndexFunc(watches, func(w string) bool { return strings.Contains(w, "c") && strings.Contains(w, "lock-") })
		return held >= 0 && slices.ContainsFunc(watches[held:], func(w string) bool { return w != watches[held] })
	})
	if !shown {
		t.Errorf("no step-through shows a client's watch on a lock node that then changes: %q", walks)
	}
	// Every space-time diagram opens on its violation: the moment it shows
	// is in view (a tall one scrolled down to it), not the sessions' set-up.
	views, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){var out=[];
		document.querySelectorAll(".spacetime-view").forEach(function(el){
			var img=el.querySelector("img");
			if (!img.complete || img.naturalHeight==0) { out.push("not loaded"); return; }
			var f=+el.dataset.focus*img.clientHeight/img.naturalHeight;
			if (f < el.scrollTop || f > el.scrollTop+el.clientHeight) out.push(img.getAttribute("src")+": focus "+f+" out of view "+el.scrollTop+"+"+el.clientHeight);
		});
		return out})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(views) > 0 {
		t.Errorf("space-time diagrams that do not open on their violation: %v", views)
	}
	// Scrolled down to its violation, a diagram still names its lines: the
	// strip at its top stays in view, drawn from the picture's own top, as
	// wide as the picture and as high as its names.
	heads, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){var out=[], scrolled=0;
		document.querySelectorAll(".spacetime-view").forEach(function(el){
			var img=el.querySelector("img"), head=el.querySelector(".spacetime-head");
			if (el.scrollTop == 0) return;
			scrolled++;
			var v=el.getBoundingClientRect(), h=head.getBoundingClientRect();
			var want=+el.dataset.head*img.clientHeight/img.naturalHeight;
			if (Math.abs(h.top-v.top) > 2 || Math.abs(h.height-want) > 1 || Math.abs(h.width-img.clientWidth) > 1 ||
				head.style.backgroundImage.indexOf(img.getAttribute("src")) < 0)
				out.push(img.getAttribute("src")+": head at "+(h.top-v.top)+", "+h.width+"×"+h.height+", "+head.style.backgroundImage);
		});
		if (scrolled == 0) out.push("no diagram opened scrolled down");
		return out})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) > 0 {
		t.Errorf("space-time diagrams whose lines go unnamed once scrolled: %v", heads)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the report has errors: %v", problems)
	}
	if images < 5 || loaded != images {
		t.Errorf("%d of %d figures loaded", loaded, images)
	}
}

// headless is a headless Chromium for t, its profile in a directory of
// t's, ended with t, for at most limit.
func headless(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)),
		chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelT(); cancel(); cancelA() })
	return ctx
}
