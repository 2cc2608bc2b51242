package activatecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/turnstate"
)

// maxStateTurns bounds the turn ids a state file remembers.
const maxStateTurns = 1000

// stateFile is the --state file: the turn state of one offline
// conversation, keyed by the entry ids of the --book list (1..N in book
// order, so the same books in the same order must be given each time), and
// the turn ids recorded in it (the newest maxStateTurns).
//
//	{"entries": {"3": {"entryId": 3, "sticky": {"start": 4, "end": 7},
//	   "cooldown": {"start": 4, "end": 6}, "firstCount": 4, "lastCount": 4,
//	   "firstAt": "...", "lastAt": "..."}},
//	 "turns": ["turn-1", "turn-2"]}
type stateFile struct {
	Entries turnstate.State `json:"entries"`
	Turns   []string        `json:"turns"`
}

// readState reads path; a missing file is an empty state.
func readState(path string) (stateFile, error) {
	var s stateFile
	data, err := readFile(path, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return stateFile{Entries: turnstate.State{}}, nil
	}
	if err != nil {
		return s, bad("state %s: %v", path, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, bad("state %s: not a state file written by loregate activate: %v", path, err)
	}
	if s.Entries == nil {
		s.Entries = turnstate.State{}
	}
	return s, nil
}

// applyState sets the turn-state fields of in from the state file: the
// flags of the start-of-turn rules and, for a recorded turn (turnID not
// empty) without --random or --seed, chance rolls seeded from the turn id
// as activateTurn seeds them. It returns the state to advance after the
// turn.
func applyState(s stateFile, turnID string, in *activation.Input, opts *activation.Options, seeded bool) (turnstate.State, error) {
	if turnID != "" && slices.Contains(s.Turns, turnID) {
		return nil, bad("--turn-id %q was already recorded in the state file; use a new turn id", turnID)
	}
	count := in.MessageCount
	if count == 0 {
		count = len(in.Messages)
	}
	next, flags := turnstate.Derive(s.Entries, in.Entries, count)
	if len(flags) > 0 {
		in.State = make(map[int64]activation.EntryState, len(flags))
		for id, f := range flags {
			in.State[id] = activation.EntryState{Sticky: f.Sticky, Cooldown: f.Cooldown, Matched: f.Matched}
		}
	}
	if turnID != "" && !seeded {
		opts.Random = turnstate.Random(turnID)
	}
	return next, nil
}

// writeState records turn turnID: the state after the end-of-turn rules,
// written to path through a temporary file and a rename.
func writeState(path string, s stateFile, next turnstate.State, entries []lore.Entry, res activation.Result,
	count int, turnID string) error {
	ids := make([]int64, len(res.Admitted))
	for i, a := range res.Admitted {
		ids[i] = a.Entry.ID
	}
	out := stateFile{Entries: turnstate.Advance(next, entries, ids, count, time.Now().UTC()), Turns: append(s.Turns, turnID)}
	if len(out.Turns) > maxStateTurns {
		out.Turns = out.Turns[len(out.Turns)-maxStateTurns:]
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding state: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".loregate-state-*")
	if err != nil {
		return fmt.Errorf("writing state %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing state %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing state %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing state %s: %w", path, err)
	}
	return nil
}
