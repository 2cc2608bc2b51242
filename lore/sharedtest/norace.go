//go:build !race

package sharedtest

// raceEnabled reports whether the race detector is on (SkipUnderRace).
const raceEnabled = false
