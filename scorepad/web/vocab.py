"""The games' vocabulary in the player's language: terms and the engines' sentences.

The rules core is English and knows nothing of languages; it names categories, items,
colours and square states, and explains warnings, tie-breaks and refusals in English
sentences. The web layer translates them here:

* :func:`term` translates one known word or label ("A. Houses with sheep", "sheep",
  "herd", "blue" as an area or as a token, "cleared burrow", ...). Unknown text (a player's
  name, a Seasons card's printed name) is left as it is.
* :func:`sentence` translates an engine sentence by matching it against the English
  templates of :data:`SENTENCES`, each written once with ``%(name)s`` placeholders: the
  template is turned into a pattern, the pieces are translated by their kind (see
  :func:`_piece`) and put into the translated template. A sentence is translated whole or
  not at all: when any piece is not understood the English original is shown, never a
  mix of two languages.

Every English text here is marked for extraction (``N_``/``NP_``), so the catalogue test
notices a term or a template that has no translation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from flask import has_request_context
from flask_babel import (  # type: ignore[import-untyped]
    get_locale,
    get_translations,
    gettext,
    ngettext,
    pgettext,
)

from scorepad import games, share
from scorepad.scoring import Result


def N_(text: str) -> str:
    """Mark ``text`` for extraction; it is translated where it is shown."""
    return text


def NP_(context: str, text: str) -> tuple[str, str]:
    """Mark ``text`` with a context (``blue`` as an area is not ``blue`` as a token)."""
    return context, text


# --- terms ---------------------------------------------------------------------------------------

TITLES = (
    N_("Sunflower Valley"),
    N_("Harmonies"),
    N_("Spring Meadow"),
    N_("Seasons"),
)

CATEGORIES = (
    N_("A. Houses with sheep"),
    N_("B. Houses without sheep"),
    N_("C. Sunflower majority"),
    N_("D. Mountains"),
    N_("E. Residents"),
    N_("F. Valley Express"),
    N_("Trees"),
    N_("Mountains"),
    N_("Fields"),
    N_("Buildings"),
    N_("Water"),
    N_("Animal cards"),
    N_("Spirit"),
    N_("Full rows"),
    N_("First incomplete row"),
    N_("Values written down"),
    N_("Cleared burrows"),
    N_("Picnic"),
    N_("Crystals"),
    N_("Card prestige"),
    N_("Cards in play"),
    N_("End-of-game cards"),
    N_("Bonus track"),
    N_("Cards in hand"),
    N_("Ability token"),
)

#: The bundled example layouts' labels in a new table's layout select: their names (below)
#: up to the explanation, which overflowed the select on a phone.
EXAMPLE_SHEET = N_("Example sheet")
EXAMPLE_BOARD = N_("Example layout")

WORDS = (
    # Sunflower Valley: drawings, pairings, tie-breaks, the variant (the recap's line)
    N_("Variant"),
    N_("Kids"),
    N_("house"),
    N_("sheep"),
    N_("sunflower"),
    N_("super-sunflower"),
    N_("rail"),
    N_("mountain"),
    N_("mountains"),
    N_("empty"),
    N_("adjacent"),
    N_("herd"),
    N_("settlement"),
    N_("railway"),
    N_("houses"),
    N_("sunflowers"),
    N_("residents"),
    N_("still tied"),
    # Harmonies
    N_("an empty hex"),
    # Spring Meadow: square states, counting, tie-break
    N_("snow"),
    N_("covered"),
    N_("open burrow"),
    N_("cleared burrow"),
    N_("burrow with a marmot"),
    N_("rows from the bottom"),
    N_("columns from the left"),
    N_("vertical"),
    N_("horizontal"),
    N_("Pins"),
    N_("Pins so far"),
    N_("Total"),
    N_("Rank (by pins)"),
    # Seasons
    N_("cards in play"),
    N_("Replica"),
    N_("Magic item"),
    N_("Familiar"),
    N_("Base"),
    N_("Enchanted Kingdom"),
    N_("Path of Destiny"),
    N_("Promo"),
    # the bundled example layouts' names (a table keeps the name it was made with)
    EXAMPLE_SHEET,
    EXAMPLE_BOARD,
    N_("Example sheet (not a printed letter)"),
    N_("Example layout (invented; not one of the 8 printed board sides)"),
)

#: What a photo shows, as the vision layer names it when it refuses another game's sheet or
#: board (``scorepad.vision.recognize.SHOWS``).
BOARDS = (
    N_("a Sunflower Valley sheet"),
    N_("a Harmonies board"),
    N_("a Spring Meadow board"),
)

#: Harmonies animal cards by the first name the catalogue gives them (:func:`card_name`).
ANIMALS = (
    N_("alligator"),
    N_("ray"),
    N_("fish"),
    N_("otter"),
    N_("frog"),
    N_("duck"),
    N_("flamingo"),
    N_("lizard"),
    N_("shrew"),
    N_("peacock"),
    N_("squirrel"),
    N_("hedgehog"),
    N_("bee"),
    N_("bear"),
    N_("rabbit"),
    N_("macaw"),
    N_("boar"),
    N_("koala"),
    N_("wolf"),
    N_("kingfisher"),
    N_("penguin"),
    N_("bat"),
    N_("fennec fox"),
    N_("macaque"),
    N_("falcon"),
    N_("meerkat"),
    N_("crow"),
    N_("alpaca"),
    N_("arctic fox"),
    N_("raccoon"),
    N_("ladybug"),
    N_("panther"),
)

#: Harmonies spirit cards as the catalogue words their effect.
SPIRITS = (
    N_("10 per field group (yellow) of 3 or more hexes, else 2 per group"),
    N_("5 per field group (yellow), single hexes included"),
    N_("4 per tree of height 2 or 3"),
    N_("3 per tree of height 1 or 2, 1 per tree of height 3"),
    N_("4 per connected group of buildings"),
    N_("6 per group of 2 or more connected buildings"),
    N_("4 per mountain of height 2 or 3, alone or not"),
    N_("3 per mountain of height 1 or 2, 1 per mountain of height 3, alone or not"),
    N_("7 per water group (blue) of 2 or more hexes"),
    N_("2 per water hex (blue)"),
)

#: Colours: Sunflower Valley areas are feminine in Russian and Ukrainian ("область"),
#: Harmonies tokens masculine ("жетон"), so each has its own context.
COLOURS = (
    NP_("area", "blue"),
    NP_("area", "green"),
    NP_("area", "orange"),
    NP_("area", "red"),
    NP_("area", "purple"),
    NP_("area", "yellow"),
    NP_("area", "pink"),
    NP_("area", "brown"),
    NP_("area", "grey"),
    NP_("area", "gray"),
    NP_("token", "blue"),
    NP_("token", "grey"),
    NP_("token", "brown"),
    NP_("token", "green"),
    NP_("token", "yellow"),
    NP_("token", "red"),
)

_PLAIN = frozenset((*TITLES, *CATEGORIES, *WORDS, *BOARDS, *ANIMALS, *SPIRITS))
_WITH_CONTEXT = frozenset(COLOURS)


def _english() -> bool:
    return not has_request_context() or str(get_locale() or "en") == "en"


def term(text: str | None, context: str | None = None) -> str:
    """One known word or label in the player's language; anything else unchanged.

    ``context`` is ``"area"`` or ``"token"`` for colours; plain terms are found without it.
    """
    if not text:
        return text or ""
    if _english():
        return text
    if context and (context, text) in _WITH_CONTEXT:
        return str(pgettext(context, text))
    if text in _PLAIN:
        return str(gettext(text))
    return text


@dataclass(frozen=True)
class Words:
    """The player's language looked up once, for a board that labels every one of its cells.

    ``gettext`` and ``term`` behave as Flask-Babel's ``gettext`` and :func:`term`, without
    finding the request's translations again for each of a board's 150 squares.
    """

    english: bool
    translations: Any

    def gettext(self, text: str, **variables: Any) -> str:
        found = text if self.english else str(self.translations.ugettext(text))
        return found % variables if variables else found

    def ngettext(self, singular: str, plural: str, num: int, **variables: Any) -> str:
        """The form for ``num`` (its size: -2 takes the form of 2), which it fills in."""
        if self.english:
            found = singular if abs(num) == 1 else plural
        else:
            found = str(self.translations.ungettext(singular, plural, abs(num)))
        return found % {"num": num, **variables}

    def term(self, text: str | None, context: str | None = None) -> str:
        if not text or self.english:
            return text or ""
        if context and (context, text) in _WITH_CONTEXT:
            return str(self.translations.upgettext(context, text))
        return str(self.translations.ugettext(text)) if text in _PLAIN else text


def words() -> Words:
    """The current language's :class:`Words`."""
    english = _english()
    return Words(english, None if english else get_translations())


