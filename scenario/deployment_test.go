package scenario

import (
	"errors"
	"strings"
	"testing"
)

// ParseDeployment says of each deployment field what Parse says of the
// same field in a policy object, under the same name below the lane.
func TestParseDeploymentSaysWhatParseSays(t *testing.T) {
	for _, obj := range []string{
		`"nodes": 0`,
		`"nodes": 17`,
		`"nodes": 2.5`,
		`"nodes": "three"`,
		`"nodes": 3, "syncMs": -1`,
		`"nodes": 3, "route": "nearest"`,
		`"nodes": 3, "seed": 4`,
		`"nodes": 3, "skewMs": [0, 300]`,
		`"nodes": 2, "skewMs": [0, 99999999999999]`,
		`"syncMs": 500`,
	} {
		_, err := Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", ` + obj + `}], "requests": []}`))
		var want Errors
		if !errors.As(err, &want) {
			t.Fatalf("%s: Parse = %v, want field errors", obj, err)
		}
		_, got := ParseDeployment([]byte(`{` + obj + `}`))
		if len(got) == 0 {
			t.Errorf("%s: ParseDeployment accepts it; Parse says %v", obj, want)
			continue
		}
		for _, e := range got {
			if r := want.Field("policies[0]." + e.Field); r != e.Reason {
				t.Errorf("%s: ParseDeployment says %s: %q; Parse says %q", obj, e.Field, e.Reason, r)
			}
		}
	}
}

func TestParseDeploymentReadsEveryField(t *testing.T) {
	d, errs := ParseDeployment([]byte(`{"nodes": 3, "route": "random", "seed": 7, "syncMs": 250, "central": true, "skewMs": [0, 300, -200]}`))
	if errs != nil {
		t.Fatal(errs)
	}
	skew, _ := SkewsOf(0, 300, -200)
	if want := (Deployment{Nodes: 3, Route: "random", Seed: 7, SyncMs: 250, Central: true, SkewMs: skew}); d != want {
		t.Errorf("got %+v, want %+v", d, want)
	}
	if _, errs := ParseDeployment([]byte(`[]`)); len(errs) == 0 || !strings.Contains(errs.Error(), "want") {
		t.Errorf("a list: %v, want it refused", errs)
	}
}
