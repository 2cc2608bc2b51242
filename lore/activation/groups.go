package activation

import (
	"fmt"
	"slices"
	"strconv"

	"loregate/lore"
	"loregate/lore/i18n"
)

// groups applies the inclusion groups of rule 5 to the entries that passed
// in pass p (in insertion order) and returns those still in play. Groups
// are settled in name order; draws come after the pass's chance draws. An
// entry in several groups must win each of them; when a group's winner then
// loses another of its groups, the members it beat take part again, so a
// group ends empty only if none of its members passed (settled again until
// nothing changes, at most once per member).
func (t *turn) groups(passed []int32, p int) ([]int32, error) {
	byName := map[string][]int32{}
	for _, i := range passed {
		for _, g := range t.m.entries[i].groups {
			byName[g] = append(byName[g], i)
		}
	}
	names := make([]string, 0, len(byName))
	for g := range byName {
		names = append(names, g)
	}
	slices.Sort(names)
	type loss struct {
		group  string
		winner int32
		detail string // the member's detail before it lost
	}
	beaten := map[int32]loss{}
	for round := 0; round <= len(passed); round++ {
		for _, g := range names {
			var members []int32
			for _, i := range byName[g] {
				if t.st[i].stage == stagePassed {
					members = append(members, i)
				}
			}
			if len(members) == 0 {
				continue
			}
			if w, ok := t.won[g]; ok {
				for _, i := range members {
					t.lose(i, g, "won in pass "+strconv.Itoa(int(t.st[w].pass))+" by "+t.name(w))
				}
				continue
			}
			if len(members) == 1 {
				continue
			}
			winners, how, err := t.pick(members, p)
			if err != nil {
				return nil, err
			}
			for _, i := range members {
				if !slices.Contains(winners, i) {
					beaten[i] = loss{g, winners[0], t.str(t.st[i].detail)}
					t.lose(i, g, "lost to "+t.name(winners[0])+" ("+how+")")
				}
			}
		}
		// Members beaten by a winner that has since lost elsewhere take
		// part again, when their group has nobody left in play.
		reopened := false
		for _, g := range names {
			if slices.ContainsFunc(byName[g], func(i int32) bool { return t.st[i].stage == stagePassed }) {
				continue
			}
			for _, i := range byName[g] {
				if l, ok := beaten[i]; ok && l.group == g && t.st[l.winner].stage != stagePassed {
					delete(beaten, i)
					s := &t.st[i]
					s.stage, s.verdict = stagePassed, vNone
					t.setDetail(s, l.detail)
					reopened = true
				}
			}
		}
		if !reopened {
			break
		}
	}
	out := passed[:0]
	for _, i := range passed {
		if t.st[i].stage == stagePassed {
			out = append(out, i)
		}
	}
	return out, nil
}

// pick chooses the winners of one group among members (at least two):
// every sticky member; else the groupOverride member with the highest
// order (the first in insertion order on ties); else, when a member uses
// group scoring, the members with the most matched keys; then, if several
// remain, one drawn with probability proportional to groupWeight.
func (t *turn) pick(members []int32, p int) ([]int32, string, error) {
	var sticky []int32
	for _, i := range members {
		if t.st[i].mode == modeSticky {
			sticky = append(sticky, i)
		}
	}
	if len(sticky) > 0 {
		return sticky, "sticky", nil
	}
	best := int32(-1)
	for _, i := range members {
		if t.in.Entries[i].GroupOverride && (best < 0 || t.m.entries[i].order > t.m.entries[best].order) {
			best = i
		}
	}
	if best >= 0 {
		return []int32{best}, "group override, order " + strconv.Itoa(t.m.entries[best].order), nil
	}
	how := "weighted draw"
	cands := members
	scoring := false
	for _, i := range members {
		if u := t.in.Entries[i].UseGroupScoring; u != nil && *u {
			scoring = true
		}
	}
	if scoring {
		top := -1
		var kept []int32
		for _, i := range members {
			sc := t.score(i, p)
			switch {
			case sc > top:
				top, kept = sc, append(kept[:0], i)
			case sc == top:
				kept = append(kept, i)
			}
		}
		cands = kept
		how = "score " + strconv.Itoa(top)
		if len(cands) == 1 {
			return cands, how, nil
		}
		how += ", then weighted draw"
	}
	total := 0
	for _, i := range cands {
		total += max(t.in.Entries[i].GroupWeight, 0)
	}
	weight := func(i int32) int {
		if total == 0 {
			return 1
		}
		return max(t.in.Entries[i].GroupWeight, 0)
	}
	sum := total
	if total == 0 {
		sum = len(cands)
	}
	r := t.random()
	if !(r >= 0 && r < 1) {
		return nil, "", fmt.Errorf("activation: %w", lore.Reject("options.random", i18n.RandomOutOfRange, lore.Params{"value": r}))
	}
	x := r * float64(sum)
	acc := 0
	for _, i := range cands {
		acc += weight(i)
		if x < float64(acc) {
			return []int32{i}, how + " " + strconv.FormatFloat(r, 'f', -1, 64), nil
		}
	}
	return cands[len(cands)-1:], how, nil
}

// score is the group score of entry i in pass p: its matched primary keys
// plus its matched secondary keys under AND_ANY (each) or AND_ALL (all,
// when all match).
func (t *turn) score(i int32, p int) int {
	ce := &t.m.entries[i]
	s := &t.st[i]
	n := 0
	for j := range ce.primary {
		if chat, item := t.visible(&ce.primary[j], s, p); chat || item >= 0 {
			n++
		}
	}
	hits := 0
	for j := range ce.secondary {
		if chat, item := t.visible(&ce.secondary[j], s, p); chat || item >= 0 {
			hits++
		}
	}
	switch t.in.Entries[i].Logic {
	case "", lore.AndAny:
		n += hits
	case lore.AndAll:
		if hits == ce.secondaryN {
			n += hits
		}
	}
	return n
}

// lose gives entry i the group_lost verdict for group g.
func (t *turn) lose(i int32, g, why string) {
	s := &t.st[i]
	s.stage, s.verdict = stageDone, vGroupLost
	t.setDetail(s, "group "+strconv.Quote(g)+": "+why)
}

// markWon records the groups of admitted entry i as won.
func (t *turn) markWon(i int32) {
	for _, g := range t.m.entries[i].groups {
		if t.won == nil {
			t.won = map[string]int32{}
		}
		if _, ok := t.won[g]; !ok {
			t.won[g] = i
		}
	}
}

// name is "#id \"title\"" of entry i, for the trace.
func (t *turn) name(i int32) string {
	e := &t.in.Entries[i]
	return "#" + strconv.FormatInt(e.ID, 10) + " " + strconv.Quote(e.Title)
}
