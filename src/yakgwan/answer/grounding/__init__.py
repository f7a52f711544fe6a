"""What grounds an answer in the shown sentences, whatever the language rules say: the numbers a
claim states must be in the sentences it cites (:mod:`.numbers`), what the cited sentences and
their labels say (:mod:`.cited`), and quotes that are verbatim spans of their chunks
(:mod:`.quotes`)."""
