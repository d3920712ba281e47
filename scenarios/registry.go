package scenarios

import (
	"fmt"
	"slices"
)

// Catalog is the built-in rows and profiles plus those a run adds (from a
// scenario file): what one run can name. The zero value is the built-in
// catalog alone.
type Catalog struct {
	extra    []Scenario
	profiles []Profile
}

// WithExtra returns the built-in catalog with extra rows and profiles after
// its own; a name that is already taken is an error (a file cannot redefine
// a built-in row, whose expectations ORACLE.md argues).
func WithExtra(extra []Scenario, profiles []Profile) (Catalog, error) {
	var c Catalog
	for _, s := range extra {
		if _, ok := c.Lookup(s.Name); ok {
			return Catalog{}, fmt.Errorf("add scenario %q: the name is taken", s.Name)
		}
		c.extra = append(c.extra, s)
	}
	for _, p := range profiles {
		if _, ok := c.LookupProfile(p.Name); ok {
			return Catalog{}, fmt.Errorf("add profile %q: the name is taken", p.Name)
		}
		for _, n := range p.Scenarios {
			if _, ok := c.Lookup(n); !ok {
				return Catalog{}, fmt.Errorf("add profile %q: unknown scenario %q", p.Name, n)
			}
		}
		c.profiles = append(c.profiles, p)
	}
	return c, nil
}

// All is every row, the built-in ones first.
func (c Catalog) All() []Scenario { return append(All(), c.extra...) }

// Extra is the rows added to the built-in catalog.
func (c Catalog) Extra() []Scenario { return slices.Clone(c.extra) }

// Lookup finds a row by name.
func (c Catalog) Lookup(name string) (Scenario, bool) {
	if s, ok := Lookup(name); ok {
		return s, true
	}
	for _, s := range c.extra {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// Names lists every row's name.
func (c Catalog) Names() []string {
	out := Names()
	for _, s := range c.extra {
		out = append(out, s.Name)
	}
	return out
}

// LookupProfile finds a profile by name, with its scenario list filled in.
func (c Catalog) LookupProfile(name string) (Profile, bool) {
	if p, ok := LookupProfile(name); ok {
		return p, true
	}
	for _, p := range c.profiles {
		if p.Name == name {
			if p.Scenarios == nil {
				p.Scenarios = c.Names()
			}
			p.Scenarios = slices.Clone(p.Scenarios)
			p.Thresholds = slices.Clone(p.Thresholds)
			return p, true
		}
	}
	return Profile{}, false
}

// ProfileNames lists every profile's name.
func (c Catalog) ProfileNames() []string {
	out := ProfileNames()
	for _, p := range c.profiles {
		out = append(out, p.Name)
	}
	return out
}
