package config

import (
	"maps"
	"reflect"
)

// Merge returns a new File with, for each key, the value of the last layer
// that sets it: pass the layers from the lowest precedence to the highest
// (file, environment, flags). A nil layer is skipped. Env is merged name
// by name, so a later layer adds variables and overrides those it names.
// The result shares no slices or maps with the layers.
func Merge(layers ...*File) *File {
	out := &File{}
	for _, l := range layers {
		if l == nil {
			continue
		}
		for i := range fields {
			fd := &fields[i]
			src := fd.value(l)
			if !isSet(src) {
				continue
			}
			dst := fd.value(out)
			switch fd.typ {
			case stringsType:
				dst.Set(reflect.ValueOf(clone(src.Interface().([]string))))
			case mapType:
				m, _ := dst.Interface().(map[string]string)
				if m == nil {
					m = map[string]string{}
				}
				maps.Copy(m, src.Interface().(map[string]string))
				dst.Set(reflect.ValueOf(m))
			default:
				p := reflect.New(fd.typ.Elem())
				p.Elem().Set(src.Elem())
				dst.Set(p)
			}
		}
	}
	return out
}
