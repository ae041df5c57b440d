package pages

import "github.com/windowlab/playground/lane"

// The viewBox of a projector lane when a room shows six lanes or more.
// There (room.css) a lane is a seventh of the screen's height, its name
// in a narrow column and the drawing in the rest, about 6.4:1 (585 × 92
// px at 720 p, 875 × 138 at 1080 p). A viewBox of that shape and 108
// units high draws a unit at about 0.85 px at 720 p (1.28 px at 1080 p):
// the axis, limit and band labels, 16 units, stay above the projector's
// size rule (docs/rooms.md), and the plot inside the margins is some 55
// px high at 720 p, the limit line about 37 px above the axis.
const (
	roomDenseLaneHeight = 108
	roomDenseLaneWidth  = 690
)

func roomDenseLaneOptions() lane.Options {
	return lane.Options{Width: roomDenseLaneWidth, Height: roomDenseLaneHeight}
}
