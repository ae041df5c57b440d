package scenario

import "fmt"

// ParseDeployment reads a lane's deployment on its own, as a JSON object
// of the policy object's deployment fields ("nodes", "route", "seed",
// "syncMs", "central", "skewMs"), with the errors Parse gives for them in a
// policy object: each names its field ("nodes", "skewMs[1]"), with the
// reason Parse states. The playground's settings form sends each lane's
// deployment this way, so that a learner who types 0 nodes there reads
// what simulate would say of the same 0 in a file. Every other field is
// refused as unknown.
func ParseDeployment(raw []byte) (Deployment, Errors) {
	var w wireDeployment
	errs := decodeFields(raw, &w, map[string]any{
		"nodes": &w.Nodes, "route": &w.Route, "seed": &w.Seed, "syncMs": &w.SyncMs,
		"central": &w.Central, "skewMs": &w.SkewMs,
	})
	var d Deployment
	errs = w.read(&d, errs)
	if len(errs) > 0 {
		return Deployment{}, errs
	}
	checkDeployment(func(field, format string, args ...any) {
		errs = append(errs, FieldError{field, fmt.Sprintf(format, args...)})
	}, "", d)
	for i := range errs {
		if errs[i].Field != "" && errs[i].Field[0] == '.' {
			errs[i].Field = errs[i].Field[1:] // checkDeployment's paths start at the lane
		}
	}
	if len(errs) > 0 {
		return Deployment{}, errs
	}
	return d, nil
}
