-- pandoc filter: drops the lang attributes of divs and spans, so that a page in French whose blocks repeat
-- lang="fr" does not make pandoc 2.17's LaTeX template load babel's French twice ("\frenchdate already defined").
function Div(el) el.attributes.lang = nil; return el end
function Span(el) el.attributes.lang = nil; return el end
