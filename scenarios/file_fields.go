package scenarios

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checkFields reports every mapping key of n that t (a file document type)
// has no field for, with its line and path. yaml's own KnownFields does not
// reach below a type with an UnmarshalYAML method, which at[T] is.
func (p *fileParser) checkFields(n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "at[") {
		t = t.Field(0).Type // the value of at[T]
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		p.checkFields(n.Content[0], t, path)
		return
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			f := t.Field(i)
			if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag != "" && tag != "-" {
				fields[tag] = f.Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			ft, ok := fields[k]
			if !ok {
				known := make([]string, 0, len(fields))
				for name := range fields {
					known = append(known, name)
				}
				slices.Sort(known)
				p.fail(n.Content[i].Line, join(path, k), "unknown field (known: %s)", strings.Join(known, ", "))
				continue
			}
			p.checkFields(n.Content[i+1], ft, join(path, k))
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p.checkFields(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for i, c := range n.Content {
			p.checkFields(c, t.Elem(), path+"["+strconv.Itoa(i)+"]")
		}
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
