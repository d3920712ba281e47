package result

import "slices"

// DefaultClient is the client a cell ran on when it names none: every cell
// of a run from before clients were a dimension, and the default of
// --client. Its cells' names carry no client (CellName). suites/workerset
// names the clients and takes its default from here.
const DefaultClient = "go"

// ClientOf is the client a cell's workers ran on.
func ClientOf(c Cell) string {
	if c.Client == "" {
		return DefaultClient
	}
	return c.Client
}

// A Dimension is one axis of a run's plan beyond scenario x mode x repeat,
// along which cells are compared: the Kafka release (--kafka-version) and
// the client (--client go,java). Each cell has a value on each; a run
// compares along a dimension when its cells have two values or more, the
// first one run being the baseline.
type Dimension struct {
	// Name is the dimension as reports name it.
	Name string
	// Of is a cell's value on it ("": the cell is not on it, as a cell of
	// a run that names no release).
	Of func(Cell) string
	// within is where c was compared on the dimension's other axes:
	// c's value on every dimension but this one.
	within func(c Comparison, cell Cell) Comparison
}

// The plan's dimensions.
var (
	Releases = Dimension{Name: "release", Of: func(c Cell) string { return c.KafkaVersion },
		within: func(cmp Comparison, c Cell) Comparison { cmp.Client = c.Client; return cmp }}
	Clients = Dimension{Name: "client", Of: ClientOf,
		within: func(cmp Comparison, c Cell) Comparison { cmp.KafkaVersion = c.KafkaVersion; return cmp }}
	// Dimensions are all of them, in the order of a cell's name.
	Dimensions = []Dimension{Clients, Releases}
)

// Values are the dimension's values among cells, in the order they first
// appear (the order they ran).
func (d Dimension) Values(cells []Cell) []string {
	var vs []string
	for _, c := range cells {
		if v := d.Of(c); v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return vs
}

// Others are c's values on every dimension but d, as one key: the cells
// that share it and differ on d are compared with each other.
func (d Dimension) Others(c Cell) string {
	k := ""
	for _, o := range Dimensions {
		if o.Name != d.Name {
			k += o.Name + "=" + o.Of(c) + ";"
		}
	}
	return k
}

// Within is cmp with where cell sits on the other dimensions.
func (d Dimension) Within(cmp Comparison, cell Cell) Comparison { return d.within(cmp, cell) }
