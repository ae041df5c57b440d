package ask

// Check reads an answer to q and compares it with sol, the truth q's kind
// computed.
func Check(q Question, sol Solution, text string, choices []string) (Feedback, error) {
	k, err := Of(q)
	if err != nil {
		return Feedback{}, err
	}
	fb := k.Grade(q, sol, text, choices)
	clue(k, q, sol, text, choices, &fb)
	return fb, nil
}

// Right is the single answer sol states, as an Answer.
func (sol Solution) Right() Answer {
	return Answer{Outcome: sol.Outcome, Moment: sol.Moment, Wait: sol.Wait, Count: sol.Count, Admit: sol.Admit}
}

// read starts the feedback of most kinds: the right answer in words, and
// the answer read (ok) or why it could not be.
func read(k Kind, q Question, sol Solution, text string, choices []string) (fb Feedback, ans Answer, ok bool) {
	fb = Feedback{Solution: sol, Right: k.Text(q, sol.Right())}
	ans, err := k.Parse(q, text, choices)
	if err != nil {
		fb.Problem = err.Error()
		return fb, ans, false
	}
	fb.Readable = true
	fb.Given = k.Text(q, ans)
	return fb, ans, true
}

// direction says which way a wrong number is off, in the words given for
// more and fewer, "" when it is right.
func direction(given, right int64, more, fewer string) string {
	switch {
	case given > right:
		return more
	case given < right:
		return fewer
	}
	return ""
}
