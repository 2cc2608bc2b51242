package activation_test

import (
	"context"
	"fmt"

	"loregate/lore"
	"loregate/lore/activation"
)

func entry(id int64, title string, keys []string, content string) lore.Entry {
	e := lore.NewEntry()
	e.ID, e.Title, e.Keys, e.Content = id, title, keys, content
	return e
}

func ExampleActivate() {
	always := entry(1, "world", nil, "{{char}} lives in Eldoria.")
	always.Constant = true
	glade := entry(2, "glade", []string{"glade", "safe haven"}, "The glade is warded.")
	cafe := entry(3, "café", []string{"café"}, "The café never closes.")
	greek := entry(4, "odysseus", []string{"ΟΔΥΣΣΕΥΣ"}, "He sails home.")
	res, err := activation.Activate(context.Background(), activation.Input{
		Entries:     []lore.Entry{always, glade, cafe, greek},
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}},
		Messages:    []string{"Two cafés, please.", "Then we rest in the Glade, like Οδυσσευς."},
	}, activation.Options{CharName: "Seraphina"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Admitted() {
		fmt.Printf("%s (%s): %s\n", a.Entry.Title, a.Group, a.Content)
	}
	for _, t := range res.Trace {
		fmt.Printf("%s: %s, %s\n", t.Title, t.Verdict, t.Detail)
	}
	fmt.Printf("budget %d of %d %s\n", res.Budget.Used, res.Budget.Limit, res.Budget.Unit)
	// Output:
	// world (always_on): Seraphina lives in Eldoria.
	// glade (activated): The glade is warded.
	// odysseus (activated): He sails home.
	// world: admitted, always on
	// glade: admitted, key "glade"
	// café: no_key_match, no key in the last 2 messages
	// odysseus: admitted, key "ΟΔΥΣΣΕΥΣ"
	// budget 61 of 8000 utf16
}

func ExampleCache() {
	cache := activation.NewCache(16)
	in := activation.Input{
		Entries:     []lore.Entry{entry(1, "glade", []string{"glade"}, "The glade is warded.")},
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}},
		Server:      "",
	}
	key := activation.CacheKey{Server: in.Server, Lineage: lore.Serverwide, Version: 1}
	for _, msg := range []string{"hello", "the glade?", "the GLADE!"} {
		in.Messages = append(in.Messages, msg)
		res, _ := cache.Activate(context.Background(), key, in, activation.Options{})
		fmt.Println(msg, "->", len(res.Admitted()))
	}
	fmt.Printf("%+v\n", cache.Stats())
	// Output:
	// hello -> 0
	// the glade? -> 1
	// the GLADE! -> 1
	// {Hits:2 Builds:1 Len:1}
}

func ExampleResolveIdentity() {
	fmt.Println(activation.ResolveIdentity("{{user}} greets {{Char}}. {{random:a,b}}", "Ana", "Seraphina", ""))
	// Output: Ana greets Seraphina. {{random:a,b}}
}
