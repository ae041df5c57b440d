package pages

// Preset is a scenario the playground offers to start from: its name in
// lessons/scenarios, its label, and the playground link that opens it.
type Preset struct {
	Name, Label string
	URL         string
}
