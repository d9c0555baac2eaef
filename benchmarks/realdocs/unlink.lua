-- pandoc filter for the groff producer: a link becomes its text (pandoc's ms writer puts link texts in
-- .pdfhref requests that groff -Tps drops, and the PDF would lose words the HTML prints).
function Link(el) return el.content end
