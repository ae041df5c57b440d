package traffic

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/traffic"
	"github.com/windowlab/playground/web"
)

// VisitorCookie names the random id that finds a visitor's upload.
const VisitorCookie = "traffic-visitor"

// Feature serves /traffic.
func Feature() web.Feature {
	return web.FeatureFunc(func(s *web.Server, r chi.Router) error {
		h := &handlers{s: s, store: newStore(s.Now)}
		s.AllowBody("/traffic", MaxUploadBytes)
		r.Get("/traffic", h.page)
		r.Post("/traffic", h.upload)
		return nil
	})
}

type handlers struct {
	s     *web.Server
	store *store
}

// form is what the visitor chose, as the form shows it again.
type form struct {
	Key      string
	Format   string
	Limit    string
	Window   string
	Policies []string
}

func defaultForm() form {
	return form{Key: "client", Format: "auto", Limit: "100", Window: "1m", Policies: slices.Clone(policies.Names)}
}

func visitor(r *http.Request) string {
	if c, err := r.Cookie(VisitorCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	return ""
}

func (h *handlers) page(w http.ResponseWriter, r *http.Request) {
	var u *upload
	if id := visitor(r); id != "" {
		u = h.store.get(id)
	}
	v := pageView{Page: h.s.Page(r, "Your traffic", ""), Form: defaultForm()}
	if u != nil {
		v.Form = u.form()
		v.Result = newResult(u, r.URL.Query())
	}
	h.s.Render(w, r, http.StatusOK, Page(v))
}

// upload reads the multipart form as it arrives: the settings, then the
// log, parsed as it streams (the file input is the form's last field).
func (h *handlers) upload(w http.ResponseWriter, r *http.Request) {
	v := pageView{Page: h.s.Page(r, "Your traffic", ""), Form: defaultForm()}
	fail := func(status int, msg string) {
		v.Problem = msg
		h.s.Render(w, r, status, Page(v))
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		fail(http.StatusBadRequest, "Send the form with its file (multipart/form-data).")
		return
	}
	select {
	case h.store.parsing <- struct{}{}:
		defer func() { <-h.store.parsing }()
	default:
		w.Header().Set("Retry-After", "5")
		fail(http.StatusServiceUnavailable, "Other logs are being read just now; try again in a few seconds.")
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		fail(http.StatusBadRequest, "The form could not be read: "+err.Error())
		return
	}
	v.Form.Policies = nil
	var t *traffic.Trace
	var set traffic.Settings
	for t == nil {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			h.uploadError(fail, err)
			return
		}
		if part.FormName() != "log" {
			b, err := io.ReadAll(io.LimitReader(part, 1024))
			if err != nil {
				h.uploadError(fail, err)
				return
			}
			val := strings.TrimSpace(string(b))
			switch part.FormName() {
			case "key":
				v.Form.Key = val
			case "format":
				v.Form.Format = val
			case "limit":
				v.Form.Limit = val
			case "window":
				v.Form.Window = val
			case "policy":
				v.Form.Policies = append(v.Form.Policies, val)
			}
			continue
		}
		var opts traffic.Options
		var problem string
		if opts, set, problem = v.Form.settings(); problem != "" {
			fail(http.StatusBadRequest, problem)
			return
		}
		name := part.FileName()
		if name == "" {
			name = "the upload"
		}
		opts.WindowMs = set.WindowMs
		t, err = traffic.Load(traffic.Source{Name: name, R: part}, opts, MaxRequests)
		if err != nil {
			h.uploadError(fail, err)
			return
		}
	}
	if t == nil {
		fail(http.StatusBadRequest, "Choose a log file to upload.")
		return
	}
	u, err := compute(r.Context(), t, set)
	if err != nil {
		h.uploadError(fail, err)
		return
	}
	id := visitor(r)
	if id == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
		http.SetCookie(w, &http.Cookie{Name: VisitorCookie, Value: id, Path: "/traffic", HttpOnly: true, SameSite: http.SameSiteLaxMode, MaxAge: int(HeldFor.Seconds())})
	}
	h.store.put(id, u)
	http.Redirect(w, r, "/traffic", http.StatusSeeOther)
}

