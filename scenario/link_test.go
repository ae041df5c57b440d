package scenario

import (
	"errors"
	"net/url"
	"reflect"
	"testing"
)

func TestURLRoundTrip(t *testing.T) {
	cp := loadCarPark(t)
	link := EncodeURL(cp)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/play" {
		t.Errorf("path %q", u.Path)
	}
	got, err := DecodeURL(u.Query())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cp) {
		t.Errorf("round trip: %+v, want %+v", got, cp)
	}
	// Hand-written JSON links work too.
	if _, err := DecodeParam(`{"limit":2,"windowMs":1000,"requests":[{"at":5}]}`); err != nil {
		t.Errorf("JSON link: %v", err)
	}
}

func TestMalformedLinks(t *testing.T) {
	good := EncodeParam(loadCarPark(t))
	for _, s := range []string{"", "%%%", good[:len(good)/2], "AAAA", `{"limit":0,"windowMs":1000}`, `{"limit":`} {
		_, err := DecodeParam(s)
		var errs Errors
		if !errors.As(err, &errs) {
			t.Errorf("DecodeParam(%q) = %v, want Errors", s, err)
		}
	}
	if _, err := DecodeURL(url.Values{}); err == nil {
		t.Error("a link without s decoded")
	}
}
