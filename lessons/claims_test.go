package lessons

import "testing"

// admitted and refused count the whole scenario, or with "at" only the
// requests it holds at that instant; the measures that judge the whole
// scenario refuse an instant rather than ignore it. By hand, on the car
// park under a fixed window of 5 per 30 s: the window from 0 s takes the
// car at 0 s, the two at 5 s and the two at 15 s (5), so the car at 25 s is
// refused; the window from 30 s takes the car at 35 s and the three at
// 40 s. 9 admitted in all, 3 of them at 40 s, none at 25 s.
func TestAdmittedAtAnInstant(t *testing.T) {
	for _, tt := range []struct {
		claim, want string
	}{
		{"admitted fixed-window car-park", "9"},
		{"admitted fixed-window car-park at 40s", "3"},
		{"admitted fixed-window car-park at 25s", "0"},
		{"refused fixed-window car-park at 25s", "1"},
		{"refused fixed-window car-park at 40s", "0"},
		{"admitted fixed-window car-park at 10s", "the scenario has no requests at 10 s to count"},
		{"differ sliding-counter/exact car-park at 35s", `differ is over the whole scenario: it takes no "at"`},
		{"most-in-window fixed-window car-park at 35s", `most-in-window is over the whole scenario: it takes no "at"`},
	} {
		if got := computedClaim(t, tt.claim); got != tt.want {
			t.Errorf("{{%s}} = %q, want %q", tt.claim, got, tt.want)
		}
	}
}

// computedClaim renders a lesson holding only {{claim = 0}} and returns
// what the claim computed, or its error's text.
func computedClaim(t *testing.T, claim string) string {
	t.Helper()
	lib, l := predictLib(t, "So {{"+claim+" = 0}}.\n")
	r, err := lib.Render(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Claims) != 1 {
		t.Fatalf("%s: %d claims rendered, want 1", claim, len(r.Claims))
	}
	if r.Claims[0].Err != nil {
		return r.Claims[0].Err.Error()
	}
	return r.Claims[0].Computed
}
