package activation

// automaton is an Aho-Corasick automaton over byte classes. Shallow states
// (breadth-first ids below dense) have complete transition rows, so the
// scan does one table lookup per input byte; deeper states keep only their
// trie children and follow failure links, which keeps memory bounded for
// large key sets while staying linear (every failure step shortens the
// current match). Patterns are marked byte strings (see mark); every
// distinct pattern ends at its own terminal node.
//
// An automaton is immutable after build and safe for concurrent scans; the
// per-scan state lives in the caller's done slice.
type automaton struct {
	// cls maps a byte of marked text to its class; 0 is every byte that
	// occurs in no pattern.
	cls [256]uint8
	// ascii maps an ASCII byte of raw text to its class (upper case folded
	// for case-insensitive automata) with asciiWord set for letters and
	// digits, for the fused ASCII path of classes.
	ascii  [128]uint16
	clsB   uint8
	stride uint32

	// delta holds the rows of the dense states. A state value is id*stride
	// for a dense state and denseCells+(id-dense) for a sparse one; a row
	// entry is the next state value with special set when that state has
	// outputs or is sparse.
	delta      []uint32
	dense      uint32
	denseCells uint32

	// Trie children of every node in compressed rows, sorted by class.
	childStart []int32
	childCls   []uint8
	childNext  []int32
	fail       []int32
	// dict is the nearest terminal node on the failure chain, or -1.
	dict []int32
	term []bool
	out  []bool
}

const (
	special       = 1 << 31
	asciiWord     = 0x100
	asciiRootStay = 0x200
	// maxDenseCells bounds the dense table (4 bytes a cell): 8 MiB.
	maxDenseCells = 1 << 21
)

// buildAutomaton compiles patterns (marked bytes, none empty) and returns
// the terminal node of each. fold makes the ASCII path map A-Z to a-z.
// denseCap bounds the dense table in cells (maxDenseCells in production).
func buildAutomaton(patterns [][]byte, fold bool, denseCap uint32) (*automaton, []int32) {
	a := &automaton{}
	a.classes(patterns, fold)
	tr, ends := a.trie(patterns)
	newID := a.layout(tr)
	for i := range ends {
		ends[i] = newID[ends[i]]
	}
	a.links(denseCap)
	return a, ends
}

// classes assigns a byte class to every byte that occurs in patterns (and
// to the boundary byte) and fills the ASCII path's table.
func (a *automaton) classes(patterns [][]byte, fold bool) {
	var used [256]bool
	used[boundaryByte] = true
	for _, p := range patterns {
		for _, b := range p {
			used[b] = true
		}
	}
	n := uint8(0)
	for b := 0; b < 256; b++ {
		if used[b] {
			n++
			a.cls[b] = n
		}
	}
	a.stride = uint32(n) + 1
	a.clsB = a.cls[boundaryByte]
	for b := 0; b < 128; b++ {
		src := byte(b)
		if fold && src >= 'A' && src <= 'Z' {
			src += 'a' - 'A'
		}
		v := uint16(a.cls[src])
		if src >= 'a' && src <= 'z' || src >= 'A' && src <= 'Z' || src >= '0' && src <= '9' {
			v |= asciiWord
		}
		a.ascii[b] = v
	}
}

// provisionalTrie is the trie of the patterns with provisional ids
// (insertion order), children listed through first-child/next-sibling
// links.
type provisionalTrie struct {
	firstKid, nextSib []int32
	kidCls            []uint8
	term              []bool
}

// trieEdge is a child of node by class c, for finding children while the
// trie grows.
type trieEdge struct {
	node int32
	c    uint8
}

