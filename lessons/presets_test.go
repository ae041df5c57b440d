package lessons

import (
	"reflect"
	"testing"
)

// Every preset is a scenario of the library, read alike with or without
// one, and the several-servers one is among them.
func TestPresetsAreTheLibrarysScenarios(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	several := false
	for _, p := range Presets {
		got, err := PresetScenario(p.Name)
		if err != nil {
			t.Fatalf("preset %s: %v", p.Name, err)
		}
		want, err := lib.Scenario(p.Name)
		if err != nil {
			t.Fatalf("preset %s is not the library's: %v", p.Name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("preset %s reads differently from the library's scenario", p.Name)
		}
		for _, spec := range got.Specs() {
			several = several || spec.Several()
		}
	}
	if !several {
		t.Error("no preset runs a lane on several servers")
	}
	if _, err := PresetScenario("../secrets"); err == nil {
		t.Error("a name that is no preset is read")
	}
}
