package graph

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/riverqueue/river/rivertype"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// MaxWaitSeconds bounds ImportLorebookInput.waitSeconds.
const MaxWaitSeconds = 10

// waitSeconds checks importLorebook's waitSeconds (0-MaxWaitSeconds,
// default 0) and returns it as a duration.
func waitSeconds(o graphql.Omittable[*int]) (time.Duration, error) {
	v, ok := o.ValueOK()
	if !ok || v == nil {
		return 0, nil
	}
	if *v < 0 || *v > MaxWaitSeconds {
		return 0, lore.Reject("waitSeconds", i18n.OutOfRange, lore.Params{"value": *v, "min": 0, "max": MaxWaitSeconds})
	}
	return time.Duration(*v) * time.Second, nil
}

// Polling of a job an import waits for: the first look after
// waitPollFirst, then each wait twice as long, at most waitPollMax.
const (
	waitPollFirst = 20 * time.Millisecond
	waitPollMax   = 250 * time.Millisecond
)

// awaitImport answers an import that became job: at once when wait is 0,
// else after the job finished or wait ran out, whichever comes first
// (the request's context bounds it too). A completed job's result fills
// the payload as an inline import would; job is set in every case, with
// the state it had when the wait ended (a cancelled job carries its
// reason in job.error; nothing was written).
func (r *Resolver) awaitImport(ctx context.Context, job *model.Job, server string, wait time.Duration) (*model.ImportPayload, error) {
	p := &model.ImportPayload{Job: job}
	if wait <= 0 {
		return p, nil
	}
	id, err := strconv.ParseInt(job.ID, 10, 64)
	if err != nil {
		return p, nil
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	row, err := r.pollJob(ctx, id)
	if err != nil || row == nil {
		return p, err
	}
	p.Job = jobToModel(row)
	if row.State != rivertype.JobStateCompleted {
		return p, nil
	}
	rep, err := r.Jobs.Queue.JobReport(context.WithoutCancel(ctx), id)
	if errors.Is(err, lore.ErrNotFound) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	res := r.importResult(context.WithoutCancel(ctx), server, rep.Report)
	if res == nil {
		return p, nil
	}
	res.Job = p.Job
	return res, nil
}

// pollJob reads job id until it is finalized (completed, cancelled or
// discarded) or ctx ends; it returns the last row read (nil when none
// was), and an error only when the store fails.
func (r *Resolver) pollJob(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	var last *rivertype.JobRow
	delay := waitPollFirst
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return last, nil
		case <-t.C:
		}
		row, err := r.Jobs.Queue.Job(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return last, nil
			}
			return nil, err
		}
		last = row
		if row.FinalizedAt != nil {
			return row, nil
		}
		delay = min(2*delay, waitPollMax)
		t.Reset(delay)
	}
}
