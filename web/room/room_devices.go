package room

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// devices is the presenter's list of the devices that joined.
func (f *Feature) devices(w http.ResponseWriter, r *http.Request) {
	rm, _ := presenterOf(r)
	f.devicesPage(w, r, rm, http.StatusOK, "")
}

func (f *Feature) devicesPage(w http.ResponseWriter, r *http.Request, rm *room.Room, status int, problem string) {
	p := devicesModel(rm)
	p.Page, p.Error = f.s.Page(r, "Devices in the room", templates.SectionNone), problem
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, status, pages.RoomDevicesView(p))
}

// devicesLive sends the devices page its list again (it asks every few
// seconds), so the presenter sees who joins and answers as it happens.
func (f *Feature) devicesLive(w http.ResponseWriter, r *http.Request) {
	rm, _ := presenterOf(r)
	sse := web.SSEReply(w, r, http.StatusOK, "")
	_ = web.MergeComponent(sse, pages.RoomDevicesList(devicesModel(rm)))
}

// refuseLive answers the devices page's refused ask for its list in the
// list's place.
func (f *Feature) refuseLive(w http.ResponseWriter, r *http.Request, err error) {
	sse := web.SSEReply(w, r, roomStatus(err), roomMessage(err))
	_ = web.MergeFragments(sse, `<div id="devices-list" data-testid="devices-list"><p role="alert">`+templ.EscapeString(roomMessage(err))+`</p></div>`)
}

func devicesModel(rm *room.Room) pages.RoomDevices {
	p := pages.RoomDevices{Room: rm.ID, JoinsClosed: rm.JoinsClosed, Open: rm.Question != nil && !rm.Question.Revealed}
	for id, at := range rm.Attendees {
		_, answered := answerOf(rm.Question, id)
		p.Devices = append(p.Devices, pages.RoomDevice{Name: room.DeviceName(id), Nickname: rm.Nickname(id),
			Joined: at.UTC().Format(time.RFC3339), Answered: answered})
	}
	slices.SortFunc(p.Devices, func(a, b pages.RoomDevice) int {
		return cmp.Or(cmp.Compare(a.Joined, b.Joined), cmp.Compare(a.Name, b.Name))
	})
	for _, d := range rm.RemovedDevices() {
		p.Removed = append(p.Removed, pages.RoomDevice{Name: d.Name, Nickname: d.Nickname})
	}
	return p
}

// devicesAction closes or opens the room to new devices (POST .../joins,
// open=0 or 1) or removes one (POST .../devices/remove, device=<name>),
// then shows the list again (POST, redirect, GET).
func (f *Feature) devicesAction(w http.ResponseWriter, r *http.Request) {
	rm, token := presenterOf(r)
	id := rm.ID
	r.Body = http.MaxBytesReader(w, r.Body, webplay.MaxSignalBytes)
	var err error
	if strings.HasSuffix(r.URL.Path, "/joins") {
		switch r.PostFormValue("open") {
		case "0", "1":
			_, err = f.rooms.SetJoins(r.Context(), id, token, r.PostFormValue("open") == "1")
		default:
			f.devicesPage(w, r, rm, http.StatusBadRequest, "Want open=1 (open the room to new devices) or open=0 (close it).")
			return
		}
	} else {
		switch device := r.PostFormValue("device"); {
		case strings.HasSuffix(r.URL.Path, "/letback"):
			_, err = f.rooms.LetBack(r.Context(), id, token, device)
		case strings.HasSuffix(r.URL.Path, "/rename"):
			_, err = f.rooms.Rename(r.Context(), id, token, device, r.PostFormValue("nickname"))
		default:
			_, err = f.rooms.RemoveDevice(r.Context(), id, token, device)
		}
	}
	switch {
	case err != nil:
		if rm, ok := f.roomNow(w, r); ok {
			f.devicesPage(w, r, rm, roomStatus(err), roomMessage(err))
		}
	default:
		http.Redirect(w, r, "/room/"+id+"/devices", http.StatusSeeOther)
	}
}
