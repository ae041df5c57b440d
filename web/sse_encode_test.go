package web

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/starfederation/datastar-go/datastar"
)

// EncodeFragments must write exactly what MergeFragments sends on a stream,
// so the room's shared bytes speak the same protocol as every other page.
func TestEncodeFragmentsMatchesMergeFragments(t *testing.T) {
	for _, tc := range []struct {
		name string
		html string
		opts []FragmentOption
	}{
		{"one line", `<p id="a">x</p>`, nil},
		{"lines and a carriage return", "<div id=\"b\">\r\n<p>1</p>\n</div>", nil},
		{"selector and mode", `<figure id="lane-3"></figure>`, []FragmentOption{WithSelector("#list"), WithMergeMode(MergeAppend)}},
	} {
		rec := httptest.NewRecorder()
		sse := datastar.NewSSE(rec, httptest.NewRequest("GET", "/", nil))
		if err := MergeFragments(sse, tc.html, tc.opts...); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		EncodeFragments(&got, tc.html, tc.opts...)
		if got.String() != rec.Body.String() {
			t.Errorf("%s: EncodeFragments wrote\n%q\nMergeFragments sent\n%q", tc.name, got.String(), rec.Body.String())
		}
	}
}
