package shareconsumer

import "slices"

// offsetRange is an inclusive range of offsets.
type offsetRange struct{ first, last int64 }

// gapsOf returns the acquired offsets that are known not to be records: they
// lie inside a batch the response carried and decoded completely (a control
// batch, or a data batch with offsets compacted away) but no data record has
// them. Offsets the response acquired but carried no batch for are not gaps:
// they may be real records cut off by the byte limits, and acknowledging
// them as GAP would archive records nobody saw. Those stay acquired until
// their lock expires and come back.
func gapsOf(acquired []offsetRange, covered []offsetRange, have map[int64]struct{}) []int64 {
	var gaps []int64
	for _, a := range acquired {
		for _, c := range covered {
			lo, hi := max(a.first, c.first), min(a.last, c.last)
			for o := lo; o <= hi; o++ {
				if _, ok := have[o]; !ok {
					gaps = append(gaps, o)
				}
			}
		}
	}
	slices.Sort(gaps)
	return slices.Compact(gaps)
}
