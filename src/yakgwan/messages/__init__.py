"""One catalogue of every string a user reads, in Korean and English (see ``catalogue``)."""

from yakgwan.messages.catalogue import DEFAULT_LANG, LANGS, Catalogue, Message, catalogue, joined, locale_language, msg, negotiate, render_said, said, text

__all__ = ["DEFAULT_LANG", "LANGS", "Catalogue", "Message", "catalogue", "joined", "locale_language", "msg", "negotiate", "render_said", "said", "text"]
