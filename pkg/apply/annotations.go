package apply

import (
	"reflect"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// annotation returns one of the resource's metadata.annotations, "" when
// it is not set.
//
// The field is looked up by name because manifest.Resource gains its
// Annotations map (metadata.annotations, string values) in a change being
// made beside this one; once it is in, this becomes r.Annotations[key].
func annotation(r *manifest.Resource, key string) string {
	if r == nil {
		return ""
	}
	f := reflect.ValueOf(r).Elem().FieldByName("Annotations")
	if !f.IsValid() || f.Kind() != reflect.Map || f.Type().Key().Kind() != reflect.String {
		return ""
	}
	v := f.MapIndex(reflect.ValueOf(key))
	if !v.IsValid() {
		return ""
	}
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() != reflect.String {
		return ""
	}
	return v.String()
}
