package lessons

import "testing"

func BenchmarkRenderEveryLesson(b *testing.B) {
	lib, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, l := range lib.Lessons {
			if _, err := lib.Render(l, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}
