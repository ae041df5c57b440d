package webtest

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// What the browser tests of several features measure alike.

// Box is an element's bounding Box in CSS pixels, as the page lays it out.
type Box struct {
	Name                     string
	Left, Top, Right, Bottom float64
	// Hidden is content the element cuts off or scrolls inside itself.
	Hidden float64
}

// EmulateScheme makes the tab's pages see the OS's light or dark setting.
func EmulateScheme(t testing.TB, tab *browsertest.Tab, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(tab.Context(), emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	}); err != nil {
		t.Fatal(err)
	}
}

// CarParkScenario is the car park with the given lanes: nil keeps the
// playground's four default lanes.
func CarParkScenario(t testing.TB, lanes []scenario.PolicySpec) scenario.Scenario {
	t.Helper()
	sc := play.DefaultScenario()
	if lanes != nil {
		sc.Policies = lanes
	}
	for _, a := range CarParkArrivals {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(a.Sec) * 1000, Cost: 1, Count: int64(a.Cars)})
	}
	return sc
}

// ContrastJS measures the "disagree" orange, as WCAG contrast ratios: the
// key's text against the background it sits on, and the lanes' ▼ marks
// against their lane's background with each shading that can lie under a
// mark (the windows, the log's look-back) blended in as the page draws it.
const ContrastJS = `(() => {
	const rgb = c => c.match(/[\d.]+/g).slice(0, 3).map(Number);
	const lum = ([r, g, b]) => 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
	const ch = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
	const ratio = (p, q) => { const [a, b] = [lum(p), lum(q)].sort((x, y) => y - x); return (a + 0.05) / (b + 0.05); };
	const backdrop = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (!/^rgba\(.*, 0\)$/.test(c) && c !== 'transparent') return rgb(c); } return [255, 255, 255]; };
	const out = {};
	for (const k of document.querySelectorAll('.key-disagree')) {
		out['text ' + (k.closest('[id]') || k).id] = ratio(rgb(getComputedStyle(k).color), backdrop(k));
	}
	for (const m of document.querySelectorAll('.lane-svg .disagree')) {
		const svg = m.closest('svg'), fill = rgb(getComputedStyle(m).fill), bg = backdrop(svg);
		out['mark ' + svg.closest('[data-testid=lane]').id] = ratio(fill, bg);
		for (const o of svg.querySelectorAll('.band, .lookback')) {
			const s = getComputedStyle(o), a = Number(s.opacity), f = rgb(s.fill);
			const under = bg.map((v, i) => v * (1 - a) + f[i] * a);
			const name = 'mark ' + svg.closest('[data-testid=lane]').id + ' on ' + o.getAttribute('class');
			out[name] = Math.min(out[name] || Infinity, ratio(fill, under));
		}
	}
	return out;
})()`

// HasPrefix reports whether some key of m starts with prefix.
func HasPrefix(m map[string]float64, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
