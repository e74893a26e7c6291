"""One URL, two answers: the whole page for a browser, the swapped fragment for htmx.

htmx marks its requests with ``HX-Request: true``; a history restore
(``HX-History-Restore-Request``) needs the whole page again. Responses that differ by the
header say so with ``Vary: HX-Request`` (added to every HTML response in ``create_app``).
"""

from __future__ import annotations

from typing import Any

from flask import Response, make_response, render_template, request, url_for

from scorepad.web.i18n import current_language


def is_htmx() -> bool:
    return (
        request.headers.get("HX-Request") == "true"
        and request.headers.get("HX-History-Restore-Request") != "true"
    )


def page_or_fragment(page: str, fragment: str, status: int = 200, **context: Any) -> Response:
    """Render ``fragment`` for htmx requests and ``page`` (which includes it) otherwise."""
    html = render_template(fragment if is_htmx() else page, **context)
    resp = make_response(html, status)
    resp.vary.add("HX-Request")
    return resp


def redirect_to(endpoint: str, **values: Any) -> Response:
    """After a successful form post: a 303 for browsers, ``HX-Redirect`` for htmx."""
    url = url_for(endpoint, **values)
    if is_htmx():
        resp = make_response("", 204)
        resp.headers["HX-Redirect"] = url
        return resp
    resp = make_response("", 303)
    resp.headers["Location"] = url
    return resp


def error_page(status: int, title: str, message: str, place: str = "#flash") -> Response:
    """A readable error: a full page, or for htmx a message swapped into the page's banner
    (or into ``place``, an element near what the player just used)."""
    if is_htmx():
        html = render_template("_flash.html", kind="error", title=title, message=message)
        resp = make_response(html, status)
        resp.headers["HX-Retarget"] = place
        resp.headers["HX-Reswap"] = "innerHTML"
    else:
        html = render_template("error.html", title=title, message=message, status=status)
        resp = make_response(html, status)
    resp.vary.add("HX-Request")
    return resp


def version_tag(version: int) -> str:
    """The entity tag of a table version as drawn in the phone's language: after a
    language switch the same version is another answer, not a 304 keeping the old one."""
    return f"v{version}-{current_language()}"


def holds_version(version: int) -> bool:
    """Whether the phone's ``If-None-Match`` names this version (weak tags too: gzip
    proxies weaken them)."""
    return request.if_none_match.contains_weak(version_tag(version))


def versioned(resp: Response, version: int) -> Response:
    """Tag an answer with its table version, revalidated every time and kept by no shared
    cache (a phone's own seat reads "you")."""
    resp.set_etag(version_tag(version))
    resp.headers["Cache-Control"] = "private, no-cache"
    resp.vary.add("Cookie")
    return resp
