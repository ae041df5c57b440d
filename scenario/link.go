package scenario

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// A scenario link opens the playground on a scenario: PlayPath?s=VALUE,
// where VALUE is the scenario's JSON compressed with raw DEFLATE and
// base64url-encoded without padding, or the JSON itself (a value starting
// with "{"), for links people write by hand. Lessons, exercise feedback and
// the playground's "share" all build their links here.

// PlayPath is where the playground page is served.
const PlayPath = "/play"

// MaxParamBytes bounds the s parameter of a shared link before decoding.
const MaxParamBytes = 256 << 10

// EncodeParam returns the value of the s parameter that carries sc.
func EncodeParam(sc Scenario) string {
	data, err := json.Marshal(sc)
	if err != nil {
		// A Scenario holds only numbers and strings: Marshal cannot fail.
		panic("scenario: encoding a scenario: " + err.Error())
	}
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestCompression) // the level is valid
	zw.Write(data)
	zw.Close()
	return base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// EncodeURL returns the path and query of a playground link that opens sc.
func EncodeURL(sc Scenario) string {
	return PlayPath + "?s=" + EncodeParam(sc)
}

// DecodeParam reads the value of a shared link's s parameter: the compressed
// form EncodeParam writes, or scenario JSON. The scenario is validated; every
// error is a Errors naming the problem.
func DecodeParam(s string) (Scenario, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Scenario{}, linkError("the link carries no scenario (s is empty)")
	case len(s) > MaxParamBytes:
		return Scenario{}, linkError(fmt.Sprintf("the link's scenario is longer than %d bytes", MaxParamBytes))
	case s[0] == '{':
		return Parse([]byte(s))
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return Scenario{}, linkError("the link's scenario is not valid base64url; was it cut short when copied?")
	}
	data, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), MaxBodyBytes+1))
	if err != nil {
		return Scenario{}, linkError("the link's scenario does not decompress; was it cut short when copied?")
	}
	if len(data) > MaxBodyBytes {
		return Scenario{}, linkError(fmt.Sprintf("the link's scenario is larger than %d bytes", MaxBodyBytes))
	}
	return Parse(data)
}

// DecodeURL reads the scenario from a playground link's query (the part
// after "?", or url.Values parsed from it).
func DecodeURL(q url.Values) (Scenario, error) {
	if !q.Has("s") {
		return Scenario{}, linkError("the link carries no scenario (no s parameter)")
	}
	return DecodeParam(q.Get("s"))
}

func linkError(reason string) error {
	return Errors{{Field: "s", Reason: reason}}
}
