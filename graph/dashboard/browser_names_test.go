package dashboard_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// enumSpelling is a schema value's spelling: no page shows one outside
// code (issue 24).
var enumSpelling = regexp.MustCompile(`[A-Z]{2,}_[A-Z_]+`)

// requireNoEnums fails when the page's visible text, outside <code> and
// <pre>, shows an enum spelling.
func requireNoEnums(t *testing.T, ctx context.Context) {
	t.Helper()
	txt, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const c = document.body.cloneNode(true);
		c.querySelectorAll("code, pre, script, style").forEach(n => n.remove());
		return c.innerText;
	})()`))
	require.NoError(t, err)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Empty(t, enumSpelling.FindAllString(txt, -1), "enum spellings on %s", loc)
}

// selectByLabel picks the option of select sel whose text is label.
func selectByLabel(sel, label string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const s = document.querySelector(%q);
		const o = [...s.options].find(o => o.text.trim() === %q);
		if (!o) throw new Error("no option " + %q);
		s.value = o.value;
		s.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, sel, label, label))
}

// TestBrowserNamesNotIds: channels are picked by their Discord names (the
// fake Discord REST server behind Server.channels), the playground names
// every entry with its book and a link to its editor, filters the trace
// to what was not admitted and by book, and the activation log lists a
// recorded turn's entries by title and book. No page shows an enum
// spelling.
func TestBrowserNamesNotIds(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	world := e.collection(serverA, "World")
	forest := e.collection(serverA, "Forest")
	glade := e.entry(serverA, world, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.entry(serverA, forest, map[string]any{"title": "Glade", "content": "The forest's glade.", "keys": []string{"glade"}})
	e.entry(serverA, world, map[string]any{"title": "The tower", "content": "A dark tower.", "keys": []string{"tower"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"

	// The Forest collection's channels: checked by name, saved as ids.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"b/c"+forest+"/"), chromedp.WaitVisible(chromedp.CSS("#f-channels"))))
	picker := text(t, ctx, "#f-channels")
	require.Contains(t, picker, "#tavern")
	require.Contains(t, picker, "#tavern › the quest")
	require.Contains(t, picker, "#forest")
	require.NotContains(t, picker, "#Roleplay", "a category is not a channel to pick")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//label[normalize-space()="#forest (Roleplay)"]`),
		chromedp.Click(chromedp.CSS("#save-channels")), waitText(".flash", "Saved.")))
	var coll struct {
		Server struct{ Collection struct{ ChannelIds []string } }
	}
	e.must(`query($s: String!) { server(discordId: $s) { collection(name: "Forest") { channelIds } } }`, map[string]any{"s": serverA}, &coll)
	require.Equal(t, []string{channelForest}, coll.Server.Collection.ChannelIds)
	shot(t, ctx, "20-collection-channels")
	requireNoEnums(t, ctx)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS("#collections"))))
	row, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#collections tbody tr")].find(r => r.innerText.includes("Forest")).innerText`))
	require.NoError(t, err)
	require.Contains(t, row, "#forest")
	requireNoEnums(t, ctx)

	// The playground in #tavern: the World glade fires (named with its
	// book and linked), the Forest one is gated by its channel.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"play"), chromedp.WaitVisible(chromedp.CSS("#chat")),
		selectByLabel("#channel", "#tavern (Roleplay)"),
		chromedp.SetValue(chromedp.CSS("#chat"), "Ann: Let us rest in the glade."),
		chromedp.Click(chromedp.CSS("#run")), chromedp.WaitVisible(chromedp.CSS("#trace"))))
	require.Contains(t, text(t, ctx, "#admitted"), "The glade (World)")
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#admitted a").getAttribute("href")`))
	require.NoError(t, err)
	require.Equal(t, "/dashboard/s/"+serverA+"/b/c"+world+"/e/"+glade, href)
	rows := text(t, ctx, "#trace tbody")
	require.Contains(t, rows, "Forest")
	gated := text(t, ctx, `#trace tr[data-title="Glade"]`)
	require.Contains(t, gated, "Forest")
	require.Contains(t, gated, "the entry is not active in this channel", "the reason key's text")
	selected, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("channel").selectedOptions[0].text`))
	require.NoError(t, err)
	require.Equal(t, "#tavern (Roleplay)", selected, "the picked channel stays picked")
	visible := `[...document.querySelectorAll("#trace tbody tr")].filter(r => !r.hidden).map(r => r.dataset.title).sort().join(",")`
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#not-admitted"))))
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](visible))
	require.NoError(t, err)
	require.Equal(t, "Glade,The tower", got, "not admitted only")
	require.NoError(t, chromedp.Do(ctx, selectByLabel("#trace-book", "World")))
	got, err = chromedp.Run(ctx, chromedp.Evaluate[string](visible))
	require.NoError(t, err)
	require.Equal(t, "The tower", got, "World's entries that were not admitted")
	shot(t, ctx, "21-playground-names")
	requireNoEnums(t, ctx)

	// A recorded turn in #tavern: the log names its entry and links it.
	e.must(`mutation($in: ActivateTurnInput!) { activateTurn(input: $in) { error { message } } }`, map[string]any{"in": map[string]any{
		"serverDiscordId": serverA, "channelId": channelTavern, "turnId": "t1", "messageCount": 1,
		"messages": []map[string]any{{"name": "Ann", "content": "The glade is quiet."}}}}, nil)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"log"), chromedp.WaitVisible(chromedp.CSS("#channel")),
		selectByLabel("#channel", "#tavern (Roleplay)"), chromedp.Submit(chromedp.CSS("#channel")), chromedp.WaitVisible(chromedp.CSS("#turns"))))
	turns := text(t, ctx, "#turns tbody")
	require.Contains(t, turns, "The glade (World)")
	require.NotContains(t, turns, "#"+glade)
	shot(t, ctx, "22-log-names")
	requireNoEnums(t, ctx)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//table[@id="turns"]//a[text()="The glade"]`), chromedp.WaitVisible(chromedp.CSS("#entry-form"))))
	require.Equal(t, "The glade", text(t, ctx, "main h1"))
	requireNoEnums(t, ctx)
}

// TestBrowserChannelsWithoutBot: with no bot token the pickers take ids
// and say why.
func TestBrowserChannelsWithoutBot(t *testing.T) {
	ctx := tab(t)
	e := newEnvWith(t, 0, false)
	coll := e.collection(serverA, "World")
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/b/c"+coll+"/"), chromedp.WaitVisible(chromedp.CSS("#f-channels-ids"))))
	require.Contains(t, text(t, ctx, "#f-channels"), "LOREGATE_DISCORD_TOKEN")
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-channels-ids"), channelForest),
		chromedp.Click(chromedp.CSS("#save-channels")), waitText(".flash", "Saved.")))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/play"), chromedp.WaitVisible(chromedp.CSS("#channel"))))
	tag, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("channel").tagName`))
	require.NoError(t, err)
	require.Equal(t, "INPUT", tag)
	require.True(t, strings.Contains(text(t, ctx, "#play-form"), "bot token"))
}
