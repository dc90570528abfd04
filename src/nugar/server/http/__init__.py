"""HTTP: what speaks to the browser.

The routers (``routes_*.py``: pages, JSON API, websocket, accounts, lobby, lessons, analyses,
catalogs), what wraps every request (``middleware.py``, ``crosssite.py``, the move fast lane
``fastlane.py``, the header timeouts of ``http_timeouts.py``), a request's language
(``language.py``) and the pages: the rules pages (``pages.py``) and the static pages in the
reader's language (``static_i18n.py``; the files themselves are ``nugar/server/static/``).
"""
