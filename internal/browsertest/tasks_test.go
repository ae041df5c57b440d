package browsertest

import (
	"encoding/json"
	"testing"
)

// TestMainThreadTasksKeepsTheOutermostOfTheBusiestRenderer reads a trace
// of two renderers: the tasks are the busier one's, a slice inside
// another is not a task of its own, and times are in ms.
func TestMainThreadTasksKeepsTheOutermostOfTheBusiestRenderer(t *testing.T) {
	trace := []string{
		`{"ph":"M","name":"thread_name","pid":1,"tid":10,"args":{"name":"CrRendererMain"}}`,
		`{"ph":"M","name":"thread_name","pid":2,"tid":20,"args":{"name":"CrRendererMain"}}`,
		`{"ph":"M","name":"thread_name","pid":2,"tid":21,"args":{"name":"Compositor"}}`,
		`{"ph":"X","name":"RunTask","pid":1,"tid":10,"ts":1000,"dur":90000,"tdur":1000}`,
		`{"ph":"X","name":"RunTask","pid":2,"tid":20,"ts":1000,"dur":80000,"tdur":6000}`,
		`{"ph":"X","name":"ThreadControllerImpl::RunTask","pid":2,"tid":20,"ts":1500,"dur":70000,"tdur":5000}`,
		`{"ph":"X","name":"ThreadControllerImpl::RunTask","pid":2,"tid":20,"ts":100000,"dur":3000,"tdur":2500}`,
		`{"ph":"X","name":"RunTask","pid":2,"tid":21,"ts":100000,"dur":3000,"tdur":2500}`,
		`{"ph":"X","name":"Paint","pid":2,"tid":20,"ts":2000,"dur":1000,"tdur":1000}`,
	}
	var events []json.RawMessage
	for _, e := range trace {
		events = append(events, json.RawMessage(e))
	}
	got := mainThreadTasks(events)
	want := []Task{{Start: 1, Wall: 80, CPU: 6}, {Start: 100, Wall: 3, CPU: 2.5}}
	if len(got) != len(want) {
		t.Fatalf("tasks = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("task %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
}