#: What the rules' card list writes after two animal names ("arctic fox (*)", "panther (*)"),
#: explained nowhere in the digest or the rulebook. The digest warns that card names differ
#: between editions and that a card is known by its number and point track, which every
#: screen shows beside the name: the mark is left out rather than shown unexplained.
NAME_MARK = " (*)"


def card_name(name: str) -> str:
    """A Harmonies animal card's name as shown (in English, before :func:`term`)."""
    return name.removesuffix(NAME_MARK)


def table_title(title: str) -> str:
    """A stored table title ("Harmonies: Anna, Boris") with the game's name translated."""
    for known in TITLES:
        if title == known or title.startswith(known + ": "):
            return term(known) + title[len(known) :]
    return title


# --- sentences -----------------------------------------------------------------------------------

#: The engines' sentences (and the board kits' sentences around them), one template each.
#: Placeholder kinds, by name without trailing digits: ``why`` a nested sentence or term,
#: ``steps`` sentences joined by "; ", ``terms`` terms joined by ", ", ``token`` a Harmonies
#: colour, ``stack`` colours joined by "-", ``area`` a Sunflower Valley area, ``choices``
#: a field's allowed values ('a' or 'b': the "or" translated); any other name (players,
#: numbers, hexes, codes, a board file's keys) is kept as it is.
SENTENCES = (
    # scorepad.scoring: ties
    N_("tied on %(n)s points: %(steps)s"),
    N_("tied on %(n)s point: %(steps)s"),
    N_("%(a)s ahead of %(b)s on %(why)s (%(va)s vs %(vb)s)"),
    N_("%(a)s and %(b)s still tied after %(terms)s: shared"),
    N_("%(a)s and %(b)s share the place (no tie-break)"),
    N_("seats counter-clockwise from active player %(name)s"),  # Spring Meadow's tie-break
    # prefixes naming where a problem is
    N_("player %(name)s, cell %(cell)s: %(why)s"),
    N_("player %(name)s, square %(square)s: %(why)s"),
    N_("player %(name)s: %(why)s"),
    N_("phase %(n)s, player %(name)s, square %(square)s: %(why)s"),
    N_("phase %(n)s: %(why)s"),
    N_("layout %(name)s: %(why)s"),
    N_("cell %(cell)s: %(why)s"),
    N_("area %(area)s"),
    # Harmonies
    N_("%(token)s cannot go on %(stack)s: %(why)s"),
    N_("nothing may lie on %(stack)s"),
    N_("only %(tokens)s may lie on an empty hex"),
    N_("only %(tokens)s may lie on %(stack)s"),
    N_(
        "%(stack)s is not a legal stack (bottom → top): %(token)s cannot lie on %(stack2)s, %(why)s"
    ),
    N_("a cube lies on the habitat it was placed on, and this hex is empty"),
    N_("card %(card)s is in front of %(who)s; the box has one of each card"),
    N_(
        "%(n)s animal cards still hold cubes, but a player has %(m)s slots for them: check the "
        "cubes on each card"
    ),
    N_("%(n)s empty hex, scored as it stands"),
    N_("%(n)s empty hexes, scored as they stand"),
    N_("the boards hold %(n)s %(token)s tokens, but the box has only %(m)s"),
    N_("player %(name)s, animal card %(card)s (track %(track)s): %(why)s"),
    N_("player %(name)s, animal cards %(cards)s: %(why)s"),
    N_("no hex with a cube matches"),  # the counted ones: PLURAL_SENTENCES
    N_("%(cubes)s cubes claimed, but the card holds only %(n)s (track %(track)s)"),
    N_("Suns (solo): %(n)s"),
    # Sunflower Valley
    N_(
        "%(name)s: the residents tally on the sheet says %(n)s, the drawing gives %(m)s "
        "(2 per house + 1 per super sunflower)"
    ),
    N_(
        "%(name)s: %(n)s empty hex; the game ends when no sheet has an empty hex, so this "
        "sheet is scored as it stands"
    ),
    N_(
        "%(name)s: %(n)s empty hexes; the game ends when no sheet has an empty hex, so this "
        "sheet is scored as it stands"
    ),
    N_("%(name)s: no house on the sheet; every sheet starts with one"),
    N_(
        "%(name)s's sheet layout differs from %(name2)s's (%(terms)s); all players should use "
        "sheets with the same letter"
    ),
    N_(
        "the sheet layout has %(why)s and %(why2)s; printed sheets have %(k)s areas of "
        "%(size)s hexes and %(k2)s mountains"
    ),
    N_("no colour areas"),  # the sheet layout has ... (the counted ones: PLURAL_SENTENCES)
    N_("no mountains"),
    N_("the sheet has no cells; list every hex of the sheet"),
    N_("%(n)s hexes listed; a printed sheet has 30, and at most %(m)s are read"),
    N_(
        "the sheet's hexes lie %(n)s hexes apart; a printed sheet spans at most %(m)s: a "
        "coordinate is mistyped"
    ),
    N_("a layout has nothing drawn on it"),
    N_("%(n)s layouts; at most %(m)s"),
    # Spring Meadow
    N_(
        "more burrows covered by tiles (%(n)s) than marmots on the board (%(m)s); covering a "
        "burrow needs a marmot on a cleared burrow"
    ),
    N_("no active player recorded, so %(names)s share the win and each takes a pin"),
    N_("the game ended after phase %(m)s (first to 2 pins)"),
    N_(
        "%(why)s %(code)s in phase %(m)s cannot become %(why2)s %(code2)s: tiles never move "
        "and marmots never leave"
    ),
    N_("%(why)s %(code)s where the layout has no burrow"),
    N_(
        "the layout has a burrow here, so it is open 'o', cleared 'c', with a marmot 'm' or "
        "covered '#', never snow '.'"
    ),
    N_("%(n)s burrow squares (o, c, m); a board side has only %(m)s burrows"),
    N_("the players or their seats differ from phase 1"),
    N_("game file: a list of Spring Meadow board files, the board last"),
    N_("game file, entry %(n)s: not a Spring Meadow board file"),
    # ... (the counted pieces: PLURAL_SENTENCES)
    N_("%(why)s but %(why2)s; one value is written per completed row"),
    N_("%(why)s but %(why2)s; one value is written per completed column"),
    N_(
        "solo value #%(i)s (%(a)s) is more than #%(j)s (%(b)s); the signpost's values only go "
        "down as the game goes on"
    ),
    # Seasons: end-of-game effects, warnings, refusals (the counted ones: PLURAL_SENTENCES)
    N_("%(n)s energy in reserve × 3"),
    N_("familiars in play: %(cards)s"),
    N_("only magic items in play"),
    N_("%(n)s energy on the Jewel (3 needed)"),
    N_("3 of the %(n)s energy on the two Jewels"),
    N_("%(n)s of the %(m)s energy left for this Jewel (3 needed)"),
    N_("Replicas: %(n)s × 7"),
    N_("ability token 5: +3 per card in hand instead of −5"),
    N_("−5 per card in hand"),
    N_("Seasons is for 2 to 4 players; scored for one player alone"),
    N_(
        "%(n)s counted as Replicas but no Eolis's Replicator in play; check that the "
        "Replicator left play after making them"
    ),
    N_(
        "two Jewels of the Ancients share %(n)s energy in the file; each full 3 was counted "
        "on one Jewel"
    ),
    N_("%(why)s; Io's Minion: its holder gains no crystals"),
    N_("card %(card)s (%(cardname)s): %(n)s copies in play (%(who)s); the box has %(m)s"),
    N_(
        "player %(name)s, 'jewel_energy': %(n)s energy on the Jewel of the Ancients, but the "
        "Jewel is not in play"
    ),
    # scorepad.vision: why a photo is refused (the web layer wraps these in "The photo
    # could not be read: ..."). The specific "damaged" reason comes before the general one.
    N_("the photo is too large (%(n)s MB; at most %(m)s MB)"),
    N_("the photo is too large (over %(n)s MB)"),
    N_("the file is empty or is not an image"),
    N_("the file is not a JPEG, PNG or WebP photo"),
    N_(
        "the photo is in the HEIC format, which this server does not read: send it as a JPEG "
        "(on an iPhone: Settings, Camera, Formats, Most Compatible)"
    ),
    N_("the photo has too many pixels (at most %(n)s MP)"),
    N_("the photo has too many pixels (%(w)sx%(h)s; at most %(n)s MP)"),
    N_(
        "the photo is too small (%(w)sx%(h)s; each side needs at least %(n)s pixels); take it "
        "closer"
    ),
    N_("the image is damaged or truncated (its lower part is missing)"),
    N_("the image is damaged or truncated (%(detail)s)"),
    N_("no sheet found in the photo: photograph the whole sheet, flat, on a darker table"),
    N_("no sheet found in the photo: the printed header is not visible"),
    N_("no hex grid found on the sheet"),
    N_("no %(game)s board found in the photo: photograph the whole board, on a darker table"),
    N_(
        "no Harmonies board found in the photo: what looks like a board shows no tokens on "
        "its hexes (photograph a Harmonies board with its tokens)"
    ),
    N_(
        "no Spring Meadow board found in the photo: what looks like a board has no arrow in "
        "its title band (photograph a Spring Meadow mountain board)"
    ),
    N_(
        "the board in the photo is side %(other)s, but this table plays side %(side)s: "
        "photograph side %(side2)s or start a table for side %(other2)s"
    ),
    N_("unknown board side %(side)s; Harmonies boards have sides A and B"),
    N_("a Harmonies board has no layout to read: its sides A and B are fixed"),
    N_("recognising %(name)s photos is not supported (only %(names)s)"),
    N_(
        "the photo shows %(board)s, not %(board2)s: photograph %(board3)s, or score it at a "
        "%(game)s table"
    ),
    # scorepad.boardfile and the games' parsers: what is wrong in a board file
    N_("player %(name)s, row %(n)s: %(why)s"),
    N_("'options', layout %(name)s, row %(n)s: %(why)s"),
    N_("'options', layout %(name)s, square %(square)s: %(why)s"),
    N_("'options', layout %(name)s: %(why)s"),
    N_("options, %(key)s: %(why)s"),
    N_("players: %(why)s"),
    N_("board file: %(why)s"),
    N_("layout: %(why)s"),
    N_("the layout has no hexes yet: paint every hex of the sheet"),
    N_("%(key)s: %(why)s"),
    N_("missing required key %(key)s"),
    N_("missing item %(n)s"),
    N_("unknown key %(key)s"),
    N_("key %(key)s appears twice in one object"),
    N_("missing 'game' (one of the supported game names)"),
    N_("'game' is a game's name in quotes (a text), not a number"),
    N_("'game' is a game's name in quotes (a text)"),
    N_("board file is too large (over %(n)s kB)"),
    N_("board file is not UTF-8 text (byte %(n)s)"),
    N_("malformed JSON at line %(n)s column %(m)s: %(detail)s"),
    N_("malformed JSON: nested too deeply"),
    N_("malformed JSON: %(detail)s"),
    N_("a number in the board file has %(n)s digits (at most %(m)s)"),
    N_("a string in the board file holds an invalid character (%(detail)s)"),
    N_("a board file is a JSON object with 'game', 'options' and 'players'"),
    N_("this is not a board file (a board file is the JSON text Scorepad exports)"),
    N_("board file is empty"),
    N_("unknown game %(name)s; supported: %(names)s"),
    N_("the name is empty"),
    N_("two players have this name; names must be unique"),
    # pydantic's lengths ("at least 1 item", "at most 80 characters"): PLURAL_SENTENCES
    N_("input should be a valid integer"),
    N_("input should be a valid string"),
    N_("input should be a valid list"),
    N_("input should be a valid tuple"),
    N_("input should be a valid dictionary"),
    N_("input should be a valid boolean"),
    N_("input should be greater than or equal to %(n)s"),
    N_("%(n)s is negative"),
    N_("%(n)s settlements cannot score %(m)s"),
    N_("%(key)s is not a number of settlements (2 or more)"),
    N_("%(key)s and %(key2)s are both %(n)s settlements"),
    N_("the table is empty; leave it out to use n → n²"),
    N_("rail side %(n)s is not a direction index 0..5"),
    N_(
        "rail sides %(n)s and %(m)s are %(why)s: a track joins opposite sides (straight) or two "
        "sides with one side between them (curve)"
    ),
    N_("the same side"),
    N_("neighbouring sides"),
    N_("a rail needs 'sides': the two sides (0..5) its track joins"),
    N_("a hex that is not a mountain needs its printed colour 'area'"),
    N_("%(key)s belongs to a rail, not to an empty hex"),
    N_("a table needs at least one player"),
    N_("%(n)s players; %(game)s is for %(lo)s to %(hi)s"),
    N_("%(n)s players; %(game)s is for %(lo)s to %(hi)s (one player is scored alone)"),
    N_("%(game)s is played by %(lo)s to %(hi)s players, not %(n)s"),
    N_("hexes %(hexes)s are not on board side %(side)s (%(n)s hexes in columns of %(columns)s)"),
    N_("board side %(side)s is missing hexes %(hexes)s"),
    N_("%(n)s is not an animal card (animal cards are 1 to 32)"),
    N_("%(n)s is not a spirit card (spirit cards are 33 to 42)"),
    N_("%(n)s is not a Seasons card id"),
    N_("%(n)s; special-ability tokens are 1 to 18"),
    N_("%(n)s; the bonus track allows 0 to 3 bonuses"),
    N_(
        "%(n)s; this energy reserve holds at most %(m)s tokens (7, 10 with a Bespelled "
        "Grimoire, 1 less for each Mesodae's Lantern or Statue of Eolis in play)"
    ),
    N_("%(key)s is not one of the players"),
    N_("%(code)s is not a square code (%(codes)s)"),
    # Spring Meadow's grid shapes: PLURAL_SENTENCES
    N_("layout %(name)s is not in 'options', 'layouts'"),
    # the allowed values of a field ('A' or 'B'...): after every other "input should be"
    N_("input should be %(choices)s"),
    N_("or"),
    N_("and"),
)


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks an engine sentence said in two forms by its count ``%(n)s`` ("1 card", "2
    cards") for extraction (``tools/i18n.py``: a plural message); translated with
    ``ngettext``, which gives Russian and Ukrainian their three forms."""
    return singular, plural


#: The engines' sentences whose wording follows a count, always ``%(n)s``: each form is
#: read as :data:`SENTENCES` are, and translated in the form for that count.
PLURAL_SENTENCES = (
    # Harmonies: warnings
    Nn_(
        "%(n)s cube on the board, but the cards claim %(m)s (animal cubes plus a placed spirit)",
        "%(n)s cubes on the board, but the cards claim %(m)s (animal cubes plus a placed spirit)",
    ),
    Nn_(
        "%(n)s token on the board, but every turn places %(m)s: check the stacks' heights",
        "%(n)s tokens on the board, but every turn places %(m)s: check the stacks' heights",
    ),
    Nn_(
        "%(n)s cube claimed, but %(why)s its pattern: %(hexes)s; %(why2)s",
        "%(n)s cubes claimed, but %(why)s its pattern: %(hexes)s; %(why2)s",
    ),
    Nn_(
        "%(n)s cube claimed, but %(why)s its pattern; %(why2)s",
        "%(n)s cubes claimed, but %(why)s its pattern; %(why2)s",
    ),
    Nn_(
        "%(n)s cube claimed, but %(why)s its pattern: %(hexes)s",
        "%(n)s cubes claimed, but %(why)s its pattern: %(hexes)s",
    ),
    Nn_(
        "%(n)s cube claimed, but %(why)s its pattern",
        "%(n)s cubes claimed, but %(why)s its pattern",
    ),
    Nn_(
        "%(n)s cube claimed between them, but %(why)s their patterns: %(hexes)s",
        "%(n)s cubes claimed between them, but %(why)s their patterns: %(hexes)s",
    ),
    Nn_(
        "%(n)s cube claimed between them, but %(why)s their patterns",
        "%(n)s cubes claimed between them, but %(why)s their patterns",
    ),
    Nn_("only %(n)s hex with a cube matches", "only %(n)s hexes with a cube match"),
    Nn_(
        "%(n)s hex without a cube matches it too",
        "%(n)s hexes without a cube match it too",
    ),
    # Sunflower Valley: the sheet layout has ...
    Nn_("%(n)s area (size %(sizes)s)", "%(n)s areas (sizes %(sizes)s)"),
    Nn_("%(n)s mountain", "%(n)s mountains"),
    # Spring Meadow: layouts and board grids
    Nn_(
        "layout %(name)s has %(n)s burrow; every printed board side has %(m)s",
        "layout %(name)s has %(n)s burrows; every printed board side has %(m)s",
    ),
    Nn_(
        "%(n)s square; a vertical board row has %(m)s",
        "%(n)s squares; a vertical board row has %(m)s",
    ),
    Nn_(
        "%(n)s square; a horizontal board row has %(m)s",
        "%(n)s squares; a horizontal board row has %(m)s",
    ),
    Nn_(
        "%(n)s row; a vertical board has %(m)s rows of %(k)s squares",
        "%(n)s rows; a vertical board has %(m)s rows of %(k)s squares",
    ),
    Nn_(
        "%(n)s row; a horizontal board has %(m)s rows of %(k)s squares",
        "%(n)s rows; a horizontal board has %(m)s rows of %(k)s squares",
    ),
    # Spring Meadow solo: %(why)s but %(why2)s; one value is written per completed row
    Nn_("%(n)s solo value written down", "%(n)s solo values written down"),
    Nn_("%(n)s row is complete from the bottom", "%(n)s rows are complete from the bottom"),
    Nn_("%(n)s column is complete from the left", "%(n)s columns are complete from the left"),
    # pydantic's length constraints, in its words (it says "1 item", "2 items")
    Nn_(
        "list should have at least %(n)s item after validation, not %(m)s",
        "list should have at least %(n)s items after validation, not %(m)s",
    ),
    Nn_(
        "list should have at most %(n)s item after validation, not %(m)s",
        "list should have at most %(n)s items after validation, not %(m)s",
    ),
    Nn_(
        "tuple should have at least %(n)s item after validation, not %(m)s",
        "tuple should have at least %(n)s items after validation, not %(m)s",
    ),
    Nn_(
        "tuple should have at most %(n)s item after validation, not %(m)s",
        "tuple should have at most %(n)s items after validation, not %(m)s",
    ),
    Nn_(
        "string should have at least %(n)s character",
        "string should have at least %(n)s characters",
    ),
    Nn_(
        "string should have at most %(n)s character", "string should have at most %(n)s characters"
    ),
    # Seasons: Ragfield's Helm
    Nn_("%(n)s card in play and no opponent", "%(n)s cards in play and no opponent"),
    Nn_(
        "%(n)s card in play, not more than %(others)s",
        "%(n)s cards in play, not more than %(others)s",
    ),
    Nn_(
        "%(n)s card in play, more than each opponent (%(others)s)",
        "%(n)s cards in play, more than each opponent (%(others)s)",
    ),
)

#: What Python's JSON parser says is wrong (``%(detail)s`` of "malformed JSON ..."); other
#: details (rarer ones, with positions in them) stay as they are.
JSON_DETAILS = (
    N_("Expecting value"),
    N_("Expecting ',' delimiter"),
    N_("Expecting ':' delimiter"),
    N_("Expecting property name enclosed in double quotes"),
    N_("Extra data"),
    N_("Illegal trailing comma before end of object"),
    N_("Illegal trailing comma before end of array"),
    N_("Invalid control character at"),
    N_("Invalid \\escape"),
    N_("Unterminated string starting at"),
)

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
#: What some placeholders look like, so that "open burrow 'o'" splits at the code.
_SHAPES = {
    "code": r"'.'",
    "n": r"-?\d+",
    "m": r"-?\d+",
    "k": r"-?\d+",
    "va": r"-?\d+",
    # a key of a board file, or the keys and items leading to it ('options', 'layouts')
    "key": r"-?\d+|'[^']*'(?:, (?:'[^']*'|item \d+))*",
    "choices": r"'.*'",
}


def _group(name: str) -> str:
    shape = _SHAPES.get(name.rstrip("0123456789"), ".*?")
    return f"(?P<{name}>{shape})"


def _pattern(template: str) -> re.Pattern[str]:
    """A template as an anchored pattern with one group per placeholder."""
    parts = _PLACEHOLDER.split(template)
    regex = "".join(_group(part) if i % 2 else re.escape(part) for i, part in enumerate(parts))
    return re.compile(regex, re.DOTALL)


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str, str | None], ...]:
    """Each template's pattern, the template and, for a counted one, its plural (each of
    its two forms reads a sentence, and both translate as the pair)."""
    found: list[tuple[re.Pattern[str], str, str | None]] = [
        (_pattern(template), template, None) for template in SENTENCES
    ]
    for singular, plural in PLURAL_SENTENCES:
        found += [(_pattern(singular), singular, plural), (_pattern(plural), singular, plural)]
    return tuple(found)


def _colours(context: str, text: str, sep: str) -> str | None:
    """Colour words joined by ``sep`` (``""``: one colour) in the given context."""
    words = text.split(sep) if sep else [text]
    if not all((context, w) in _WITH_CONTEXT for w in words):
        return None
    return sep.join(str(pgettext(context, w)) for w in words)


def _list(text: str, sep: str) -> str | None:
    pieces = [_phrase(p) for p in text.split(sep)]
    return None if any(p is None for p in pieces) else sep.join(p for p in pieces if p is not None)


#: How a placeholder's text is translated, by kind; ``None`` means "not understood".
_KINDS: dict[str, Callable[[str], str | None]] = {
    "why": lambda v: _phrase(v),
    "steps": lambda v: _list(v, "; "),
    "terms": lambda v: _list(v, ", "),
    "token": lambda v: _colours("token", v, ""),
    "tokens": lambda v: _colours("token", v, ", "),
    "stack": lambda v: term(v) if v == "an empty hex" else _colours("token", v, "-"),
    "area": lambda v: _colours("area", v, ""),
    "game": lambda v: _phrase(v),
    "board": lambda v: _phrase(v),
    "choices": lambda v: v.replace("' or '", f"' {gettext('or')} '"),
    "who": lambda v: v.replace("' and '", f"' {gettext('and')} '"),  # players' names
    "detail": lambda v: str(gettext(v)) if v in JSON_DETAILS else v,
}


def _piece(name: str, value: str) -> str | None:
    kind = _KINDS.get(name.rstrip("0123456789"))
    return value if kind is None else kind(value)


def _phrase(text: str) -> str | None:
    """A term or a sentence in the player's language, or ``None`` when not understood.

    Of the templates that read ``text``, the one keeping the least of it as it is (names,
    numbers) wins, the first listed on a tie: "player %(name)s: %(why)s" also reads "player
    'Anna', animal card 3 (track 3-6-10-16): ..." with the card inside the name, which would
    stay in English, and "%(a)s and %(b)s still tied after ..." reads a whole tie-break list
    with its head inside ``a``."""
    if text in _PLAIN:
        return str(gettext(text))
    best: tuple[int, str] | None = None
    for pattern, template, plural in _patterns():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        kept = sum(len(v) for k, v in match.groupdict().items() if _kept(k))
        if best is not None and kept >= best[0]:
            continue  # no better reading: its pieces need no translating
        pieces = {name: _piece(name, value) for name, value in match.groupdict().items()}
        if any(p is None for p in pieces.values()):
            continue
        if plural is None:
            best = (kept, str(gettext(template, **pieces)))
        else:  # the form for the count (its size: a count is never negative here)
            count = abs(int(match["n"]))
            best = (kept, str(ngettext(template, plural, count, **pieces)))
    return None if best is None else best[1]


def _kept(name: str) -> bool:
    """Whether a placeholder's text is kept as it is (a name, a number), not translated."""
    return name.rstrip("0123456789") not in _KINDS


