package conform

import (
	"sync"

	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/scenario"
)

// lessonScenarios are the lessons' scenarios, loaded once.
var lessonScenarios = sync.OnceValues(func() (map[string]scenario.Scenario, error) {
	lib, err := lessons.Load()
	if err != nil {
		return nil, err
	}
	return lib.Scenarios, nil
})
