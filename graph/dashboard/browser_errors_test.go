package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserFieldErrorsInLanguage saves an entry with two fields the API
// refuses, in Portuguese and in Spanish: a banner at the top lists both at
// once in the member's language (the reason keys' texts), each field is
// marked and shows its text, and the form keeps what the member typed;
// nothing was written. A refused server setting keeps its value too.
func TestBrowserFieldErrorsInLanguage(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	id := e.entry(serverA, coll, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	long := strings.Repeat("a", 300)
	for _, c := range []struct {
		lang, title, chance, budget string
	}{
		{"pt-BR", "tem 300 caracteres; o máximo é 200", "150 está fora do intervalo 0-100", "50 está fora do intervalo de 100-32000 tokens"},
		{"es", "tiene 300 caracteres; el máximo es 200", "150 está fuera del rango 0-100", "50 está fuera del rango de 100-32000 tokens"},
	} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+c.lang+"?back=/dashboard/s/"+serverA+"/b/c"+coll+"/e/"+id),
			chromedp.WaitVisible(chromedp.CSS("#entry-form")),
			chromedp.SetValue(chromedp.CSS("#f-title"), long), chromedp.SetValue(chromedp.CSS("#f-probability"), "150"),
			chromedp.Click(chromedp.CSS("#save")), chromedp.WaitVisible(chromedp.CSS("#error-banner"))))
		banner := text(t, ctx, "#error-banner")
		require.Contains(t, banner, c.title, c.lang)
		require.Contains(t, banner, c.chance, c.lang)
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#error-banner li").length`))
		require.NoError(t, err)
		require.Equal(t, 2, n, "every field error at once")
		atTop, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("error-banner").getBoundingClientRect().top < window.innerHeight / 2`))
		require.NoError(t, err)
		require.True(t, atTop, "the banner is at the top of the page")
		require.Equal(t, c.title, text(t, ctx, "#title-err"))
		require.Equal(t, c.chance, text(t, ctx, "#probability-err"))
		marked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`["f-title", "f-probability"].map(id => document.getElementById(id).getAttribute("aria-invalid")).join()`))
		require.NoError(t, err)
		require.Equal(t, "true,true", marked)
		kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-title").value + "|" + document.getElementById("f-probability").value`))
		require.NoError(t, err)
		require.Equal(t, long+"|150", kept, "the form keeps what the member typed")
		shot(t, ctx, "23-entry-errors-"+c.lang)
		require.Equal(t, "The glade", e.getEntry(serverA, "World", id).Title, "nothing was written")
		requireNoEnums(t, ctx)

		// A budget of 50 tokens is refused; the field keeps 50.
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/"), chromedp.WaitVisible(chromedp.CSS("#server-settings")),
			chromedp.SetValue(chromedp.CSS("#budgetUnit"), "TOKENS"), chromedp.SetValue(chromedp.CSS("#budgetLimit"), "50"),
			chromedp.Submit(chromedp.CSS("#budgetLimit")), chromedp.WaitVisible(chromedp.CSS("#error-banner"))))
		require.Contains(t, text(t, ctx, "#error-banner"), c.budget)
		require.Equal(t, c.budget, text(t, ctx, "#budgetLimit-err"))
		kept, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("budgetLimit").value + "|" + document.getElementById("budgetUnit").value + "|" + document.getElementById("budgetLimit").getAttribute("aria-invalid")`))
		require.NoError(t, err)
		require.Equal(t, "50|TOKENS|true", kept)
		shot(t, ctx, "24-settings-error-"+c.lang)
	}
}
