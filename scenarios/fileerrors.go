package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileError is what is wrong with a scenario file: where, which field,
// what was expected.
type FileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// decodeError turns the decoder's first complaint into a FileError.
func decodeError(file string, err error, lines map[string]int) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line, rest := yamlLine(msg)
	// The field on that line: a key rather than a list item (a flow list
	// sits on its key's line); the deepest key, or the outermost item;
	// then the first by name.
	field := ""
	better := func(f string) bool {
		item, cur := strings.HasSuffix(f, "]"), strings.HasSuffix(field, "]")
		switch {
		case field == "":
			return true
		case item != cur:
			return !item
		case len(f) != len(field):
			return (len(f) > len(field)) != item
		}
		return f < field
	}
	for f, l := range lines {
		if l == line && better(f) {
			field = f
		}
	}
	if m := unknownFieldRE.FindStringSubmatch(rest); m != nil {
		// The unknown key itself, on that line (not a neighbour that
		// shares the line in a flow mapping).
		for f, l := range lines {
			if l == line && (f == m[1] || strings.HasSuffix(f, "."+m[1])) {
				field = f
			}
		}
		var names []string
		if t, ok := schemaTypes[m[2]]; ok {
			for i := 0; i < t.NumField(); i++ {
				names = append(names, tagName(t.Field(i)))
			}
		}
		return &FileError{File: file, Line: line, Field: field, Msg: fmt.Sprintf("unknown field; want one of %s", strings.Join(names, ", "))}
	}
	if m := cannotRE.FindStringSubmatch(rest); m != nil {
		want := map[string]string{"int": "a whole number", "float64": "a number", "bool": "true or false",
			"string": "a string", "[]string": "a list of strings"}[m[3]]
		if want == "" {
			want = "a " + strings.TrimPrefix(strings.TrimPrefix(m[3], "scenarios."), "*")
			if strings.HasPrefix(m[3], "scenarios.file") || strings.HasPrefix(m[3], "*scenarios.file") {
				want = "a mapping of fields"
			}
		}
		got := strconv.Quote(m[2])
		if m[1] == "map" {
			got = "a mapping"
		} else if m[1] == "seq" {
			got = "a list"
		}
		return &FileError{File: file, Line: line, Field: field, Msg: fmt.Sprintf("want %s, got %s", want, got)}
	}
	return &FileError{File: file, Line: line, Field: field, Msg: rest}
}

// fieldLines maps each field's dotted path ("workload.rounds",
// "faults[2]") to the line of its value, for messages.
func fieldLines(n *yaml.Node, prefix string) map[string]int {
	out := map[string]int{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, val := n.Content[i], n.Content[i+1]
				p := key.Value
				if path != "" {
					p = path + "." + key.Value
				}
				out[p] = key.Line
				walk(val, p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				out[p] = c.Line
				walk(c, p)
			}
		}
	}
	walk(n, prefix)
	return out
}

var (
	yamlLineRE     = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type scenarios\.(\w+)$`)
	cannotRE       = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
)

// yamlLine splits "yaml: line 3: message" into 3 and the message.
func yamlLine(s string) (int, string) {
	if m := yamlLineRE.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(s, "yaml: ")
}

// schemaTypes name the schema's structs, for "want one of" messages.
var schemaTypes = map[string]reflect.Type{
	"fileScenario": reflect.TypeOf(fileScenario{}), "fileEnsemble": reflect.TypeOf(fileEnsemble{}),
	"fileWorkload": reflect.TypeOf(fileWorkload{}), "fileRates": reflect.TypeOf(fileRates{}),
	"fileExpect": reflect.TypeOf(fileExpect{}),
}

// describeNode is what a YAML node holds, as a refusal words it: the
// quoted text of a scalar, else a mapping, a list or nothing.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "nothing"
}
