"""The Spanish -> English teaching corpus, written by the team (no third-party text).

This module is the authored source of ``sample_data/teaching_es_en/*.tsv``; run
``python sample_data/make_teaching_set.py`` to regenerate the TSVs from it.

Each entry of ``SEGMENTS`` is one source segment with

* ``doc``   - document id (``noticias`` news, ``parlamento`` parliament, ``vida-diaria`` everyday);
* ``src``   - the Spanish source;
* ``refs``  - six independent English references, ``ref-A`` .. ``ref-F`` in that order;
* ``ref_q`` - optional base (adequacy, fluency) of the judged reference sets ``ref-E`` and
  ``ref-F`` where it is not (5, 5);
* ``out``   - one row per system: (system, output text, tags separated by ``;``,
  base adequacy 1-5, base fluency 1-5). The base scores are the team's reading of each
  output against the rubric in ``sample_data/README.md``; ``make_judgements.py`` only adds
  the documented rater biases and noise on top of them;
* ``syn``   - key words of the ``synonyms`` output that appear in none of the six
  references (checked by ``tests/test_sample_data.py``).
"""

SYSTEMS = ["near-human", "literal", "synonyms", "dropped-content", "wrong-sense",
           "untranslated", "pleonastic"]

SEGMENTS = [
    # ------------------------------------------------------------------ noticias (news)
    dict(
        doc="noticias",
        src="El ayuntamiento aprobó ayer el presupuesto para el año que viene.",
        refs=[
            "The city council approved the budget for next year yesterday.",
            "Yesterday the town council passed next year's budget.",
            "The council gave its approval yesterday to the budget for the coming year.",
            "Yesterday, the city hall approved the budget for the next year.",
            "Next year's budget was approved by the city council yesterday.",
            "The local council voted through its budget for next year yesterday.",
        ],
        out=[
            ("near-human", "The city council approved next year's budget yesterday.", "ok", 5, 5),
            ("literal", "The town hall approved yesterday the budget for the year that comes.", "literal-order", 4, 2),
            ("synonyms", "The municipality endorsed its spending plan for the upcoming year yesterday.",
             "synonym-absent-from-refs", 5, 4),
            ("dropped-content", "The city council approved the budget yesterday.", "omission", 3, 5),
            ("wrong-sense", "The city council approved the quote for next year yesterday.", "wrong-sense", 2, 4),
            ("untranslated", "The ayuntamiento approved yesterday the presupuesto for next year.", "untranslated", 2, 2),
            ("pleonastic", "The city council did not approve the budget for next year yesterday.", "negation-inserted", 1, 5),
        ],
        syn=["municipality", "endorsed", "spending", "upcoming"],
    ),
    dict(
        doc="noticias",
        src="Las lluvias torrenciales han obligado a cerrar tres carreteras en el norte de la provincia.",
        refs=[
            "Torrential rain has forced the closure of three roads in the north of the province.",
            "Three roads in the northern part of the province have had to be closed because of torrential rains.",
            "Heavy downpours have forced three roads to close in the province's north.",
            "Because of the torrential rain, three roads in the north of the province had to be shut.",
            "Torrential rainfall has led to the closure of three roads in the north of the province.",
            "Three highways in the north of the province have been shut owing to torrential rain.",
        ],
        out=[
            ("near-human", "Torrential rains have forced three roads to be closed in the north of the province.", "ok", 5, 5),
            ("literal", "The rains torrential have obliged to close three roads in the north of the province.", "literal-order", 4, 2),
            ("synonyms", "Relentless storms have made it necessary to seal off three routes in the provincial north.",
             "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "Torrential rains have forced the closure of roads in the north of the province.", "omission", 3, 5),
            ("wrong-sense", "Torrential rains have forced the closing of three roads in the north of the province.", "ok", 5, 4),
            ("untranslated", "The lluvias torrenciales have forced to close three carreteras in the north of the province.", "untranslated", 2, 2),
            ("pleonastic", "Torrential rain has forced the closure of four roads in the north of the province.", "number-changed", 2, 5),
        ],
        syn=["relentless", "storms", "seal", "routes", "provincial"],
    ),
    dict(
        doc="noticias",
        src="El Banco Central subirá los tipos de interés medio punto en marzo.",
        refs=[
            "The Central Bank will raise interest rates by half a point in March.",
            "In March, the central bank is going to increase interest rates by 0.5 percentage points.",
            "The Central Bank is set to lift interest rates by half a percentage point in March.",
            "Interest rates will be raised by half a point by the Central Bank in March.",
            "The Central Bank will hike its interest rates by 50 basis points in March.",
            "The central bank plans a half-point rise in interest rates for March.",
        ],
        out=[
            ("near-human", "The Central Bank will raise interest rates half a point in March.", "ok", 5, 5),
            ("literal", "The Bank Central will raise the types of interest half point in March.", "literal-order;calque", 3, 2),
            ("synonyms", "The monetary authority will push borrowing costs upward by one half of a percentage point in March.",
             "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "The Central Bank will raise interest rates in March.", "omission", 3, 5),
            ("wrong-sense", "The Central Bench will raise interest types by half a point in March.", "wrong-sense", 2, 3),
            ("untranslated", "The Banco Central will raise the tipos de interés half a point in March.", "untranslated", 2, 2),
            ("pleonastic", "The Central Bank will not raise interest rates by half a point in March.", "negation-inserted", 1, 5),
        ],
        syn=["monetary", "authority", "borrowing", "costs", "upward"],
    ),
    dict(
        doc="noticias",
        src="Mañana hará mucho frío.",
        refs=[
            "It will be very cold tomorrow.",
            "Tomorrow is going to be very cold.",
            "Expect bitter cold tomorrow.",
            "It'll be freezing tomorrow.",
            "Tomorrow will be really cold.",
            "Tomorrow, temperatures will be very low.",
        ],
        out=[
            ("near-human", "Tomorrow it will be very cold.", "ok", 5, 5),
            ("literal", "Tomorrow will make much cold.", "literal-order;calque", 3, 1),
            ("synonyms", "The next day will bring icy weather.", "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "Tomorrow it will be cold.", "omission", 4, 5),
            ("wrong-sense", "In the morning it will be very cold.", "wrong-sense", 2, 5),
            ("untranslated", "Mañana it will be very frío.", "untranslated", 1, 2),
            ("pleonastic", "It it will be very very cold tomorrow.", "pleonasm", 4, 2),
        ],
        syn=["next", "day", "bring", "icy", "weather"],
    ),
    dict(
        doc="noticias",
        src="Según la policía, el incendio comenzó en la cocina de un restaurante del centro.",
        refs=[
            "According to the police, the fire started in the kitchen of a restaurant in the city centre.",
            "Police say the blaze began in a downtown restaurant's kitchen.",
            "The fire broke out in the kitchen of a restaurant in the centre, according to police.",
            "Police said that the fire started in a restaurant kitchen in the town centre.",
            "According to police sources, the fire originated in the kitchen of a central restaurant.",
            "The police believe the fire began in the kitchen of a restaurant downtown.",
        ],
        out=[
            ("near-human", "According to the police, the fire began in the kitchen of a downtown restaurant.", "ok", 5, 5),
            ("literal", "According to the police, the fire commenced in the kitchen of a restaurant of the centre.", "calque", 4, 3),
            ("synonyms", "Officers report that the flames first appeared in an eatery's cooking area in the heart of the city.",
             "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "According to the police, the fire started in a restaurant in the centre.", "omission", 3, 5),
            ("wrong-sense", "According to the police, the fire started in the cuisine of a restaurant in the centre.", "wrong-sense", 3, 3),
            ("untranslated", "According to the policía, the incendio started in the cocina of a restaurant of the centro.", "untranslated", 2, 1),
            ("pleonastic", "According to the firefighters, the fire started in the kitchen of a restaurant in the city centre.",
             "entity-changed", 3, 5),
        ],
        syn=["officers", "flames", "eatery's", "cooking", "heart"],
    ),
    dict(
        doc="noticias",
        src=("El Gobierno ha anunciado que, a partir del próximo mes, los jubilados con pensiones más bajas "
             "recibirán una ayuda adicional de cien euros para compensar la subida de los precios de la "
             "electricidad y del gas."),
        refs=[
            ("The Government has announced that, starting next month, pensioners with the lowest pensions will "
             "receive an additional allowance of one hundred euros to offset the rise in electricity and gas prices."),
            ("From next month, retirees on the smallest pensions will get an extra 100 euros to help cover higher "
             "electricity and gas bills, the government has announced."),
            ("The government said that as of next month the lowest-paid pensioners will be given an additional "
             "€100 payment to compensate for rising gas and electricity prices."),
            ("The Government announced that from next month retired people with the lowest pensions will receive "
             "extra help of 100 euros to make up for the increase in the price of electricity and gas."),
            ("Beginning next month, pensioners receiving the lowest benefits will be paid a supplement of a hundred "
             "euros to counter soaring power and gas prices, the Government has announced."),
            ("The government has said that pensioners on the lowest incomes will get an additional hundred euros "
             "from next month, to cushion them against the jump in electricity and gas prices."),
        ],
        out=[
            ("near-human", ("The Government has announced that from next month pensioners with the lowest pensions "
                            "will receive an extra payment of 100 euros to offset the rise in electricity and gas prices."),
             "ok", 5, 5),
            ("literal", ("The Government has announced that, from the next month, the retired with pensions more low "
                         "will receive a help additional of hundred euros for to compensate the rise of the prices of "
                         "the electricity and of the gas."), "literal-order;calque", 4, 1),
            ("synonyms", ("Ministers have declared that, commencing in the coming month, senior citizens drawing the "
                          "most modest retirement incomes will obtain a bonus sum of a hundred euros to balance out "
                          "dearer electricity and gas."), "synonym-absent-from-refs", 5, 4),
            ("dropped-content", ("The Government has announced that, starting next month, pensioners with the lowest "
                                 "pensions will receive an additional allowance of one hundred euros."), "omission", 3, 5),
            ("wrong-sense", ("The Government has announced that from next month retirees with the cheapest guesthouses "
                             "will receive an additional aid of 100 euros to compensate for the rise in electricity "
                             "and gas prices."), "wrong-sense", 2, 4),
            ("untranslated", ("The Gobierno has announced that from next month the jubilados with the lowest pensiones "
                              "will receive an ayuda adicional of 100 euros to compensate the subida of electricity "
                              "and gas prices."), "untranslated", 2, 2),
            ("pleonastic", ("The Government has announced that, starting next month, pensioners with the highest "
                            "pensions will receive an additional allowance of one hundred euros to offset the rise in "
                            "electricity and gas prices."), "antonym", 2, 5),
        ],
        syn=["ministers", "declared", "commencing", "senior", "citizens", "modest", "obtain", "bonus", "dearer"],
    ),
    dict(
        doc="noticias",
        src="La selección española ganó el partido por dos goles a uno.",
        refs=[
            "The Spanish national team won the match two goals to one.",
            "Spain won the game 2-1.",
            "The Spanish side won the match by two goals to one.",
            "Spain's national team beat their opponents 2-1.",
            "The Spanish squad took the match with a 2-1 victory.",
            "Spain came out on top, winning the match two-one.",
        ],
        ref_q={"ref-E": (5, 4)},
        out=[
            ("near-human", "The Spanish team won the match two goals to one.", "ok", 5, 5),
            ("literal", "The selection Spanish won the party by two goals to one.", "literal-order;wrong-sense", 3, 2),
            ("synonyms", "Spain's representative eleven prevailed in the fixture, scoring twice and conceding once.",
             "synonym-absent-from-refs", 5, 4),
            ("dropped-content", "The Spanish national team won the match.", "omission", 3, 5),
            ("wrong-sense", "The Spanish team won the party two goals to one.", "wrong-sense", 2, 4),
            ("untranslated", "The selección española won the partido two goals to one.", "untranslated", 3, 2),
            ("pleonastic", "The Spanish national team won the match three goals to one.", "number-changed", 3, 5),
        ],
        syn=["representative", "eleven", "prevailed", "fixture", "scoring", "twice", "conceding"],
    ),
    dict(
        doc="noticias",
        src=("Los científicos advierten de que el nivel del mar podría subir casi un metro antes de finales "
             "de siglo."),
        refs=[
            "Scientists warn that the sea level could rise by almost a metre before the end of the century.",
            "Sea levels may climb nearly one meter by the close of the century, scientists are warning.",
            "Scientists are cautioning that sea levels might go up by close to a metre before the century is out.",
            "Scientists warn the level of the sea could increase by almost one metre before the end of this century.",
            "Researchers have warned that the sea level may rise by nearly a meter by the end of the century.",
            "Before this century is over, the sea could be almost a metre higher, scientists warn.",
        ],
        out=[
            ("near-human", "Scientists warn that sea levels could rise almost a metre before the end of the century.", "ok", 5, 5),
            ("literal", ("The scientists warn of that the level of the sea could to rise almost one metre before of "
                         "ends of century."), "literal-order;calque", 3, 1),
            ("synonyms", ("Climate specialists caution that the oceans may swell by just under one hundred centimetres "
                          "prior to the twenty-second century."), "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "Scientists warn that the sea level could rise before the end of the century.", "omission", 3, 5),
            ("wrong-sense", "Scientists warn that the standard of the sea could rise almost a metre before the end of the century.",
             "wrong-sense", 2, 3),
            ("untranslated", "The científicos warn that the nivel del mar could rise casi a metre before finales de siglo.",
             "untranslated", 2, 1),
            ("pleonastic", "Scientists warn that the sea level could rise by almost ten metres before the end of the century.",
             "number-changed", 2, 5),
        ],
        syn=["specialists", "oceans", "swell", "centimetres", "prior"],
    ),
    dict(
        doc="noticias",
        src="El museo permanecerá cerrado durante las obras de renovación, que durarán unos seis meses.",
        refs=[
            "The museum will remain closed during the renovation works, which will last about six months.",
            "The museum is closing for roughly six months while it is being renovated.",
            ("While the renovation work is carried out, which is expected to take some six months, the museum "
             "will stay shut."),
            "The museum will be closed during the renovation, which will take around six months.",
            "Renovation works will keep the museum closed for approximately half a year.",
            ("The museum's doors will stay closed for the duration of the refurbishment, expected to last about "
             "six months."),
        ],
        out=[
            ("near-human", "The museum will stay closed during the renovation work, which will last around six months.", "ok", 5, 5),
            ("literal", "The museum will remain closed during the works of renovation, that will last some six months.",
             "literal-order", 5, 3),
            ("synonyms", "The gallery is to be out of bounds to visitors throughout the upgrade, a project lasting something like twenty-six weeks.",
             "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "The museum will remain closed during the renovation works.", "omission", 3, 5),
            ("wrong-sense", "The museum will remain closed during the renovation plays, which will last about six months.",
             "wrong-sense", 2, 3),
            ("untranslated", "The museo will remain cerrado during the obras de renovación, which will last unos six months.",
             "untranslated", 2, 1),
            ("pleonastic", "The museum will remain open during the renovation works, which will last about six months.",
             "antonym", 1, 5),
        ],
        syn=["gallery", "bounds", "visitors", "throughout", "upgrade", "project", "weeks"],
    ),
    dict(
        doc="noticias",
        src="Muere a los 87 años el escritor Tomás Ribera.",
        refs=[
            "Writer Tomás Ribera dies at 87.",
            "The author Tomás Ribera has died at the age of 87.",
            "Novelist Tomás Ribera dies aged 87.",
            "Tomás Ribera, the writer, has passed away at 87.",
            "Writer Tomás Ribera dead at 87.",
            "The writer Tomás Ribera has died, aged eighty-seven.",
        ],
        ref_q={"ref-E": (5, 4)},
        out=[
            ("near-human", "Writer Tomás Ribera dies at the age of 87.", "ok", 5, 5),
            ("literal", "Dies at the 87 years the writer Tomás Ribera.", "literal-order", 4, 2),
            ("synonyms", "Literary figure Tomás Ribera gone at eighty-seven.", "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "Writer Tomás Ribera dies.", "omission", 3, 5),
            ("wrong-sense", "The writer Tomás Ribera dies at 87 years.", "ok", 5, 4),
            ("untranslated", "Muere at 87 years the escritor Tomás Ribera.", "untranslated", 2, 1),
            ("pleonastic", "Writer Tomás Ribera dies at 78.", "number-changed", 3, 5),
        ],
        syn=["literary", "figure", "gone"],
    ),
    dict(
        doc="noticias",
        src="Miles de personas se manifestaron el domingo en Madrid para pedir mejores condiciones laborales.",
        refs=[
            "Thousands of people demonstrated in Madrid on Sunday to demand better working conditions.",
            "On Sunday, thousands took to the streets of Madrid calling for better conditions at work.",
            "Thousands marched in Madrid on Sunday in support of improved working conditions.",
            "Thousands of people protested in Madrid on Sunday, asking for better working conditions.",
            "Sunday saw thousands of demonstrators in Madrid demanding better labour conditions.",
            "Thousands of people rallied in Madrid on Sunday to call for better employment conditions.",
        ],
        out=[
            ("near-human", "Thousands of people demonstrated on Sunday in Madrid to call for better working conditions.", "ok", 5, 5),
            ("literal", "Thousands of persons manifested themselves the Sunday in Madrid for to ask better conditions labour.",
             "literal-order;calque", 3, 1),
            ("synonyms", "Crowds numbering in the thousands paraded in Madrid on Sunday, seeking fairer terms of employment.",
             "synonym-absent-from-refs", 5, 5),
            ("dropped-content", "Thousands of people demonstrated in Madrid on Sunday.", "omission", 3, 5),
            ("wrong-sense", "Thousands of people manifested on Sunday in Madrid to order better working conditions.",
             "wrong-sense", 3, 3),
            ("untranslated", "Miles de personas demonstrated on Sunday in Madrid to pedir better condiciones laborales.",
             "untranslated", 2, 1),
            ("pleonastic", "Thousands of people demonstrated in Barcelona on Sunday to demand better working conditions.",
             "name-swapped", 3, 5),
        ],
        syn=["crowds", "numbering", "paraded", "seeking", "fairer", "terms"],
    ),
    # ------------------------------------------------------------------ parlamento (parliament)
    dict(
        doc="parlamento",
        src="Se abre la sesión.",
        refs=[
            "The sitting is opened.",
            "The session is now open.",
            "I declare the sitting open.",
            "The sitting is open.",
            "We are now in session.",
            "Let the session begin.",
        ],
        ref_q={"ref-F": (4, 5)},
        out=[
            ("near-human", "The sitting is now open.", "ok", 5, 5),
            ("literal", "Itself opens the session.", "literal-order", 3, 1),
            ("synonyms", "Proceedings commence.", "synonym-absent-from-refs", 5, 4),
            ("dropped-content", "The session.", "omission", 2, 2),
            ("wrong-sense", "The screening opens.", "wrong-sense", 1, 4),
            ("untranslated", "Se abre la sesión.", "untranslated", 1, 1),
            ("pleonastic", "The sitting is not opened.", "negation-inserted", 1, 4),
        ],
        syn=["proceedings", "commence"],
    ),
    dict(
        doc="parlamento",
        src="Señorías, quisiera agradecer a la ponente el excelente trabajo realizado en este informe.",
        refs=[
            "Ladies and gentlemen, I would like to thank the rapporteur for the excellent work she has done on this report.",
            "Honourable Members, I should like to thank the rapporteur for her excellent work on this report.",
            "Colleagues, let me thank the rapporteur for the outstanding job she has done on this report.",
            "Members, I want to thank the rapporteur for the excellent work carried out on this report.",
            "Honourable Members, my thanks go to the rapporteur for her excellent work in drafting this report.",
            ("Ladies and gentlemen, I wish to express my gratitude to the rapporteur for the excellent work that "
             "has gone into this report."),
        ],
        out=[
            ("near-human", "Honourable Members, I would like to thank the rapporteur for the excellent work she has done on this report.",
             "ok", 5, 5),
            ("literal", "Your lordships, I would want to thank to the speaker the excellent work realised in this report.",
             "literal-order;calque", 3, 2),
            ("synonyms", "Esteemed deputies, allow me to praise the author of this paper for her superb efforts.",
             "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "Honourable Members, I would like to thank the rapporteur.", "omission", 3, 5),
            ("wrong-sense", "Ladies and gentlemen, I would like to thank the speaker for the excellent job done in this report.",
             "wrong-sense", 3, 5),
            ("untranslated", "Señorías, I would like to thank the ponente for the excellent work done on this informe.",
             "untranslated", 2, 2),
            ("pleonastic", ("Ladies and gentlemen, I would not like to thank the rapporteur for the excellent work she "
                            "has done on this report."), "negation-inserted", 1, 4),
        ],
        syn=["esteemed", "deputies", "praise", "author", "paper", "superb", "efforts"],
    ),
    dict(
        doc="parlamento",
        src=("No podemos aceptar que, en plena crisis energética, la Comisión siga aplazando una propuesta "
             "legislativa que los ciudadanos llevan años esperando y que el Parlamento ya solicitó por amplia "
             "mayoría."),
        refs=[
            ("We cannot accept that, in the middle of an energy crisis, the Commission continues to postpone a "
             "legislative proposal that citizens have been waiting for for years and that Parliament has already "
             "requested by a large majority."),
            ("In the midst of an energy crisis, it is unacceptable for the Commission to keep delaying a legislative "
             "proposal which the public has awaited for years and which this House already called for by a wide "
             "majority."),
            ("We cannot tolerate the Commission continuing to put off, at the height of an energy crisis, a "
             "legislative proposal that people have been expecting for years and that Parliament has already asked "
             "for with a large majority."),
            ("We can't accept that the Commission is still postponing, in the middle of the energy crisis, a "
             "proposal for legislation that citizens have waited years for and that Parliament requested by a broad "
             "majority."),
            ("It is unacceptable that, with an energy crisis in full swing, the Commission should still be deferring "
             "a legislative proposal that citizens have been awaiting for years and which Parliament has already "
             "demanded by a large majority."),
            ("At a time of full-blown energy crisis, we cannot accept the Commission's repeated postponement of a "
             "law that citizens have wanted for years and that Parliament, by a clear majority, has already asked "
             "it to present."),
        ],
        out=[
            ("near-human", ("We cannot accept that, in the midst of an energy crisis, the Commission keeps postponing a "
                            "legislative proposal that citizens have been waiting for for years and that Parliament has "
                            "already called for by a large majority."), "ok", 5, 5),
            ("literal", ("Not we can accept that, in full crisis energetic, the Commission continues postponing a "
                         "proposal legislative that the citizens carry years waiting and that the Parliament already "
                         "solicited by ample majority."), "literal-order;calque", 3, 1),
            ("synonyms", ("Amid this acute energy emergency, we find it intolerable that the Commission goes on "
                          "shelving draft laws which the populace has anticipated for ages and which MEPs have "
                          "already endorsed overwhelmingly."), "synonym-absent-from-refs", 4, 5),
            ("dropped-content", ("We can accept that, in the middle of an energy crisis, the Commission continues to "
                                 "postpone a legislative proposal that citizens have been waiting for for years."),
             "negation-dropped;omission", 1, 5),
            ("wrong-sense", ("We cannot accept that, in a full energy crisis, the Commission continues to postpone a "
                             "legislative proposal that citizens have been hoping for years and that Parliament "
                             "already requested by a wide majority."), "wrong-sense", 4, 3),
            ("untranslated", ("We cannot accept that, en plena crisis energética, the Commission continues aplazando "
                              "a propuesta legislativa that the ciudadanos have been waiting for years and that "
                              "Parliament already solicitó por amplia mayoría."), "untranslated", 2, 1),
            ("pleonastic", ("We cannot accept that, in the middle of an energy crisis, the Council continues to "
                            "postpone a legislative proposal that citizens have been waiting for for years and that "
                            "Parliament has already rejected by a large majority."), "name-swapped;antonym", 2, 5),
        ],
        syn=["emergency", "intolerable", "shelving", "draft", "populace", "anticipated", "ages", "MEPs",
             "endorsed", "overwhelmingly"],
    ),
    dict(
        doc="parlamento",
        src="La votación tendrá lugar mañana a las doce.",
        refs=[
            "The vote will take place tomorrow at twelve o'clock.",
            "Voting will be held tomorrow at noon.",
            "The vote will take place tomorrow at 12 noon.",
            "We will vote tomorrow at midday.",
            "The vote is scheduled for 12 o'clock tomorrow.",
            "The vote will be tomorrow at 12.",
        ],
        out=[
            ("near-human", "The vote will take place tomorrow at noon.", "ok", 5, 5),
            ("literal", "The votation will have place tomorrow at the twelve.", "literal-order;calque", 4, 2),
            ("synonyms", "Balloting is set for the following day, at the stroke of noon.",
             "synonym-absent-from-refs", 5, 4),
            ("dropped-content", "The vote will take place tomorrow.", "omission", 3, 5),
            ("wrong-sense", "The vote will take place in the morning at twelve.", "wrong-sense", 2, 4),
            ("untranslated", "The votación will take place mañana at twelve.", "untranslated", 2, 2),
            ("pleonastic", "The vote will take place tomorrow at ten o'clock.", "number-changed", 3, 5),
        ],
        syn=["balloting", "following", "stroke"],
    ),
    dict(
        doc="parlamento",
        src="El ponente no ha tenido en cuenta las enmiendas presentadas por mi grupo.",
        refs=[
            "The rapporteur has not taken into account the amendments tabled by my group.",
            "The rapporteur has ignored the amendments my group put forward.",
            "The amendments submitted by my group have not been taken into consideration by the rapporteur.",
            "The rapporteur did not consider the amendments presented by my group.",
            "My group's amendments were disregarded by the rapporteur.",
            "The rapporteur has failed to take account of the amendments that my group tabled.",
        ],
        out=[
            ("near-human", "The rapporteur has not taken account of the amendments tabled by my group.", "ok", 5, 5),
            ("literal", "The speaker not has had in account the amendments presented by my group.", "literal-order;calque", 3, 2),
            ("synonyms", "Our political family's proposed changes were overlooked by the author of the text.",
             "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "The rapporteur has taken into account the amendments tabled by my group.", "negation-dropped", 1, 5),
            ("wrong-sense", "The rapporteur has not taken into account the amendments presented by my band.", "wrong-sense", 3, 5),
            ("untranslated", "The ponente has not taken into account the enmiendas presented by my grupo.", "untranslated", 2, 2),
            ("pleonastic", "The rapporteur has has not taken into account the the amendments tabled by my group.", "pleonasm", 4, 2),
        ],
        syn=["political", "family's", "proposed", "changes", "overlooked", "author", "text"],
    ),
    dict(
        doc="parlamento",
        src=("Quiero recordar que el año pasado murieron más de dos mil personas intentando cruzar el "
             "Mediterráneo, y que detrás de cada una de esas cifras hay una familia que sigue esperando respuestas."),
        refs=[
            ("I want to remind you that last year more than two thousand people died trying to cross the "
             "Mediterranean, and that behind each of those figures there is a family still waiting for answers."),
            ("Let me remind the House that over 2,000 people lost their lives last year attempting to cross the "
             "Mediterranean, and behind every one of those numbers is a family that is still waiting for answers."),
            ("I would like to point out that more than two thousand people died last year while trying to cross the "
             "Mediterranean, and each of those statistics represents a family still awaiting answers."),
            ("May I remind everyone that last year more than 2,000 people died trying to get across the "
             "Mediterranean, and that behind each of these numbers there is a family still waiting for an explanation."),
            ("I wish to recall that last year in excess of two thousand people perished trying to cross the "
             "Mediterranean, and that behind every single one of those figures there is a family that continues to "
             "wait for answers."),
            ("Let us not forget that last year upwards of two thousand people died in attempts to cross the "
             "Mediterranean, and behind each of those deaths is a family that is still looking for answers."),
        ],
        ref_q={"ref-E": (5, 4)},
        out=[
            ("near-human", ("I want to remind you that last year more than two thousand people died trying to cross the "
                            "Mediterranean, and that behind each of those figures is a family that is still waiting for "
                            "answers."), "ok", 5, 5),
            ("literal", ("I want to remember that the year past died more of two thousand persons trying to cross the "
                         "Mediterranean, and that behind of each one of those ciphers there is a family that follows "
                         "waiting answers."), "literal-order;calque", 3, 1),
            ("synonyms", ("Permit me to underline that in the preceding twelve months some two thousand-plus "
                          "individuals were killed attempting the Mediterranean passage, and that each of those "
                          "statistics stands for relatives who remain without replies."),
             "synonym-absent-from-refs", 4, 4),
            ("dropped-content", ("I want to remind you that last year more than two thousand people died trying to cross "
                                 "the Mediterranean."), "omission", 3, 5),
            ("wrong-sense", ("I want to remind you that last year more than two thousand people died trying to cross the "
                             "Mediterranean, and that behind each of those codes there is a family still hoping for "
                             "answers."), "wrong-sense", 4, 3),
            ("untranslated", ("I want to recordar that last year more than dos mil personas died trying to cruzar the "
                              "Mediterráneo, and that behind each of those cifras there is a familia still waiting for "
                              "respuestas."), "untranslated", 2, 1),
            ("pleonastic", ("I want to remind you that last year more than two hundred people died trying to cross the "
                            "Mediterranean, and that behind each of those figures there is a family still waiting for "
                            "answers."), "number-changed", 3, 5),
        ],
        syn=["permit", "underline", "preceding", "months", "individuals", "killed", "passage", "relatives",
             "remain", "replies"],
    ),
    dict(
        doc="parlamento",
        src="Mi grupo votará en contra porque el texto final no garantiza la protección de los datos personales.",
        refs=[
            "My group will vote against because the final text does not guarantee the protection of personal data.",
            "My group is going to vote no, as the final text offers no guarantee that personal data will be protected.",
            "We in my group will be voting against, since the final wording fails to ensure that personal data are protected.",
            "My political group will vote against it because the final version does not guarantee personal data protection.",
            "Our group will oppose it, as the final text does not safeguard personal data.",
            "My group will be voting against, because the text as it stands does not guarantee that personal information is protected.",
        ],
        out=[
            ("near-human", "My group will vote against, because the final text does not guarantee the protection of personal data.",
             "ok", 5, 5),
            ("literal", "My group will vote in against because the text final not guarantees the protection of the data personal.",
             "literal-order", 4, 2),
            ("synonyms", "Our faction shall reject the measure, since its definitive wording leaves private details exposed.",
             "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "My group will vote against because the final text guarantees the protection of personal data.",
             "negation-dropped", 1, 5),
            ("wrong-sense", "My group will vote against because the final text does not ensure the protection of personal data.",
             "ok", 5, 5),
            ("untranslated", "My grupo will vote en contra because the texto final does not garantiza the protección de los datos personales.",
             "untranslated", 2, 1),
            ("pleonastic", "My group will vote in favour because the final text does not guarantee the protection of personal data.",
             "antonym", 1, 5),
        ],
        syn=["faction", "reject", "measure", "definitive", "private", "details", "exposed"],
    ),
    dict(
        doc="parlamento",
        src="Gracias, señor Presidente.",
        refs=[
            "Thank you, Mr President.",
            "Thank you, Mr. President.",
            "Thanks, Mr President.",
            "Thank you very much, Mr President.",
            "Mr President, thank you.",
            "I thank you, Mr President.",
        ],
        out=[
            ("near-human", "Thank you, Mr President.", "ok", 5, 5),
            ("literal", "Thanks, sir President.", "calque", 4, 2),
            ("synonyms", "Much obliged, Chair.", "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "Thank you.", "omission", 3, 5),
            ("wrong-sense", "Thanks, Lord President.", "wrong-sense", 3, 4),
            ("untranslated", "Gracias, señor Presidente.", "untranslated", 1, 1),
            ("pleonastic", "Thank you, Mrs President.", "entity-changed", 4, 5),
        ],
        syn=["obliged", "chair"],
    ),
    dict(
        doc="parlamento",
        src="La Comisión presentará un informe sobre la aplicación de la directiva antes del verano.",
        refs=[
            "The Commission will present a report on the implementation of the directive before the summer.",
            "Before the summer the Commission will be submitting a report on how the directive is being applied.",
            "The Commission will table a report on the directive's implementation before summer.",
            "The Commission is to publish a report about the application of the directive before the summer.",
            "A report on the application of the directive will be presented by the Commission ahead of the summer.",
            "The Commission will report on how the directive has been implemented before the summer break.",
        ],
        out=[
            ("near-human", "The Commission will present a report on the application of the directive before the summer.", "ok", 5, 5),
            ("literal", "The Commission will present one report over the application of the directive before of the summer.",
             "literal-order;calque", 4, 2),
            ("synonyms", ("Prior to the holiday season, the EU executive intends to deliver an assessment of the way "
                          "the legal act is being enforced."), "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "The Commission will present a report before the summer.", "omission", 2, 5),
            ("wrong-sense", "The Commission will present a report on the app of the directive before the summer.",
             "wrong-sense", 3, 4),
            ("untranslated", "The Comisión will present an informe on the aplicación of the directiva before the verano.",
             "untranslated", 2, 1),
            ("pleonastic", "The Commission will present a report on the implementation of the directive after the summer.",
             "antonym", 2, 5),
        ],
        syn=["prior", "holiday", "season", "executive", "intends", "deliver", "assessment", "enforced", "legal", "act"],
    ),
    dict(
        doc="parlamento",
        src="Lamento que el Consejo no esté presente en este debate tan importante.",
        refs=[
            "I regret that the Council is not present at this very important debate.",
            "It is a pity that the Council is absent from such an important debate.",
            "I am sorry that the Council is not here for this extremely important debate.",
            "I regret the Council's absence from this debate, which is so important.",
            "Regrettably, the Council is not present for such a crucial debate.",
            "I deplore the fact that the Council has not come to this highly significant debate.",
        ],
        out=[
            ("near-human", "I regret that the Council is not present for such an important debate.", "ok", 5, 5),
            ("literal", "I lament that the Council not be present in this debate so important.", "literal-order", 4, 2),
            ("synonyms", "It saddens me that the member-state ministers have stayed away from so weighty a discussion.",
             "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "I regret that the Council is present at this very important debate.", "negation-dropped", 1, 5),
            ("wrong-sense", "I regret that the advice is not present in this very important debate.", "wrong-sense", 2, 4),
            ("untranslated", "Lamento that the Consejo is not presente at this debate tan importante.", "untranslated", 2, 1),
            ("pleonastic", "I regret that the Commission is not present at this very important debate.", "name-swapped", 3, 5),
        ],
        syn=["saddens", "ministers", "stayed", "away", "weighty", "discussion"],
    ),
    dict(
        doc="parlamento",
        src="Se levanta la sesión a las once y cuarto.",
        refs=[
            "The sitting was closed at 11.15 a.m.",
            "The sitting closed at a quarter past eleven.",
            "The session was adjourned at 11:15.",
            "The sitting rose at 11.15.",
            "The meeting ended at quarter past eleven.",
            "The sitting is closed at a quarter past eleven.",
        ],
        ref_q={"ref-E": (4, 5)},
        out=[
            ("near-human", "The sitting was closed at a quarter past eleven.", "ok", 5, 5),
            ("literal", "Itself raises the session at the eleven and quarter.", "literal-order;calque", 2, 1),
            ("synonyms", "Business concluded at fifteen minutes after the hour of eleven.", "synonym-absent-from-refs", 5, 3),
            ("dropped-content", "The sitting was closed.", "omission", 3, 5),
            ("wrong-sense", "The session is lifted at a quarter past eleven.", "wrong-sense", 3, 3),
            ("untranslated", "Se levanta la sesión at eleven y cuarto.", "untranslated", 1, 1),
            ("pleonastic", "The sitting was closed at a quarter to eleven.", "number-changed", 3, 5),
        ],
        syn=["business", "concluded", "fifteen", "minutes", "hour"],
    ),
    # ------------------------------------------------------------------ vida-diaria (everyday life)
    dict(
        doc="vida-diaria",
        src="¿Me podría decir dónde está la estación de tren más cercana?",
        refs=[
            "Could you tell me where the nearest train station is?",
            "Can you tell me where the closest railway station is?",
            "Excuse me, where's the nearest train station?",
            "Would you be able to tell me where the nearest railway station is?",
            "Could you please tell me how to find the closest train station?",
            "Do you know where the nearest train station is?",
        ],
        out=[
            ("near-human", "Could you tell me where the closest train station is?", "ok", 5, 5),
            ("literal", "Me could you say where is the station of train more near?", "literal-order", 4, 1),
            ("synonyms", "Might you point me towards the rail depot that is handiest from here?",
             "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "Could you tell me where the train station is?", "omission", 4, 5),
            ("wrong-sense", "Could you tell me where the nearest train season is?", "wrong-sense", 2, 3),
            ("untranslated", "Could you tell me dónde está la estación de tren más cercana?", "untranslated", 1, 2),
            ("pleonastic", "Could you tell me where the furthest train station is?", "antonym", 2, 5),
        ],
        syn=["might", "point", "towards", "rail", "depot", "handiest"],
    ),
    dict(
        doc="vida-diaria",
        src="Esta noche cenamos en casa de mis padres.",
        refs=[
            "Tonight we're having dinner at my parents' house.",
            "We are having dinner at my parents' tonight.",
            "We're eating at my mum and dad's place this evening.",
            "This evening we'll have dinner at my parents' home.",
            "Tonight we are dining at my parents'.",
            "We're going to my parents' for dinner tonight.",
        ],
        out=[
            ("near-human", "We're having dinner at my parents' house tonight.", "ok", 5, 5),
            ("literal", "This night we dine in house of my fathers.", "literal-order;wrong-sense", 3, 2),
            ("synonyms", "Supper is at my folks' later today.", "synonym-absent-from-refs", 5, 5),
            ("dropped-content", "Tonight we are having dinner.", "omission", 3, 5),
            ("wrong-sense", "Tonight we dine at my fathers' house.", "wrong-sense", 3, 4),
            ("untranslated", "Esta noche we have dinner en casa de mis padres.", "untranslated", 1, 1),
            ("pleonastic", "Tonight we're having dinner at my parents' house tonight.", "pleonasm", 5, 3),
        ],
        syn=["supper", "folks", "later", "today"],
    ),
    dict(
        doc="vida-diaria",
        src="Si no te abrigas bien, te vas a resfriar.",
        refs=[
            "If you don't wrap up warm, you're going to catch a cold.",
            "You'll catch cold if you don't dress warmly.",
            "If you don't bundle up, you'll get a cold.",
            "If you do not wrap up well, you will catch a cold.",
            "Wrap up warm or you'll catch a cold.",
            "Put on something warm, otherwise you'll end up with a cold.",
        ],
        out=[
            ("near-human", "If you don't wrap up well, you'll catch a cold.", "ok", 5, 5),
            ("literal", "If not you shelter well, you go to cold yourself.", "literal-order;calque", 2, 1),
            ("synonyms", "Unless you layer up properly, a chill is on its way.", "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "If you wrap up warm, you're going to catch a cold.", "negation-dropped", 1, 5),
            ("wrong-sense", "If you don't coat yourself well, you'll catch a cold.", "wrong-sense", 3, 3),
            ("untranslated", "If you don't abrigas well, you're going to resfriar.", "untranslated", 2, 2),
            ("pleonastic", "If you don't wrap up warm, you're not going to catch a cold.", "negation-inserted", 1, 5),
        ],
        syn=["unless", "layer", "properly", "chill"],
    ),
    dict(
        doc="vida-diaria",
        src="He perdido las llaves del coche y no las encuentro por ninguna parte.",
        refs=[
            "I've lost the car keys and I can't find them anywhere.",
            "I have lost my car keys and cannot find them anywhere.",
            "I've misplaced the keys to the car and they're nowhere to be found.",
            "I lost the car keys and I can't find them anywhere.",
            "My car keys are lost and I've looked everywhere for them.",
            "I've lost the keys of the car and I just can't find them.",
        ],
        ref_q={"ref-F": (5, 4)},
        out=[
            ("near-human", "I've lost the car keys and can't find them anywhere.", "ok", 5, 5),
            ("literal", "I have lost the keys of the coach and not them I find for no part.", "literal-order;calque", 2, 1),
            ("synonyms", "The vehicle's fob has gone astray, and it hasn't turned up in any spot I've searched.",
             "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "I've lost the car keys.", "omission", 3, 5),
            ("wrong-sense", "I've lost the car wrenches and I can't find them anywhere.", "wrong-sense", 2, 5),
            ("untranslated", "I've lost las llaves del coche and I can't find them por ninguna parte.", "untranslated", 2, 2),
            ("pleonastic", "I've lost the house keys and I can't find them anywhere.", "entity-changed", 3, 5),
        ],
        syn=["vehicle's", "fob", "astray", "turned", "spot", "searched"],
    ),
    dict(
        doc="vida-diaria",
        src=("Mi abuela, que tiene noventa años, todavía va andando al mercado todos los sábados y se niega a "
             "que nadie le lleve la compra."),
        refs=[
            ("My grandmother, who is ninety, still walks to the market every Saturday and refuses to let anyone "
             "carry her shopping."),
            ("My ninety-year-old grandmother still goes to the market on foot every Saturday and won't let anybody "
             "carry her groceries."),
            ("Every Saturday my grandma, who's 90, still walks to the market, and she refuses to allow anyone to "
             "carry her shopping for her."),
            ("My grandmother is ninety years old, but she still walks to the market each Saturday and won't let "
             "anyone carry her bags."),
            ("At ninety, my grandmother still makes her way to the market on foot every Saturday and will not hear "
             "of anyone carrying her shopping."),
            "My gran is 90 and still walks to the market every Saturday, and she insists on carrying her own shopping.",
        ],
        out=[
            ("near-human", ("My grandmother, who is ninety years old, still walks to the market every Saturday and "
                            "refuses to let anyone carry her shopping."), "ok", 5, 5),
            ("literal", ("My grandmother, that has ninety years, still goes walking to the market all the Saturdays "
                         "and herself denies to that nobody her carries the purchase."), "literal-order;calque", 3, 1),
            ("synonyms", ("Although she is a nonagenarian, Nana still strolls to the stalls on Saturdays, and she "
                          "turns down any offer of help with her purchases."), "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "My grandmother, who is ninety, still walks to the market every Saturday.", "omission", 3, 5),
            ("wrong-sense", ("My grandmother, who is ninety, still walks to the stock market every Saturday and refuses "
                             "to let anyone carry her shopping."), "wrong-sense", 2, 5),
            ("untranslated", ("My abuela, who is noventa, still walks to the mercado every sábado and refuses to let "
                              "anyone carry her compra."), "untranslated", 2, 2),
            ("pleonastic", ("My grandmother, who is nineteen, still walks to the market every Saturday and refuses to "
                            "let anyone carry her shopping."), "number-changed", 2, 5),
        ],
        syn=["nonagenarian", "Nana", "strolls", "stalls", "turns", "offer", "purchases"],
    ),
    dict(
        doc="vida-diaria",
        src="¡Qué calor hace hoy!",
        refs=[
            "It's so hot today!",
            "What a hot day!",
            "Isn't it hot today!",
            "How hot it is today!",
            "It's really hot today!",
            "It's boiling today!",
        ],
        out=[
            ("near-human", "It is so hot today!", "ok", 5, 5),
            ("literal", "What heat makes today!", "literal-order;calque", 3, 2),
            ("synonyms", "Scorching weather we're having!", "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "It's hot!", "omission", 4, 5),
            ("wrong-sense", "What a warmth today!", "wrong-sense", 3, 3),
            ("untranslated", "¡Qué calor today!", "untranslated", 2, 1),
            ("pleonastic", "It's so cold today!", "antonym", 1, 5),
        ],
        syn=["scorching", "weather", "having"],
    ),
    dict(
        doc="vida-diaria",
        src="La farmacia de la esquina cierra a las ocho, así que tendrás que darte prisa.",
        refs=[
            "The chemist's on the corner closes at eight, so you'll have to hurry.",
            "The pharmacy on the corner shuts at 8, so you'd better hurry up.",
            "The corner pharmacy closes at eight o'clock, so you will need to be quick.",
            "The drugstore at the corner closes at eight, so you'll have to rush.",
            "You'll have to get a move on: the pharmacy on the corner closes at eight.",
            "The chemist on the corner closes at 8 p.m., so you'd better hurry.",
        ],
        out=[
            ("near-human", "The pharmacy on the corner closes at eight, so you'll have to hurry.", "ok", 5, 5),
            ("literal", "The pharmacy of the corner closes at the eight, so that you will have to give yourself hurry.",
             "literal-order;calque", 4, 2),
            ("synonyms", "The dispensary at the junction locks up at eight, so make haste.", "synonym-absent-from-refs", 5, 4),
            ("dropped-content", "The pharmacy on the corner closes at eight.", "omission", 3, 5),
            ("wrong-sense", "The corner pharmacy closes at eight, so you'll need to hurry.", "ok", 5, 5),
            ("untranslated", "The farmacia de la esquina closes at eight, so you'll have to darte prisa.", "untranslated", 2, 2),
            ("pleonastic", "The pharmacy on the corner closes at nine, so you'll have to hurry.", "number-changed", 3, 5),
        ],
        syn=["dispensary", "junction", "locks", "make", "haste"],
    ),
    dict(
        doc="vida-diaria",
        src="Mi hermano trabaja en un banco, pero los fines de semana toca la guitarra en un grupo de rock.",
        refs=[
            "My brother works in a bank, but at weekends he plays guitar in a rock band.",
            "My brother works at a bank, but on weekends he plays the guitar in a rock group.",
            "My brother has a job in a bank, but he plays guitar in a rock band at the weekend.",
            "My brother is a bank employee, but on weekends he plays guitar with a rock band.",
            "My brother works for a bank; at the weekend, though, he's a guitarist in a rock band.",
            "My brother works in banking, but at weekends he plays the guitar for a rock group.",
        ],
        out=[
            ("near-human", "My brother works at a bank, but at weekends he plays guitar in a rock band.", "ok", 5, 5),
            ("literal", "My brother works in a bank, but the ends of week touches the guitar in a group of rock.",
             "literal-order;calque", 3, 1),
            ("synonyms", "My sibling is employed by a lender, yet on Saturdays and Sundays he strums for a rock outfit.",
             "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "My brother works in a bank.", "omission", 2, 5),
            ("wrong-sense", "My brother works on a bench, but at weekends he touches the guitar in a rock group.",
             "wrong-sense", 2, 3),
            ("untranslated", "My hermano works in a banco, but on the fines de semana he plays guitarra in a grupo de rock.",
             "untranslated", 2, 2),
            ("pleonastic", "My sister works in a bank, but at weekends she plays guitar in a rock band.", "entity-changed", 3, 5),
        ],
        syn=["sibling", "employed", "lender", "Saturdays", "Sundays", "strums", "outfit"],
    ),
    dict(
        doc="vida-diaria",
        src="No olvides regar las plantas mientras estoy de vacaciones.",
        refs=[
            "Don't forget to water the plants while I'm on holiday.",
            "Remember to water the plants while I'm away on vacation.",
            "Do not forget to water the plants while I am on holiday.",
            "Make sure you water the plants while I'm on vacation.",
            "Don't forget the plants need watering while I'm away.",
            "Please remember to water the plants while I'm off on holiday.",
        ],
        out=[
            ("near-human", "Don't forget to water the plants while I'm on vacation.", "ok", 5, 5),
            ("literal", "Not forget to irrigate the plants while I am of vacations.", "literal-order;calque", 4, 2),
            ("synonyms", "Be sure to give the greenery a drink during my time off.", "synonym-absent-from-refs", 5, 4),
            ("dropped-content", "Forget to water the plants while I'm on holiday.", "negation-dropped", 1, 4),
            ("wrong-sense", "Don't forget to water the floors while I'm on holiday.", "wrong-sense", 2, 5),
            ("untranslated", "Don't forget to regar the plantas while I'm de vacaciones.", "untranslated", 2, 2),
            ("pleonastic", "Don't forget to water the plants while I'm not on holiday.", "negation-inserted", 2, 5),
        ],
        syn=["greenery", "drink", "during", "time"],
    ),
    dict(
        doc="vida-diaria",
        src=("Aunque el médico le había recomendado descansar, Lucía siguió trabajando hasta tarde toda la "
             "semana y el viernes acabó con fiebre."),
        refs=[
            ("Although the doctor had advised her to rest, Lucía kept working late all week and on Friday she ended "
             "up with a fever."),
            ("Even though her doctor had told her to rest, Lucía went on working late the whole week, and by Friday "
             "she had a temperature."),
            ("The doctor had recommended rest, but Lucía carried on working late all week and ended up running a "
             "fever on Friday."),
            ("Lucía continued to work until late every day that week, although the doctor had recommended that she "
             "rest, and on Friday she came down with a fever."),
            ("Despite her doctor's advice to rest, Lucía kept on working late throughout the week, and on Friday she "
             "ended up feverish."),
            "Lucía ignored the doctor's recommendation to take it easy and worked late all week; by Friday she had a fever.",
        ],
        out=[
            ("near-human", ("Although the doctor had recommended that she rest, Lucía kept working late all week and on "
                            "Friday she ended up with a fever."), "ok", 5, 5),
            ("literal", ("Although the doctor her had recommended to rest, Lucía followed working until late all the "
                         "week and the Friday finished with fever."), "literal-order;calque", 3, 1),
            ("synonyms", ("Notwithstanding her physician's suggestion that she take a break, Lucía stayed at her desk "
                          "into the night every weekday and developed a high temperature by Friday."),
             "synonym-absent-from-refs", 4, 5),
            ("dropped-content", "Although the doctor had advised her to rest, Lucía kept working late all week.", "omission", 3, 5),
            ("wrong-sense", ("Although the doctor had advised her to rest, Lucía kept working until the afternoon all "
                             "week and on Friday she ended up with a fever."), "wrong-sense", 3, 5),
            ("untranslated", ("Although the médico had advised her to descansar, Lucía kept working hasta tarde all week "
                              "and on viernes ended up with fiebre."), "untranslated", 2, 2),
            ("pleonastic", ("Although the doctor had advised her to rest, Marta kept working late all week and on "
                            "Friday she ended up with a fever."), "name-swapped", 3, 5),
        ],
        syn=["notwithstanding", "physician's", "suggestion", "break", "desk", "weekday", "developed"],
    ),
    dict(
        doc="vida-diaria",
        src="¿Cuánto cuesta enviar este paquete a Argentina por correo urgente?",
        refs=[
            "How much does it cost to send this parcel to Argentina by express mail?",
            "What does it cost to send this package to Argentina by express post?",
            "How much would it be to send this parcel to Argentina by priority mail?",
            "How much is it to send this package to Argentina express?",
            "What is the price of sending this parcel to Argentina by urgent mail?",
            "How much will it cost me to post this parcel to Argentina express?",
        ],
        ref_q={"ref-E": (5, 4)},
        out=[
            ("near-human", "How much does it cost to send this package to Argentina by express mail?", "ok", 5, 5),
            ("literal", "How much costs to send this package to Argentina by mail urgent?", "literal-order", 5, 2),
            ("synonyms", "What's the charge for dispatching this box to Argentina with fast-track delivery?",
             "synonym-absent-from-refs", 4, 4),
            ("dropped-content", "How much does it cost to send this parcel to Argentina?", "omission", 3, 5),
            ("wrong-sense", "How much does it cost to send this parcel to Argentina by urgent post office?", "wrong-sense", 3, 3),
            ("untranslated", "How much does it cost to send this paquete to Argentina por correo urgente?", "untranslated", 2, 2),
            ("pleonastic", "How much does it cost to send this parcel to Chile by express mail?", "name-swapped", 3, 5),
        ],
        syn=["charge", "dispatching", "box", "fast-track", "delivery"],
    ),
]
