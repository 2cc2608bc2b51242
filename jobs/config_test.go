package jobs_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
)

// TestConfigWithDefaults: zero fields get the documented defaults, set ones
// are kept, and the rescue delay follows the timeouts it was left to.
func TestConfigWithDefaults(t *testing.T) {
	d := jobs.Config{}.WithDefaults()
	require.Equal(t, jobs.DefaultMaxWorkers, d.MaxWorkers)
	require.Equal(t, jobs.DefaultBackfillInterval, d.BackfillInterval)
	require.Equal(t, jobs.DefaultCleanupInterval, d.CleanupInterval)
	require.Equal(t, jobs.DefaultJobTimeout, d.JobTimeout)
	require.Equal(t, jobs.DefaultImportTimeout, d.ImportTimeout)
	require.Equal(t, jobs.DefaultArtifactTTL, d.ArtifactTTL)
	require.Equal(t, jobs.DefaultLogRowsPerConversation, d.LogRowsPerConversation)
	require.Equal(t, jobs.RescueAfter(0, 0), d.RescueStuckJobsAfter)
	require.Equal(t, lore.DefaultRevisionRetention, d.RevisionRetention)
	require.Equal(t, lore.DefaultRevisionMaxAge, d.RevisionMaxAge)
	require.NotNil(t, d.Logger)
	require.NotNil(t, d.NowFunc)

	set := jobs.Config{MaxWorkers: 2, JobTimeout: time.Minute, Deps: jobs.Deps{ImportTimeout: 10 * time.Minute, ArtifactTTL: time.Hour}}.WithDefaults()
	require.Equal(t, 2, set.MaxWorkers)
	require.Equal(t, time.Minute, set.JobTimeout)
	require.Equal(t, time.Hour, set.ArtifactTTL)
	require.Equal(t, 10*time.Minute+jobs.RescueMargin, set.RescueStuckJobsAfter, "the longest timeout plus the margin")
	require.Equal(t, 7*time.Minute, jobs.Config{RescueStuckJobsAfter: 7 * time.Minute}.WithDefaults().RescueStuckJobsAfter)
}