// trie builds the provisionalTrie of patterns (classes assigned) and the
// provisional terminal node of each.
func (a *automaton) trie(patterns [][]byte) (*provisionalTrie, []int32) {
	kids := map[trieEdge]int32{}
	tr := &provisionalTrie{firstKid: []int32{-1}, nextSib: []int32{-1}, kidCls: []uint8{0}, term: []bool{false}}
	ends := make([]int32, len(patterns))
	for i, p := range patterns {
		cur := int32(0)
		for _, b := range p {
			c := a.cls[b]
			nx, ok := kids[trieEdge{cur, c}]
			if !ok {
				nx = int32(len(tr.firstKid))
				kids[trieEdge{cur, c}] = nx
				tr.firstKid = append(tr.firstKid, -1)
				tr.nextSib = append(tr.nextSib, tr.firstKid[cur])
				tr.kidCls = append(tr.kidCls, c)
				tr.term = append(tr.term, false)
				tr.firstKid[cur] = nx
			}
			cur = nx
		}
		tr.term[cur] = true
		ends[i] = cur
	}
	return tr, ends
}

// layout gives the trie's nodes breadth-first ids (a failure link always
// points to a smaller id), stores their children in compressed rows sorted
// by class and returns the new id of each provisional node.
func (a *automaton) layout(tr *provisionalTrie) []int32 {
	total := len(tr.firstKid)
	order := make([]int32, 0, total)
	newID := make([]int32, total)
	order = append(order, 0)
	for i := 0; i < len(order); i++ {
		for k := tr.firstKid[order[i]]; k >= 0; k = tr.nextSib[k] {
			newID[k] = int32(len(order))
			order = append(order, k)
		}
	}
	a.childStart = make([]int32, total+1)
	a.term = make([]bool, total)
	for id, old := range order {
		a.term[id] = tr.term[old]
		cnt := int32(0)
		for k := tr.firstKid[old]; k >= 0; k = tr.nextSib[k] {
			cnt++
		}
		a.childStart[id+1] = a.childStart[id] + cnt
	}
	a.childCls = make([]uint8, a.childStart[total])
	a.childNext = make([]int32, a.childStart[total])
	for id, old := range order {
		pos := a.childStart[id]
		for k := tr.firstKid[old]; k >= 0; k = tr.nextSib[k] {
			// Insertion sort by class inside the row.
			j := pos
			for j > a.childStart[id] && a.childCls[j-1] > tr.kidCls[k] {
				a.childCls[j], a.childNext[j] = a.childCls[j-1], a.childNext[j-1]
				j--
			}
			a.childCls[j], a.childNext[j] = tr.kidCls[k], newID[k]
			pos++
		}
	}
	return newID
}

// links computes the failure and dictionary links of every node
// breadth-first and the dense rows of the first denseCap/stride states.
func (a *automaton) links(denseCap uint32) {
	total := len(a.term)
	dense := denseCap / a.stride
	if dense > uint32(total) {
		dense = uint32(total)
	}
	if dense == 0 {
		dense = 1
	}
	a.dense = dense
	a.denseCells = dense * a.stride
	a.delta = make([]uint32, a.denseCells)
	a.fail = make([]int32, total)
	a.dict = make([]int32, total)
	a.out = make([]bool, total)
	a.dict[0] = -1
	for u := int32(0); u < int32(total); u++ {
		for k := a.childStart[u]; k < a.childStart[u+1]; k++ {
			t, c := a.childNext[k], a.childCls[k]
			f := int32(0)
			if u != 0 {
				f = a.gotoNext(a.fail[u], c)
			}
			a.fail[t] = f
			if a.term[f] {
				a.dict[t] = f
			} else {
				a.dict[t] = a.dict[f]
			}
			a.out[t] = a.term[t] || a.dict[t] >= 0
		}
		if uint32(u) < dense {
			row := a.delta[uint32(u)*a.stride : uint32(u+1)*a.stride]
			if u != 0 {
				copy(row, a.delta[uint32(a.fail[u])*a.stride:uint32(a.fail[u]+1)*a.stride])
			}
			for k := a.childStart[u]; k < a.childStart[u+1]; k++ {
				row[a.childCls[k]] = a.value(a.childNext[k])
			}
		}
	}
	for b := 0; b < 128; b++ {
		if a.delta[a.ascii[b]&0xff] == 0 {
			a.ascii[b] |= asciiRootStay
		}
	}
}

// value is the row entry for a transition into node id.
func (a *automaton) value(id int32) uint32 {
	if uint32(id) < a.dense {
		v := uint32(id) * a.stride
		if a.out[id] {
			v |= special
		}
		return v
	}
	return (a.denseCells + uint32(id) - a.dense) | special
}

