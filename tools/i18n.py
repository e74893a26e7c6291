#!/usr/bin/env python3
"""Scorepad's message catalogues: extract, update and compile them with Babel's Python API.

    .venv/bin/python tools/i18n.py extract   # scorepad/web/translations/messages.pot
    .venv/bin/python tools/i18n.py update    # merge the template into each messages.po
    .venv/bin/python tools/i18n.py compile   # messages.po -> messages.mo (committed)
    .venv/bin/python tools/i18n.py check     # what is missing, fuzzy or stale, per language

``extract`` reads ``babel.cfg`` (Python under ``scorepad/web``, Jinja templates) with the
keywords below; ``tests/web/test_web_i18n.py`` runs the same extraction and fails when a
catalogue lacks a string. After editing a ``.po`` file, run ``compile``.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "babel.cfg"
TRANSLATIONS = ROOT / "scorepad" / "web" / "translations"
TEMPLATE = TRANSLATIONS / "messages.pot"
LANGUAGES = ("ru", "uk")
KEYWORDS = {
    **DEFAULT_KEYWORDS,
    "lazy_gettext": None,
    "lazy_ngettext": (1, 2),
    "lazy_pgettext": ((1, "c"), 2),
    "NP_": ((1, "c"), 2),
    "Nn_": (1, 2),  # scorepad.web.vocab: an engine sentence in two forms by its count
}


def extract() -> Catalog:
    """Every translatable string of the sources, as a catalogue (the ``.pot`` template)."""
    with CONFIG.open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, str(CONFIG))
    catalog = Catalog(project="Scorepad", msgid_bugs_address="", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def po_path(lang: str) -> Path:
    return TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang)


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_by_file=False, omit_header=False)
    path.write_bytes(buf.getvalue())


def compiled(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


def cmd_extract() -> None:
    write(extract(), TEMPLATE)
    print(f"wrote {TEMPLATE.relative_to(ROOT)}")


def cmd_update() -> None:
    template = extract()
    write(template, TEMPLATE)
    for lang in LANGUAGES:
        path = po_path(lang)
        if path.exists():
            catalog = read(lang)
        else:
            catalog = Catalog(locale=lang, project="Scorepad", charset="utf-8")
        catalog.update(template, no_fuzzy_matching=True)
        write(catalog, path)
        print(f"updated {path.relative_to(ROOT)}")


def cmd_compile() -> None:
    for lang in LANGUAGES:
        mo = po_path(lang).with_suffix(".mo")
        mo.write_bytes(compiled(read(lang)))
        print(f"compiled {mo.relative_to(ROOT)}")


def problems(lang: str, template: Catalog | None = None) -> list[str]:
    """Strings of the sources that ``lang`` lacks, leaves fuzzy or empty."""
    template = template or extract()
    catalog = read(lang)
    found = []
    for message in template:
        if not message.id:
            continue
        have = catalog.get(message.id, message.context)
        name = f"{lang}: {message.id!r}" + (f" ({message.context})" if message.context else "")
        if have is None:
            found.append(f"{name} is missing")
        elif have.fuzzy:
            found.append(f"{name} is fuzzy")
        elif not all(have.string) if isinstance(have.string, tuple) else not have.string:
            found.append(f"{name} is not translated")
    return found


def cmd_check() -> None:
    template = extract()
    found = [p for lang in LANGUAGES for p in problems(lang, template)]
    print("\n".join(found) or "every string is translated")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    commands = {
        "extract": cmd_extract,
        "update": cmd_update,
        "compile": cmd_compile,
        "check": cmd_check,
    }
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(commands)}")
    commands[sys.argv[1]]()
