//go:build mutants

package ctp

import "os"

// activeMutant is the mutant a mutants build runs, from MutantEnv.
func activeMutant() Mutant { return Mutant(os.Getenv(MutantEnv)) }
