package templates

// StreamOnLoad is the data-on-load expression of a live page's stream
// element (which also carries the class "live-stream"): it opens the
// stream at url with Datastar's own retries turned off, since
// stream-connection.js reopens every stream, however it ended, with a
// back-off capped at 3 s and no limit on attempts (the beta.11 bundle's
// own gives up after 10 and never reopens a cleanly closed stream).
// url is the server's own path, never a visitor's text.
func StreamOnLoad(url string) string {
	return StreamOnLoadAt("'" + url + "'")
}

// StreamOnLoadAt is StreamOnLoad with the URL an expression the page
// works out (built from the server's own path, never a visitor's text).
func StreamOnLoadAt(expr string) string {
	return "@get(" + expr + ", {retryMaxCount: 0})"
}
