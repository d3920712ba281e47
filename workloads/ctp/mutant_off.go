//go:build !mutants

package ctp

// activeMutant: an ordinary build runs no mutant.
func activeMutant() Mutant { return "" }
