package templates

import "strconv"

// NumberWord writes a small count as a sentence writes it ("seven"), in
// digits past twelve, so that a sentence about the lessons or the
// playground's lanes follows what is there rather than what once was.
func NumberWord(n int) string {
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}
