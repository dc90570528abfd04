"""The languages people read nugar in: English (the source), French, Arabic and Hausa.

Every sentence a person reads (the web app, the rules pages, the lessons, ``nugar play`` and
``nugar rules``) is written in English in the code and looked up in a message catalog at the
moment it is shown. Codes, rule-set texts, move texts, position texts and the engine protocol
stay English: they are data, not prose.

- Catalogs are gettext catalogs: ``.po`` sources in ``nugar/locale/<lang>/LC_MESSAGES/
  <domain>.po`` (templates ``nugar/locale/<domain>.pot``, made by ``pybabel extract``), one
  domain per face (:data:`DOMAINS`). The wheel carries them compiled (``.mo``, built by the
  package's build step); a checkout without compiled files compiles the ``.po`` in memory on
  first use, so both read the same messages.
- :class:`Text` is how a lower layer (the rules, the lessons' checks) writes a sentence that
  a face may translate later: it *is* the English string (``str`` subclass, so code and tests
  that compare or print it see English), and it remembers its template and fields, so
  :func:`say` can look the template up and fill in the fields in another language.
- :func:`negotiate` picks a language from a browser's ``Accept-Language`` header and a
  language the person chose (cookie, account); :func:`from_environment` from ``LANGUAGE``,
  ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` as gettext does.

docs/server.md ("Languages") says how to add a language.
"""

from __future__ import annotations

import gettext
import io
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from typing import Any, Final

#: the languages nugar is written in, the source first
LANGUAGES: Final = ("en", "fr", "ar", "ha")
#: the language the code is written in
SOURCE: Final = "en"
#: languages written right to left
RTL: Final = frozenset({"ar"})
#: the catalogs: ``engine`` (rules and lessons layer sentences, :class:`Text`), ``web`` (the
#: server's messages and pages), ``webjs`` (the web app's scripts and static pages, sent to the
#: browser as JSON), ``cli`` (the terminal)
DOMAINS: Final = ("engine", "web", "webjs", "cli")
#: each language's own name, as a language switch lists it
NATIVE_NAMES: Final[Mapping[str, str]] = {"en": "English", "fr": "Français", "ar": "العربية",
                                          "ha": "Hausa"}


class LanguageError(ValueError):
    """A language that nugar is not written in (the message lists those it is)."""


def normalize(tag: str | None) -> str | None:
    """The language of :data:`LANGUAGES` that a tag such as ``fr-NE``, ``ar_SD.UTF-8`` or
    ``FR`` names, or ``None`` when it names none of them (``C``, ``POSIX``, ``de``)."""
    if not tag:
        return None
    base = tag.strip().split(".")[0].split("@")[0].replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else None


def check_language(tag: str) -> str:
    """``tag``'s language (:func:`normalize`), or :class:`LanguageError` saying which
    languages there are."""
    lang = normalize(tag)
    if lang is None:
        raise LanguageError(f"unknown language {tag!r}: nugar is written in "
                            f"{', '.join(LANGUAGES)}")
    return lang


def negotiate(accept_language: str | None, chosen: str | None = None) -> str:
    """The language to answer in: ``chosen`` (a cookie or an account's setting) when it is
    one of :data:`LANGUAGES`, else the first of the header's languages by quality (``q=``)
    that nugar is written in, else English. A malformed header is read as far as it can be,
    never refused."""
    picked = normalize(chosen)
    if picked is not None:
        return picked
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "")[:1000].split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        lang = normalize(tag)
        if lang is not None and quality > 0:
            ranked.append((-quality, i, lang))
    return min(ranked)[2] if ranked else SOURCE


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language of the terminal, read as gettext reads it: the first of ``LANGUAGE``
    (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set; English
    when that names no language of :data:`LANGUAGES`."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            for tag in value.split(":"):
                lang = normalize(tag)
                if lang is not None:
                    return lang
            return SOURCE
    return SOURCE


def direction(lang: str) -> str:
    """``"rtl"`` for a language written right to left, else ``"ltr"`` (an HTML ``dir``)."""
    return "rtl" if lang in RTL else "ltr"


_lock = threading.Lock()
_cache: dict[tuple[str, str], gettext.NullTranslations] = {}


def _load(lang: str, domain: str) -> gettext.NullTranslations:
    folder = resources.files("nugar").joinpath("locale", lang, "LC_MESSAGES")
    compiled = folder.joinpath(f"{domain}.mo")
    if compiled.is_file():
        return gettext.GNUTranslations(io.BytesIO(compiled.read_bytes()))
    source = folder.joinpath(f"{domain}.po")
    if source.is_file():
        return gettext.GNUTranslations(io.BytesIO(compile_po(source.read_bytes(), lang)))
    return gettext.NullTranslations()


def compile_po(po: bytes, lang: str) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file's text (Babel's compiler; fuzzy entries left out,
    as ``pybabel compile`` leaves them). The build step and :func:`translations` both use
    it, so a checkout and a wheel read the same messages."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    catalog = read_po(io.BytesIO(po), locale=lang)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def translations(lang: str, domain: str) -> gettext.NullTranslations:
    """The catalog of ``domain`` in ``lang`` (English: no catalog, every message is its own
    translation), loaded once per process."""
    if domain not in DOMAINS:
        raise LanguageError(f"unknown message domain {domain!r}: there are {', '.join(DOMAINS)}")
    lang = check_language(lang)
    if lang == SOURCE:
        return gettext.NullTranslations()
    key = (lang, domain)
    with _lock:
        found = _cache.get(key)
        if found is None:
            found = _cache[key] = _load(lang, domain)
        return found