// uploadError answers what went wrong reading an upload: the log's own
// problems with 400 (413 past the bound), anything else logged and worded
// plainly.
func (h *handlers) uploadError(fail func(int, string), err error) {
	switch {
	case web.BodyTooLarge(err):
		fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("The upload is larger than %d MB; upload a part of the log (or gzip it).", MaxUploadBytes>>20))
	case errors.Is(err, traffic.ErrBadLog):
		p := web.ProblemOf(err)
		fail(p.Status, p.Message)
	default:
		h.s.Log().Warn("reading an uploaded log", slog.Any("error", err))
		fail(http.StatusBadRequest, "The upload could not be read to its end; try again.")
	}
}

// settings reads the form's choices as package traffic takes them.
func (f form) settings() (traffic.Options, traffic.Settings, string) {
	var opts traffic.Options
	var set traffic.Settings
	var err error
	if opts.Format, err = traffic.ParseFormat(f.Format); err != nil {
		return opts, set, "Format: " + err.Error()
	}
	if opts.Key, err = traffic.ParseKey(f.Key); err != nil {
		return opts, set, "Key: " + err.Error()
	}
	if set.Limit, err = strconv.ParseInt(f.Limit, 10, 64); err != nil {
		return opts, set, fmt.Sprintf("Limit: %q is not a whole number.", f.Limit)
	}
	d, err := time.ParseDuration(f.Window)
	if err != nil || d%time.Millisecond != 0 {
		return opts, set, fmt.Sprintf("Window: %q is not a duration such as 1m, 30s or 500ms.", f.Window)
	}
	set.WindowMs = d.Milliseconds()
	for _, ref := range f.Policies {
		spec, err := scenario.ParsePolicyRef(ref)
		if err != nil {
			return opts, set, "Policies: " + err.Error()
		}
		set.Policies = append(set.Policies, spec)
	}
	if len(set.Policies) == 0 {
		return opts, set, "Policies: choose at least one."
	}
	if err := set.Validate(); err != nil {
		return opts, set, strings.TrimPrefix(err.Error(), "traffic: ")
	}
	return opts, set, ""
}

// form is the upload's settings as the form shows them.
func (u *upload) form() form {
	f := form{Key: u.trace.Summary.Key, Format: string(u.trace.Summary.Format), Limit: strconv.FormatInt(u.set.Limit, 10),
		Window: (time.Duration(u.set.WindowMs) * time.Millisecond).String()}
	for _, p := range u.set.Policies {
		f.Policies = append(f.Policies, p.Name) // the form offers names alone
	}
	return f
}

// compute replays an uploaded trace once for everything the page shows.
func compute(ctx context.Context, t *traffic.Trace, set traffic.Settings) (*upload, error) {
	u := &upload{trace: t, set: set}
	var err error
	if u.outcomes, err = traffic.Outcomes(ctx, t, set); err != nil {
		return nil, err
	}
	if u.report, err = traffic.ReplayTrace(ctx, t, set, 0); err != nil {
		return nil, err
	}
	if u.sweep, err = traffic.SweepTrace(ctx, t, set, sweepLimits(set.Limit)); err != nil {
		return nil, err
	}
	return u, nil
}

// sweepLimits are 20 limits around the chosen one, from a quarter of it
// to three times it.
func sweepLimits(limit int64) []int64 {
	lo := max(1, limit/4)
	hi := min(scenario.MaxLimit, max(3*limit, lo+19))
	step := max(1, (hi-lo)/19)
	var out []int64
	for l := lo; l <= hi && len(out) < 20; l += step {
		out = append(out, l)
	}
	return out
}
