package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// duplicateKeys finds every object member whose name appears earlier in
// the same object, naming it by its path ("limit", "policies[0].burst").
// encoding/json keeps the last of two equal names without a word, so a
// scenario that says "limit" twice would run with whichever came last
// while its writer may have meant the first. Input that is not JSON is
// left to the decoder, which says where it breaks.
func duplicateKeys(data []byte) Errors {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var errs Errors
	// frame is one open object or array: an object's names seen so far and
	// the member being read, an array's next index.
	type frame struct {
		path   string
		object bool
		seen   map[string]bool
		name   string // the member whose value comes next (objects)
		key    bool   // the next token is a member name (objects)
		index  int    // the next element's index (arrays)
	}
	var stack []*frame
	// child is the path of the value about to be read.
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			if f.path == "" {
				return f.name
			}
			return f.path + "." + f.name
		}
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	}
	// done marks the value just read as complete in its parent.
	done := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.key = true
		} else {
			f.index++
		}
	}
	for len(errs) < maxDecodeErrors {
		tok, err := dec.Token()
		if err != nil {
			return errs // io.EOF at the end, or input the decoder reports
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if name, ok := tok.(string); ok {
				if top.seen[name] {
					p := name
					if top.path != "" {
						p = top.path + "." + name
					}
					errs = append(errs, FieldError{p, "given twice: give each field once (JSON keeps only the last, silently)"})
				}
				top.seen[name], top.name, top.key = true, name, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{path: child(), object: true, seen: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: child()})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
	}
	return errs
}
