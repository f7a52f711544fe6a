"""One catalogue of every string a user reads, in Korean and English (see ``catalogue``)."""

from yakgwan.messages.catalogue import DEFAULT_LANG, LANGS, Catalogue, Message, catalogue, locale_language, msg, negotiate, text

__all__ = ["DEFAULT_LANG", "LANGS", "Catalogue", "Message", "catalogue", "locale_language", "msg", "negotiate", "text"]
