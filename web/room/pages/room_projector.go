package pages

import "github.com/windowlab/playground/lane"

// The viewBox of a projector lane when a room shows six lanes or more.
// PresentLaneOptions' shape (1.1 × lanes wide for each unit high, 847 × 110
// with seven) is wider than the slot room.css leaves the drawing beside a
// third-of-the-width name and status column (about 6.2:1), so the drawing
// was letterboxed at 0.55 px a unit and its labels, 16 units, came out at
// 8.8 px on a 720 p screen. A viewBox of the slot's own shape and 90 units
// high draws a unit at about 0.9 px at 720 p (1.35 px at 1080 p): the axis,
// limit and band labels meet the projector's size rule (docs/rooms.md),
// and the plot inside the margins keeps about the height it had on screen.
const (
	roomDenseLaneHeight = 90
	roomDenseLaneWidth  = 560
)

func roomDenseLaneOptions() lane.Options {
	return lane.Options{Width: roomDenseLaneWidth, Height: roomDenseLaneHeight}
}
