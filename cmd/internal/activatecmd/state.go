package activatecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

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

// stateStore is the --state file as lore/turn's StateReader and
// Recorder: the conversation is the file.
type stateStore struct {
	path string
	file stateFile
}

// readState reads path; a missing file is an empty state.
func readState(path string) (*stateStore, error) {
	st := &stateStore{path: path, file: stateFile{Entries: turnstate.State{}}}
	data, err := readFile(path, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, bad("state %s: %v", path, err)
	}
	if err := json.Unmarshal(data, &st.file); err != nil {
		return nil, bad("state %s: not a state file written by loregate activate: %v", path, err)
	}
	if st.file.Entries == nil {
		st.file.Entries = turnstate.State{}
	}
	return st, nil
}

// TurnState is the file's state (a dry run).
func (s *stateStore) TurnState(context.Context, turnstate.Conversation) (turnstate.State, error) {
	return s.file.Entries, nil
}

// BeginTurn starts recording turnID; a turn id the file already holds is
// refused (the file keeps no responses to replay).
func (s *stateStore) BeginTurn(_ context.Context, _ turnstate.Conversation, turnID string) (turnstate.Turn, error) {
	if slices.Contains(s.file.Turns, turnID) {
		return nil, bad("--turn-id %q was already recorded in the state file; use a new turn id", turnID)
	}
	return &fileTurn{s: s}, nil
}

// fileTurn is a turn being recorded in the state file.
type fileTurn struct{ s *stateStore }

func (t *fileTurn) Stored() turnstate.State      { return t.s.file.Entries }
func (t *fileTurn) Retry() *turnstate.LoggedTurn { return nil }
func (t *fileTurn) Rollback(context.Context)     {}

// Commit writes the next state and the turn id to the file.
func (t *fileTurn) Commit(_ context.Context, next turnstate.State, log turnstate.LoggedTurn) error {
	return writeState(t.s.path, stateFile{Entries: next, Turns: append(t.s.file.Turns, log.TurnID)})
}

// writeState writes out (its newest maxStateTurns turn ids) to path
// through a temporary file and a rename.
func writeState(path string, out stateFile) error {
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
