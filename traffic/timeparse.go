package traffic

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/windowlab/playground/policies"
)

// TimeUnit says what a number in a JSON or CSV log's time field counts.
type TimeUnit string

// The units. Auto reads a number by its size: below 1e11 seconds (until
// the year 5138), below 1e14 milliseconds, else microseconds.
const (
	Auto         TimeUnit = "auto"
	Seconds      TimeUnit = "s"
	Milliseconds TimeUnit = "ms"
	Microseconds TimeUnit = "us"
)

// ParseTimeUnit reads a unit's name.
func ParseTimeUnit(s string) (TimeUnit, error) {
	switch u := TimeUnit(s); u {
	case "", Auto:
		return Auto, nil
	case Seconds, Milliseconds, Microseconds:
		return u, nil
	case "µs":
		return Microseconds, nil
	}
	return "", fmt.Errorf("time unit %q: want auto, s, ms or us", s)
}

// parseTime reads a time written as RFC 3339 or as a number of the unit
// since the epoch (fractions allowed), in ms.
func parseTime(b []byte, unit TimeUnit) (int64, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0, fmt.Errorf("no time")
	}
	var ms int64
	if c := b[0]; (c >= '0' && c <= '9' || c == '.') && !bytes.ContainsAny(b, "-:T") {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("time %q is not a number", clip(b))
		}
		u := unit
		if u == Auto || u == "" {
			switch {
			case f < 1e11:
				u = Seconds
			case f < 1e14:
				u = Milliseconds
			default:
				u = Microseconds
			}
		}
		switch u {
		case Seconds:
			f *= 1000
		case Microseconds:
			f /= 1000
		}
		if f < 0 || f > float64(policies.MaxTime) {
			return 0, fmt.Errorf("time %q is out of range (1970 to 2109)", clip(b))
		}
		ms = int64(math.Floor(f))
	} else {
		t, err := time.Parse(time.RFC3339Nano, string(b))
		if err != nil {
			return 0, fmt.Errorf("time %q is neither RFC 3339 nor a number", clip(b))
		}
		ms = t.UnixMilli()
	}
	if ms < 0 || ms > policies.MaxTime {
		return 0, fmt.Errorf("time %q is out of range (1970 to 2109)", clip(b))
	}
	return ms, nil
}

// clfClock reads the Common Log Format's time, "10/Oct/2000:13:55:36
// -0700", by hand: the layout is fixed, and time.Parse would be most of
// the cost of reading a line. The day's number is kept for the next line,
// which is almost always of the same day.
type clfClock struct {
	date [11]byte
	day  int64 // days since the epoch of date
	ok   bool
}

func (c *clfClock) parse(b []byte) (int64, bool) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' {
		return 0, false
	}
	if !c.ok || !bytes.Equal(c.date[:], b[:11]) {
		d, ok1 := digits(b[0:2])
		y, ok2 := digits(b[7:11])
		m := month(b[3:6])
		if !ok1 || !ok2 || m == 0 {
			return 0, false
		}
		t := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
		if t.Day() != int(d) { // 31/Feb rolls over
			return 0, false
		}
		copy(c.date[:], b[:11])
		c.day, c.ok = t.Unix()/86400, true
	}
	h, ok1 := digits(b[12:14])
	mi, ok2 := digits(b[15:17])
	s, ok3 := digits(b[18:20])
	zh, ok4 := digits(b[22:24])
	zm, ok5 := digits(b[24:26])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || h > 23 || mi > 59 || s > 60 || (b[21] != '+' && b[21] != '-') {
		return 0, false
	}
	zone := zh*3600 + zm*60
	if b[21] == '-' {
		zone = -zone
	}
	ms := (c.day*86400 + h*3600 + mi*60 + s - zone) * 1000
	return ms, ms >= 0 && ms <= policies.MaxTime
}

func digits(b []byte) (int64, bool) {
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func month(b []byte) int {
	switch string(b) {
	case "Jan":
		return 1
	case "Feb":
		return 2
	case "Mar":
		return 3
	case "Apr":
		return 4
	case "May":
		return 5
	case "Jun":
		return 6
	case "Jul":
		return 7
	case "Aug":
		return 8
	case "Sep":
		return 9
	case "Oct":
		return 10
	case "Nov":
		return 11
	case "Dec":
		return 12
	}
	return 0
}

// clip quotes at most 60 bytes of b in a message.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
