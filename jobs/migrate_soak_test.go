//go:build soak

package jobs_test

import "testing"

// TestSoakMigrationJobProgress is TestMigrationJobProgress at 10,000
// memories across 100 servers (about 40 s under load, so not in make test).
func TestSoakMigrationJobProgress(t *testing.T) { testMigrationJobProgress(t, 100) }
