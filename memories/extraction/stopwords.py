"""Words too common to say what a text is about, shared by the write pipeline (which
memories a job touched) and the offline extractor (labels and topics). Neutral ground:
the pipeline imports no module of either extractor for them."""

_TEXT = """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during
    each few for from further get got had has have having he her here hers herself him
    himself his how i if in into is it its itself just let like me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own really same
    she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up us very was we were what when where
    which while who whom why will with would you your yours yourself yourselves i'm i've
    i'd i'll it's that's don't didn't can't won't isn't wasn't aren't we're they're you're
    he's she's there's what's let's yeah yes oh ok okay well much many lot lots thing
    things something anything one ever even still yet though via per going gonna want
    wanted make made take took know knew think thought feel felt see saw say said tell
    told come came go went back way time times day days"""
STOPWORDS = frozenset(_TEXT.split())
