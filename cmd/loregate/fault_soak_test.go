//go:build soak

package main

import (
	"syscall"
	"testing"
	"time"
)

// TestSoakKills: 10 kills (alternating SIGKILL and SIGTERM) at the default
// job settings; every killed import must finish within 3 minutes of the
// last restart. Built only with -tags soak (`make soak`).
func TestSoakKills(t *testing.T) {
	kills := make([]syscall.Signal, 10)
	for i := range kills {
		kills[i] = syscall.SIGKILL
		if i%2 == 1 {
			kills[i] = syscall.SIGTERM
		}
	}
	faultRun(t, kills, nil, 3*time.Minute)
}