def gettext_for(lang: str, domain: str) -> Callable[[str], str]:
    """A ``_`` function for ``domain`` in ``lang``: ``_("Resign")``."""
    return translations(lang, domain).gettext


class Text(str):
    """An English sentence that can be said again in another language.

    ``Text("{square} is occupied", square="c3")`` is the string ``"c3 is occupied"``; it also
    keeps the template and the fields, so :func:`say` can translate the template in a
    catalog (domain ``engine`` unless another is given) and fill in the same fields. A field
    that is itself a :class:`Text` is translated too. Mark templates with ``Text(...)`` so
    that ``pybabel extract`` (keyword ``Text``) finds them.

    A sentence about a number of things is :meth:`Text.plural`: it carries both English
    forms and the count, and another language picks the form its grammar wants for that
    count (gettext's ``ngettext``: Arabic has six, French says « 0 graine »).
    """

    template: str
    fields: dict[str, Any]
    domain: str
    #: the English plural template of a sentence about ``count`` things (None: no plural)
    plural_template: str | None
    plural_count: int | None

    def __new__(cls, template: str, /, domain: str = "engine", **fields: Any) -> Text:
        return cls._made(template, template, None, None, domain, fields)

    @classmethod
    def plural(cls, singular: str, plural: str, count: int, /, domain: str = "engine",
               **fields: Any) -> Text:
        """``Text.plural("{count} seed", "{count} seeds", n, count=n)``: the sentence in the
        form its count wants, in English (``singular`` for 1) and in every catalog (the
        ``msgid_plural`` entries that ``pybabel extract``, keyword ``plural:1,2``, makes).
        The count is also given among the fields where the sentence shows it."""
        english = singular if count == 1 else plural
        return cls._made(english, singular, plural, count, domain, fields)

    @classmethod
    def _made(cls, english: str, template: str, plural: str | None, count: int | None,
              domain: str, fields: dict[str, Any]) -> Text:
        made = str.__new__(cls, english.format(**fields) if fields else english)
        made.template = template
        made.fields = fields
        made.domain = domain
        made.plural_template = plural
        made.plural_count = count
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.template, self.domain, self.fields, self.plural_template,
                           self.plural_count))

    def in_language(self, lang: str) -> str:
        """This sentence in ``lang`` (English where the catalog has no translation)."""
        if lang == SOURCE:
            return str(self)
        catalog = translations(lang, self.domain)
        # an empty template is gettext's catalog header, never a message
        template: str
        if not self.template:
            template = self.template
        elif self.plural_template is not None and self.plural_count is not None:
            template = catalog.ngettext(self.template, self.plural_template, self.plural_count)
        else:
            template = catalog.gettext(self.template)
        fields = {k: (v.in_language(lang) if isinstance(v, Text) else v)
                  for k, v in self.fields.items()}
        try:
            return template.format(**fields) if fields else template
        except (KeyError, IndexError, ValueError):
            # a translation that names a field the template has not: say it in English
            return str(self)


def _rebuild(template: str, domain: str, fields: dict[str, Any], plural: str | None = None,
             count: int | None = None) -> Text:
    if plural is not None and count is not None:
        return Text.plural(template, plural, count, domain=domain, **fields)
    return Text(template, domain=domain, **fields)


def join(separator: str, parts: Iterable[str]) -> Text:
    """``separator.join(parts)`` that stays translatable: a :class:`Text` whose fields are
    the parts (each said in the reader's language where it is a :class:`Text`) and whose
    template is only the separators, which no catalog holds (so it reads the same in every
    language). For a list of sentences, such as a record's problems one per line."""
    said = list(parts)
    names = [f"part{i}" for i in range(len(said))]
    escaped = separator.replace("{", "{{").replace("}", "}}")
    return Text(escaped.join("{" + name + "}" for name in names),
                **dict(zip(names, said, strict=True)))


def say(message: object, lang: str, domain: str = "engine") -> str:
    """``message`` in ``lang``: a :class:`Text` is translated with its fields; a plain
    string is looked up whole in ``domain`` (English when the catalog lacks it); an
    exception is said by its message (``IllegalMoveError(Text(...))``)."""
    if isinstance(message, BaseException) and len(message.args) == 1:
        message = message.args[0]
    if isinstance(message, Text):
        return message.in_language(lang)
    text = str(message)
    if lang == SOURCE:
        return text
    return translations(lang, domain).gettext(text)
