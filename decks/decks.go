// Package decks holds the workshops shipped with the playground, ready to
// load into a room: each file here is a deck (room.ParseDeck reads it,
// `playground check` checks it).
package decks

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/windowlab/playground/room"
)

//go:embed *.json
var content embed.FS

// Shipped is one deck that comes with the playground.
type Shipped struct {
	Name string // the file's name without .json: what a link names it by
	Deck *room.Deck
}

// Load reads every shipped deck, resolving scenarios through src.
func Load(src room.ScenarioSource, b room.Bounds) ([]Shipped, error) {
	names, err := fs.Glob(content, "*.json")
	if err != nil {
		return nil, err
	}
	var out []Shipped
	for _, name := range names {
		data, err := content.ReadFile(name)
		if err != nil {
			return nil, err
		}
		d, err := room.ParseDeck(data, name, src, b)
		if err != nil {
			return nil, err
		}
		out = append(out, Shipped{Name: strings.TrimSuffix(path.Base(name), ".json"), Deck: d})
	}
	return out, nil
}

// Find returns the shipped deck called name.
func Find(all []Shipped, name string) (*room.Deck, error) {
	for _, s := range all {
		if s.Name == name {
			return s.Deck, nil
		}
	}
	return nil, fmt.Errorf("no shipped deck is called %q", name)
}
