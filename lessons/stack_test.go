package lessons

import (
	"strings"
	"testing"
)

// The stacking table's prose says a request gets through only if both
// limits admit it. Each row must read that way: the stack's column says
// admitted exactly when every lane's column does, and a later lane never
// shows a decision on a request an earlier lane already refused (it never
// sees one), which a column of that limiter running alone would.
func TestStackedTableShowsTheStacksRealOutcome(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := lib.Render(lib.Lesson("where-they-disagree"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var table *Table
	for i := range r.Tables {
		if strings.HasPrefix(r.Tables[i].Caption, "Stacked limits") {
			table = &r.Tables[i]
		}
	}
	if table == nil {
		t.Fatal("no stacked-limits table in where-they-disagree")
	}
	last := len(table.Head) - 1
	if !strings.Contains(table.Head[last], "only if every lane admits") {
		t.Errorf("last column %q, want the stack's outcome", table.Head[last])
	}
	lanes := table.Head[2:last]
	if len(lanes) != 2 {
		t.Fatalf("columns %q, want two lanes", table.Head)
	}
	sawSkipped := false
	for n, row := range table.Rows {
		all := true
		for i := range lanes {
			c := row[2+i]
			all = all && strings.HasPrefix(c, "admitted")
			if i > 0 && strings.HasPrefix(row[2+i-1], "refused") && !strings.HasPrefix(c, "not asked") {
				t.Errorf("row %d (%s): lane %d shows %q for a request lane %d refused", n+1, row[1], i+1, c, i)
			}
			sawSkipped = sawSkipped || strings.HasPrefix(c, "not asked")
		}
		if stack := strings.HasPrefix(row[last], "admitted"); stack != all {
			t.Errorf("row %d (%s): the stack says %q but the lanes say %q", n+1, row[1], row[last], row[2:last])
		}
	}
	if !sawSkipped {
		t.Error("no request was refused by the first lane; the case no longer tests the stack")
	}
}
