package web_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/windowlab/playground/play"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
)

// A malformed address is answered with 400 and a sentence naming the part
// that was wrong, never silently read as something else.
func TestMalformedAddressesAreNamed(t *testing.T) {
	lib, set, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	_, base, _ := newTestServer(t, webplay.Playground(play.NewStore(nil)), weblessons.Lessons(lib, set))
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/play?t=abc", http.StatusBadRequest, `t: &#34;abc&#34; is not a clock time`},
		{"/play?t=-5", http.StatusBadRequest, `t: &#34;-5&#34; is not a clock time`},
		{"/play?t=5000", http.StatusOK, `data-testid="clock"`},
		{"/exercises/try-it-1-exact?seed=abc", http.StatusBadRequest, `Variant “abc” in the address is not a whole number`},
		{"/exercises/try-it-1-exact?seed=-1", http.StatusBadRequest, `Variant “-1” in the address`},
		{"/exercises/try-it-1-exact?seed=7", http.StatusOK, `data-testid="question"`},
	}
	for _, tt := range tests {
		res := get(t, base+tt.path)
		assert.Equal(t, tt.status, res.status, tt.path)
		assert.Contains(t, res.body, tt.want, tt.path)
	}
}
