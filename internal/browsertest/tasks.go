package browsertest

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// Task is one task the page's main thread ran, from the browser's trace.
type Task struct {
	Start float64 // ms, on the trace's clock
	Wall  float64 // ms from its start to its end
	// CPU is the ms the thread ran within it. A task's wall time also
	// counts the time the machine gave other processes; its CPU time
	// is the page's own work, which the machine's load does not stretch.
	CPU float64
}

// MainThreadTasks traces the tab while do runs and returns the tasks of
// its renderer's main thread, each with its wall and CPU time. The
// PerformanceObserver's long tasks have only a wall time: on a busy
// machine a task of a few ms of work is a long task when the scheduler
// puts it off halfway.
func MainThreadTasks(tab *Tab, do func()) []Task {
	tab.t.Helper()
	var mu sync.Mutex
	var events []json.RawMessage
	done := make(chan struct{})
	chromedp.Listen(tab.ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			for _, v := range e.Value {
				events = append(events, json.RawMessage(v))
			}
			mu.Unlock()
		case *tracing.EventTracingComplete:
			close(done)
		}
	})
	if _, err := chromedp.Call(tab.ctx, tracing.Start, tracing.StartParams{
		TraceConfig: &tracing.TraceConfig{IncludedCategories: []string{"toplevel", "disabled-by-default-devtools.timeline", "__metadata"}},
	}); err != nil {
		tab.t.Fatalf("browser: starting a trace: %v", err)
	}
	do()
	if _, err := chromedp.Call(tab.ctx, tracing.End, cdp.Empty{}); err != nil {
		tab.t.Fatalf("browser: ending a trace: %v", err)
	}
	<-done
	mu.Lock()
	defer mu.Unlock()
	return mainThreadTasks(events)
}

// mainThreadTasks picks, from a trace's events, the outermost tasks of the
// renderer's main thread that ran most of them (the browser's other
// renderer, if any, idles).
func mainThreadTasks(events []json.RawMessage) []Task {
	type event struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		Ts   float64 `json:"ts"`
		Dur  float64 `json:"dur"`
		Tdur float64 `json:"tdur"`
		Pid  int     `json:"pid"`
		Tid  int     `json:"tid"`
		Args struct {
			Name string `json:"name"`
		} `json:"args"`
	}
	type thread struct{ pid, tid int }
	mains := map[thread]bool{}
	tasks := map[thread][]Task{}
	for _, raw := range events {
		var e event
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		th := thread{e.Pid, e.Tid}
		switch {
		case e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain":
			mains[th] = true
		case e.Ph == "X" && (e.Name == "RunTask" || e.Name == "ThreadControllerImpl::RunTask"):
			tasks[th] = append(tasks[th], Task{Start: e.Ts / 1000, Wall: e.Dur / 1000, CPU: e.Tdur / 1000})
		}
	}
	var busiest []Task
	for th := range mains {
		if len(tasks[th]) > len(busiest) {
			busiest = tasks[th]
		}
	}
	// A task's slice may hold another's (the scheduler's inside the
	// message loop's): keep the outermost.
	slices.SortFunc(busiest, func(a, b Task) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.Wall, a.Wall)) })
	var outer []Task
	for _, t := range busiest {
		if n := len(outer); n > 0 && t.Start+t.Wall <= outer[n-1].Start+outer[n-1].Wall {
			continue
		}
		outer = append(outer, t)
	}
	return outer
}
