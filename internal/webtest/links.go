package webtest

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// LocalLinks is every same-site link of a page, fragments-only left out.
func LocalLinks(t testing.TB, body string) (*goquery.Document, []string) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		if h := a.AttrOr("href", ""); strings.HasPrefix(h, "/") && !strings.HasPrefix(h, "//") {
			links = append(links, h)
		}
	})
	return doc, links
}
