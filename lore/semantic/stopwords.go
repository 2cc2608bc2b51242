package semantic

// stopWords are the function words and small-talk words of English,
// Portuguese and Spanish, in matching form (case-folded, NFKC): they carry
// no topic, so a greeting or small talk shares no term with lore
// (docs/contract.md#semantic). The lists are short on purpose; a word left
// out only costs a little score, never a verdict by itself.
var stopWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, list := range [...]string{stopEN, stopPT, stopES} {
		start := -1
		for i := 0; i <= len(list); i++ {
			if i == len(list) || list[i] == ' ' || list[i] == '\n' {
				if start >= 0 {
					m[list[start:i]] = struct{}{}
				}
				start = -1
			} else if start < 0 {
				start = i
			}
		}
	}
	return m
}()

func isStopWord(w string) bool {
	_, ok := stopWords[w]
	return ok
}

const stopEN = `a about above after again against all am an and any are aren as at be because been
before being below between both but by can cannot could did do does doing don down during each
few for from further had has have having he her here hers herself him himself his how if in into
is isn it its itself just let me more most my myself no nor not now of off on once only or other
our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what
when where which while who whom why will with would you your yours yourself yourselves ll re ve
hello hi hey hiya howdy greetings thanks thank please yes yeah yep nope ok okay sure well oh ah
um uh hmm good great nice fine morning afternoon evening night today tonight tomorrow yesterday
day doing going get got go come came say said tell told know think like really also much many
one two lot thing things something anything nothing everything way right bye goodbye see soon
want wants wanted need needs make made take took look looks let lets give gave use used try tried
feel felt seem seems keep kept put maybe still even ever never always just sometimes usually`

const stopPT = `a à ao aos aquela aquelas aquele aqueles aquilo as às até com como da das de dela
delas dele deles depois do dos e é ela elas ele eles em entre era eram essa essas esse esses esta
está estão estas estava este estes eu foi for foram há isso isto já lhe lhes mais mas me mesmo
meu meus minha minhas muito na nas não nem no nos nós nossa nossas nosso nossos num numa o os ou
para pela pelas pelo pelos por qual quando que quem se sem ser seu seus só sua suas também te
tem ter teu tua você vocês vos um uma uns umas olá oi obrigado obrigada bom boa dia tarde noite
hoje ontem amanhã tudo bem sim tchau até logo legal beleza valeu então aqui ali lá tá vou vai`

const stopES = `a al algo algunas algunos ante antes como con contra cual cuando de del desde donde
durante e el él ella ellas ellos en entre era eran es esa esas ese eso esos esta está están estas
este esto estos fue fueron ha han hay la las le les lo los más me mi mis mucho muy nada ni no nos
nosotros o os otra otro para pero poco por porque que qué quien se sea ser si sí sin sobre su
sus también te tu tus tú un una unas uno unos usted ustedes y ya yo hola gracias buenos buenas
días tardes noches hoy ayer mañana bien todo adiós vale bueno claro aquí allí estoy estás cómo`
