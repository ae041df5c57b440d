package webtest

import (
	"testing"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// CarParkArrivals are the seeds' car park: cars at these seconds.
var CarParkArrivals = []struct{ Sec, Cars int }{{0, 1}, {5, 2}, {15, 2}, {25, 1}, {35, 1}, {40, 3}}

// CarParkSession opens a session in store holding the default lanes and
// the car park's cars that arrive before beforeSec, its clock at beforeSec.
func CarParkSession(t testing.TB, store *play.Store, beforeSec int) *LiveSession {
	t.Helper()
	sess := NewLive(t, store, scenario.Scenario{})
	for _, a := range CarParkArrivals {
		if a.Sec >= beforeSec {
			break
		}
		if err := sess.Jump(int64(a.Sec) * 1000); err != nil {
			t.Fatal(err)
		}
		if err := sess.Fire(int64(a.Cars)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.Jump(int64(beforeSec) * 1000); err != nil {
		t.Fatal(err)
	}
	return sess
}
