package room

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNicknameRunes is the longest nickname a phone may give: enough for a
// first name and an initial, short enough for a projector's list.
const MaxNicknameRunes = 24

// Errors about nicknames and removed devices.
var (
	ErrNicknameTaken = errors.New("room: another phone in this room already uses that nickname; choose another")
	ErrRemoved       = errors.New("room: the presenter removed this device from the room; ask them to let it back in")
	ErrNotRemoved    = errors.New("room: no removed device has that name")
)

// NicknameError says what is wrong with a typed nickname.
type NicknameError struct{ Why string }

func (e *NicknameError) Error() string { return "room: nickname: " + e.Why }

// NormaliseNickname trims a typed nickname and folds its runs of spaces to
// one, and refuses one that is too long or holds what is not a letter, a
// digit, a space or plain punctuation: no markup characters (< > & " ' `),
// no control or invisible characters, so it shows the same on every
// screen. "" stays "" (no nickname).
func NormaliseNickname(typed string) (string, error) {
	if !utf8.ValidString(typed) {
		return "", &NicknameError{"it is not valid text"}
	}
	name := strings.Join(strings.Fields(typed), " ")
	if n := utf8.RuneCountInString(name); n > MaxNicknameRunes {
		return "", &NicknameError{fmt.Sprintf("%d characters, more than %d", n, MaxNicknameRunes)}
	}
	for _, r := range name {
		switch {
		case strings.ContainsRune("<>&\"'`", r):
			return "", &NicknameError{fmt.Sprintf("%q is not allowed in a nickname", r)}
		case unicode.IsLetter(r), unicode.IsDigit(r), r == ' ', unicode.IsPunct(r), unicode.IsMark(r):
		default:
			return "", &NicknameError{fmt.Sprintf("%q is not a letter, digit or punctuation", r)}
		}
	}
	return name, nil
}

// sameNickname compares nicknames as people read them: "Ana" and "ana"
// are one name on a projector.
func sameNickname(a, b string) bool { return strings.EqualFold(a, b) }

// Nickname is the name attendee gave, or "" for none.
func (r *Room) Nickname(attendee string) string { return r.Names[attendee] }

// Called is what pages call an attendee's device: its nickname, or "phone"
// and its public name (DeviceName) when it gave none.
func (r *Room) Called(attendee string) string {
	if n := r.Names[attendee]; n != "" {
		return n
	}
	return "phone " + DeviceName(attendee)
}

// name gives attendee the nickname name (already normalised), unless
// another attendee has it; "" forgets the attendee's nickname.
func (r *Room) name(attendee, name string) error {
	if name == "" {
		delete(r.Names, attendee)
		return nil
	}
	for id, n := range r.Names {
		if id != attendee && sameNickname(n, name) {
			return ErrNicknameTaken
		}
	}
	if r.Names == nil {
		r.Names = map[string]string{}
	}
	r.Names[attendee] = name
	return nil
}

// attendeeNamed is the attendee whose DeviceName is device.
func (r *Room) attendeeNamed(device string) (string, bool) {
	for id := range r.Attendees {
		if DeviceName(id) == device {
			return id, true
		}
	}
	return "", false
}

// removedDevice is a device the presenter removed: kept out until let back.
type removedDevice struct {
	// Hash is hashSecret of the device's attendee id, so a device coming
	// back with its old cookie is recognised without the id being kept.
	Hash     string `json:"hash"`
	Name     string `json:"name"` // its DeviceName, for the devices page
	Nickname string `json:"nickname,omitempty"`
}

// isRemoved reports whether the device holding attendee id was removed.
func (r *Room) isRemoved(attendee string) bool {
	if attendee == "" {
		return false
	}
	h := hashSecret(attendee)
	for _, d := range r.Removed {
		if sameHash(d.Hash, h) {
			return true
		}
	}
	return false
}

// WasRemoved reports whether the device holding attendee id was removed
// from the room (and not let back).
func (r *Room) WasRemoved(attendee string) bool { return r.isRemoved(attendee) }

// letBack lets the removed device named device join again.
func (r *Room) letBack(device string) error {
	for i, d := range r.Removed {
		if d.Name == device {
			r.Removed = append(r.Removed[:i], r.Removed[i+1:]...)
			return nil
		}
	}
	return ErrNotRemoved
}

// RemovedDevice is a removed device as the presenter's list shows it.
type RemovedDevice struct {
	Name     string // its DeviceName
	Nickname string // the nickname it had
}

// RemovedDevices lists the devices kept out, oldest removal first.
func (r *Room) RemovedDevices() []RemovedDevice {
	out := make([]RemovedDevice, len(r.Removed))
	for i, d := range r.Removed {
		out[i] = RemovedDevice{Name: d.Name, Nickname: d.Nickname}
	}
	return out
}
