package lore_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestEntryValidate(t *testing.T) {
	valid := func() lore.Entry {
		e := lore.NewEntry()
		e.Server, e.Lineage = "123456789012345678", 4
		e.Content = "Lore."
		e.Keys = []string{"key"}
		return e
	}
	depth0, depthNeg, depth101 := 0, -1, 101
	tests := []struct {
		name  string
		edit  func(*lore.Entry)
		field string // "" = valid
	}{
		{"valid persona entry", func(*lore.Entry) {}, ""},
		{"valid Serverwide entry", func(e *lore.Entry) { e.Lineage, e.Collection = lore.Serverwide, "World" }, ""},
		{"Serverwide needs a collection", func(e *lore.Entry) { e.Lineage = lore.Serverwide }, "collection"},
		{"Serverwide entries have no channels", func(e *lore.Entry) {
			e.Lineage, e.Collection, e.ChannelIDs = lore.Serverwide, "World", []string{"123456789012345678"}
		}, "channelIds"},
		{"persona entries have no collection", func(e *lore.Entry) { e.Collection = "World" }, "collection"},
		{"negative lineage", func(e *lore.Entry) { e.Lineage = -1 }, "lineage"},
		{"bad server", func(e *lore.Entry) { e.Server = "12" }, "server"},
		{"empty content", func(e *lore.Entry) { e.Content = "  " }, "content"},
		{"content at the limit (UTF-16 units)", func(e *lore.Entry) { e.Content = strings.Repeat("😀", lore.MaxContentLen/2) }, ""},
		{"content over the limit (UTF-16 units)", func(e *lore.Entry) { e.Content = strings.Repeat("😀", lore.MaxContentLen/2+1) }, "content"},
		{"NUL in content", func(e *lore.Entry) { e.Content = "a\x00b" }, "content"},
		{"NUL in a key", func(e *lore.Entry) { e.Keys = []string{"ok", "a\x00"} }, "keys[1]"},
		{"too many keys", func(e *lore.Entry) { e.Keys = make([]string, lore.MaxKeysPerEntry+1) }, "keys"},
		{"key too long", func(e *lore.Entry) { e.SecondaryKeys = []string{strings.Repeat("k", lore.MaxKeyLen+1)} }, "secondaryKeys[0]"},
		{"bad logic", func(e *lore.Entry) { e.Logic = "XOR" }, "selectiveLogic"},
		{"explicit scan depth 0 is valid", func(e *lore.Entry) { e.ScanDepth = &depth0 }, ""},
		{"scan depth -1", func(e *lore.Entry) { e.ScanDepth = &depthNeg }, "scanDepth"},
		{"group too long", func(e *lore.Entry) { e.Group = strings.Repeat("g", lore.MaxGroupLen+1) }, "group"},
		{"group weight 0 is valid", func(e *lore.Entry) { e.GroupWeight = 0 }, ""},
		{"group weight over the limit", func(e *lore.Entry) { e.GroupWeight = lore.MaxGroupWeight + 1 }, "groupWeight"},
		{"negative delay until recursion", func(e *lore.Entry) { e.DelayUntilRecursion = -1 }, "delayUntilRecursion"},
		{"negative cooldown", func(e *lore.Entry) { e.Cooldown = -1 }, "cooldown"},
		{"delay over the limit", func(e *lore.Entry) { e.Delay = lore.MaxTimedEffect + 1 }, "delay"},
		{"scan depth 101", func(e *lore.Entry) { e.ScanDepth = &depth101 }, "scanDepth"},
		{"probability 0 is valid", func(e *lore.Entry) { e.Probability = 0 }, ""},
		{"probability 101", func(e *lore.Entry) { e.Probability = 101 }, "probability"},
		{"order beyond int32", func(e *lore.Entry) { e.Order = 1 << 40 }, "insertionOrder"},
		{"priority beyond int32", func(e *lore.Entry) { e.Priority = -(1 << 33) }, "priority"},
		{"bad placement", func(e *lore.Entry) { e.Placement = "middle" }, "placement"},
		{"bad channel id", func(e *lore.Entry) { e.ChannelIDs = []string{"#general"} }, "channelIds[0]"},
		{"duplicate channel id", func(e *lore.Entry) { e.ChannelIDs = []string{"123456789012345678", "123456789012345678"} }, "channelIds[1]"},
		{"NUL in a legacy tag", func(e *lore.Entry) { e.LegacyChannelTags = []string{"gen\x00eral"} }, "legacyChannelTags[0]"},
		{"invalid extension JSON", func(e *lore.Entry) { e.Extensions = map[string]json.RawMessage{"st/x": json.RawMessage(`{`)} }, "extensions"},
		{"NUL escape in an extension", func(e *lore.Entry) { e.Extensions = map[string]json.RawMessage{"st/x": json.RawMessage(`"a\u0000"`)} }, "extensions"},
		{"extensions too large", func(e *lore.Entry) {
			e.Extensions = map[string]json.RawMessage{"st/x": json.RawMessage(`"` + strings.Repeat("x", lore.MaxExtensionsBytes) + `"`)}
		}, "extensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := valid()
			tt.edit(&e)
			err := e.Validate()
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			var inv *lore.InvalidError
			require.True(t, errors.As(err, &inv), "got %v", err)
			require.ErrorIs(t, err, lore.ErrInvalid)
			require.Equal(t, tt.field, inv.Field)
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "é": 1, "北京": 2, "😀": 2, "a😀b": 4,
		"abcdefgh😀": 10, "abcdefghijklmnopé": 17, "abcdefg\xffh": 9, "abcdefghijklmnopq": 17, "abcdefgh\xff": 9} {
		require.Equal(t, want, lore.UTF16Len(s), s)
	}
}

func TestValidSnowflake(t *testing.T) {
	for s, want := range map[string]bool{
		"123456789012345678": true, "12345678901234567": true, "12345678901234567890": true,
		"1234567890123456": false, "123456789012345678901": false, "023456789012345678": false,
		"12345678901234567a": false, "": false,
	} {
		require.Equal(t, want, lore.ValidSnowflake(s), s)
	}
}

func TestDuplicateKey(t *testing.T) {
	a := lore.NewEntry()
	a.Title, a.Content, a.Keys = "t", "c", []string{"k1", "k2"}
	b := a.Clone()
	b.Probability, b.Order, b.Enabled = 5, 9, false // activation settings are not identity
	require.Equal(t, lore.DuplicateKey(a), lore.DuplicateKey(b))
	c := a.Clone()
	c.Keys = []string{"k2", "k1"}
	require.NotEqual(t, lore.DuplicateKey(a), lore.DuplicateKey(c), "key order is part of identity")
	d := a.Clone()
	d.Title, d.Content = "tc", "" // field boundaries are length-prefixed
	require.NotEqual(t, lore.DuplicateKey(a), lore.DuplicateKey(d))
}