def sentence(text: str | None) -> str:
    """An engine sentence (warning, tie-break, refusal, reason) in the player's language."""
    if not text or _english():
        return text or ""
    translated = _phrase(text)
    return text if translated is None else translated


def understood(text: str) -> bool:
    """Whether :func:`sentence` translates ``text`` (tests: the engines' sentences are known)."""
    return _phrase(text) is not None


# --- the recap for a chat ------------------------------------------------------------------------


#: The recap's first line by (players alone, winners shared, final): share.headline's words.
_HEADLINES = {
    (True, False, True): N_("%(game)s: %(names)s scores %(points)s points (solo)"),
    (False, True, True): N_("%(game)s: %(names)s share the win with %(points)s points"),
    (False, False, True): N_("%(game)s: %(names)s wins with %(points)s points"),
    (False, True, False): N_("%(game)s: %(names)s share the lead with %(points)s points"),
    (False, False, False): N_("%(game)s: %(names)s leads with %(points)s points"),
}


def joined(names: Sequence[str]) -> str:
    """Names as a sentence joins them in the page's language: "Аня, Борис и Вера"; Ukrainian
    "та", which needs no euphony (і or й by the sounds around it) for any name (the
    English recap's "Anna & Boris" is :func:`scorepad.share.headline`'s)."""
    if len(names) < 2:
        return "".join(names)
    return str(gettext("%(names)s and %(last)s", names=", ".join(names[:-1]), last=names[-1]))


def headline(result: Result, final: bool = True) -> str:
    """:func:`scorepad.share.headline` in the player's language."""
    if _english():
        return share.headline(result, final)
    game = games.get(result.game)
    solo = len(result.players) == 1
    if not (solo or final or result.anything_scored):
        return str(gettext("%(game)s: no points yet", game=term(game.title)))
    key = (solo, len(result.winners) > 1 and not solo, final or solo)
    return str(
        gettext(
            _HEADLINES[key],
            game=term(game.title),
            names=joined(result.winners),
            points=max(p.total for p in result.players),
        )
    )


def tiebreak_line(why: str) -> str:
    """One tie-break as the recap and the card say it: "Tie-break: ..." translated."""
    return str(gettext("Tie-break: %(why)s", why=sentence(why)))


def recap(result: Result, final: bool = True) -> str:
    """:func:`scorepad.share.recap` in the player's language (the same lines, translated)."""
    if _english():
        return share.recap(result, final)
    return share.recap(
        result, final, head=headline(result, final), term=term, tiebreak=tiebreak_line
    )
