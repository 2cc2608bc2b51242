package graph

import (
	"testing"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
)

// TestJobError: a job rescued after its process died (River records the
// rescue as attempt 1's error) and completed on attempt 2 shows no error;
// while it is retried the error names the failed attempt; a cancellation
// keeps its reason.
func TestJobError(t *testing.T) {
	rescued := []rivertype.AttemptError{{Attempt: 1, Error: "Stuck job rescued by Rescuer"}}
	for _, tc := range []struct {
		name  string
		state rivertype.JobState
		errs  []rivertype.AttemptError
		want  string
	}{
		{"completed after a rescue", rivertype.JobStateCompleted, rescued, ""},
		{"retried after a rescue", rivertype.JobStateRunning, rescued, "attempt 1 hit an internal error; the job is retried (see the service log)"},
		{"retryable", rivertype.JobStateRetryable, []rivertype.AttemptError{{Attempt: 2, Error: "dial tcp: refused"}}, "attempt 2 hit an internal error; the job is retried (see the service log)"},
		{"cancelled", rivertype.JobStateCancelled, []rivertype.AttemptError{{Attempt: 1, Error: "JobCancelError: the scope is full"}}, "the scope is full"},
		{"discarded", rivertype.JobStateDiscarded, rescued, "the job failed after every retry; see the service log"},
		{"no failure", rivertype.JobStateRunning, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := jobToModel(&rivertype.JobRow{ID: 1, Kind: "lorebook_import", State: tc.state, Attempt: 2, Errors: tc.errs}).Error
			if tc.want == "" {
				require.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			require.Equal(t, tc.want, *got)
		})
	}
}
