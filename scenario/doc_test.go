package scenario

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocNamesEveryField holds docs/scenario.md to the format: every field
// the decoder reads and every field an answer carries is named there, in
// backticks, so a new field fails here until it is documented.
func TestDocNamesEveryField(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenario.md")
	require.NoError(t, err)

	fields := map[string]string{}
	for _, v := range []any{wire{}, wireRequest{}, wireDeployment{}, ParamsOut{}} {
		for _, name := range jsonNames(reflect.TypeOf(v)) {
			fields[name] = "input " + reflect.TypeOf(v).Name()
		}
	}
	fields["name"] = "input policy object"

	// The answer's fields are read off a real answer, probes included, so
	// that what MarshalJSON writes is what is checked.
	s, err := Parse([]byte(`{"limit": 5, "windowMs": 30000,
		"policies": [{"name": "sliding-counter", "arithmetic": "exact"}, {"name": "sliding-buckets", "buckets": 6}, {"name": "gcra", "burst": 3},
			{"name": "fixed-window", "nodes": 2, "syncMs": 500}],
		"requests": [{"at": 0, "probe": true}, {"at": 1000, "key": "a", "cost": 2, "count": 3}]}`))
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	out, err := json.Marshal(res)
	require.NoError(t, err)
	var answer any
	require.NoError(t, json.Unmarshal(out, &answer))
	collectKeys(answer, fields)

	var missing []string
	for name, from := range fields {
		if !strings.Contains(string(doc), "`"+name+"`") {
			missing = append(missing, name+" ("+from+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/scenario.md does not name these fields in backticks: %s", strings.Join(missing, ", "))
	}
}

func jsonNames(typ reflect.Type) []string {
	var names []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

func collectKeys(v any, into map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			into[k] = "answer"
			collectKeys(e, into)
		}
	case []any:
		for _, e := range v {
			collectKeys(e, into)
		}
	}
}
