package pages

// PlayRoomLink is a running room a browser presents, as /play links back
// to it: the room's id (in its addresses) and its join code (what the
// presenter knows it by).
type PlayRoomLink struct {
	ID, Code string
}