func (a *automaton) decode(st uint32) int32 {
	if st < a.denseCells {
		return int32(st / a.stride)
	}
	return int32(st - a.denseCells + a.dense)
}

func (a *automaton) child(id int32, c uint8) int32 {
	for k := a.childStart[id]; k < a.childStart[id+1]; k++ {
		if a.childCls[k] == c {
			return a.childNext[k]
		}
		if a.childCls[k] > c {
			break
		}
	}
	return -1
}

// gotoNext is the automaton's transition from node id on class c, by node id.
func (a *automaton) gotoNext(id int32, c uint8) int32 {
	for {
		if uint32(id) < a.dense {
			return a.decode(a.delta[uint32(id)*a.stride+uint32(c)] &^ special)
		}
		if t := a.child(id, c); t >= 0 {
			return t
		}
		id = a.fail[id]
	}
}

// marks is where a scan reports the keys it finds: done[node] = gen for
// every terminal node reached. With touched set, a node reached for the
// first time since g0 (done[node] < g0 before) is also appended to
// *touched, so a turn learns which keys occur without reading every key's
// mark.
type marks struct {
	done    []uint32
	g0      uint32
	touched *[]int32
}

// step is the slow part of a transition: out of a sparse state, or into a
// state with outputs (which it reports) or a sparse one.
func (a *automaton) step(st uint32, c uint8, mk *marks, gen uint32) uint32 {
	var id int32
	if st < a.denseCells {
		id = a.decode(a.delta[st+uint32(c)] &^ special)
	} else {
		cur := a.decode(st)
		id = a.child(cur, c)
		if id < 0 {
			id = a.gotoNext(a.fail[cur], c)
		}
	}
	if a.out[id] {
		// A node already at gen stops the walk of its output chain: it was
		// reached earlier in this message, and so was every node on its
		// chain. Each position therefore costs O(1) plus the number of
		// nodes newly marked, which keeps a message linear however many
		// patterns overlap.
		n := id
		if !a.term[n] {
			n = a.dict[n]
		}
		done := mk.done
		for n >= 0 && done[n] != gen {
			if mk.touched != nil && done[n] < mk.g0 {
				*mk.touched = append(*mk.touched, n)
			}
			done[n] = gen
			n = a.dict[n]
		}
	}
	return a.value(id) &^ special
}

// scanMarked runs marked bytes of one message from the root; for every
// terminal node that occurs, mk.done[node] is set to gen.
func (a *automaton) scanMarked(text []byte, mk *marks, gen uint32) {
	st := uint32(0)
	delta, dc := a.delta, a.denseCells
	for _, b := range text {
		c := a.cls[b]
		if st < dc {
			if v := delta[st+uint32(c)]; v&special == 0 {
				st = v
				continue
			}
		}
		st = a.step(st, c, mk, gen)
	}
}

// scanASCII is scanMarked for a raw ASCII message: folding (for a folded
// automaton), marking and classing are fused into the scan. At the root
// state a byte whose class leads nowhere (rootStay) is skipped without a
// table lookup, so most of the text costs one independent load per byte.
func (a *automaton) scanASCII(raw string, mk *marks, gen uint32) {
	st := uint32(0)
	delta, dc := a.delta, a.denseCells
	clsB := uint32(a.clsB)
	prevW := false
	for i := 0; i < len(raw); i++ {
		t := a.ascii[raw[i]&0x7f]
		if w := t&asciiWord != 0; w != prevW {
			prevW = w
			if st < dc {
				if v := delta[st+clsB]; v&special == 0 {
					st = v
				} else {
					st = a.step(st, uint8(clsB), mk, gen)
				}
			} else {
				st = a.step(st, uint8(clsB), mk, gen)
			}
		}
		if st == 0 && t&asciiRootStay != 0 {
			continue
		}
		c := uint8(t)
		if st < dc {
			if v := delta[st+uint32(c)]; v&special == 0 {
				st = v
				continue
			}
		}
		st = a.step(st, c, mk, gen)
	}
	if prevW {
		a.step(st, uint8(clsB), mk, gen)
	}
}
