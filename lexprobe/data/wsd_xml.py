"""The framework's ``<set>.data.xml`` read as a stream of SAX events, strictly and safely.

Why SAX through ``defusedxml`` with DTDs forbidden: no entity is expanded ("billion laughs") and nothing is
fetched, whatever the file declares; and SAX gives each element's line, so every problem is one ``DataError``
naming ``file:line``. Anything outside ``<corpus>/<text>/<sentence>/(<wf> | <instance>)*`` is refused, never skipped.
"""

from __future__ import annotations

import xml.sax
from dataclasses import dataclass
from pathlib import Path
from xml.sax.handler import ContentHandler

from lexprobe.data.files import require_regular
from lexprobe.errors import DataError

#: the framework's part-of-speech tags -> ours
POS_TAGS = {"NOUN": "N", "VERB": "V", "ADJ": "A", "ADV": "R"}
DATA_SUFFIX = ".data.xml"


@dataclass(frozen=True)
class Target:
    id: str
    doc_id: str
    sent_id: str
    lemma: str
    pos: str
    tokens: tuple[str, ...]
    index: int
    line: int


_CHILDREN = {None: ("corpus",), "corpus": ("text",), "text": ("sentence",), "sentence": ("wf", "instance"),
             "wf": (), "instance": ()}


class FrameworkHandler(ContentHandler):
    """Builds the targets as elements arrive; raises ``DataError`` naming the element's line."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path
        self.stack: list[str] = []
        self.corpus_source = ""
        self.doc_id = self.sent_id = ""
        self.sentence: list[str] = []
        self.pending: list[tuple[int, dict, int]] = []  # (token index, attributes, line) of the sentence
        self.text: list[str] = []
        self.token_attrs: dict | None = None
        self.token_line = 0
        self.targets: list[Target] = []
        self.seen: dict[str, int] = {}
        self.locator = None

    def setDocumentLocator(self, locator):  # noqa: N802 - the SAX name
        self.locator = locator

    def line(self) -> int:
        return self.locator.getLineNumber() if self.locator is not None else 0

    def fail(self, what: str) -> DataError:
        return DataError(f"{self.path}:{self.line()}: {what}; expected the framework's "
                         "<corpus>/<text>/<sentence>/<wf>|<instance> XML")

    def startElement(self, name, attrs):  # noqa: N802
        parent = self.stack[-1] if self.stack else None
        if name not in _CHILDREN[parent]:
            where = f"inside <{parent}>" if parent else "as the root"
            raise self.fail(f"<{name}> {where}")
        self.stack.append(name)
        if name == "corpus":
            self.corpus_source = attrs.get("source", "")
        elif name == "text":
            self.doc_id = self.required(attrs, "id", name)
        elif name == "sentence":
            self.sent_id = self.required(attrs, "id", name)
            self.sentence, self.pending = [], []
        else:
            self.text, self.token_attrs, self.token_line = [], dict(attrs), self.line()

    def required(self, attrs, key: str, element: str) -> str:
        value = (attrs.get(key) or "").strip()
        if not value:
            raise self.fail(f"<{element}> has no {key} attribute")
        return value

    def characters(self, content):
        if self.token_attrs is not None:
            self.text.append(content)
        elif content.strip():
            raise self.fail(f"text {content.strip()[:40]!r} outside a <wf> or <instance>")

    def endElement(self, name):  # noqa: N802
        self.stack.pop()
        if name in ("wf", "instance"):
            token = "".join(self.text).strip()
            if not token:
                raise DataError(f"{self.path}:{self.token_line}: an empty <{name}>; every token needs its text")
            if name == "instance":
                self.pending.append((len(self.sentence), self.token_attrs or {}, self.token_line))
            self.sentence.append(token)
            self.token_attrs = None
        elif name == "sentence":
            tokens = tuple(self.sentence)
            for index, attrs, line in self.pending:
                self.targets.append(self.target(tokens, index, attrs, line))

    def target(self, tokens, index, attrs, line) -> Target:
        def bad(what: str) -> DataError:
            return DataError(f"{self.path}:{line}: {what}; an <instance> needs id, lemma and pos "
                             f"({'/'.join(POS_TAGS)})")

        instance_id = (attrs.get("id") or "").strip()
        lemma = (attrs.get("lemma") or "").strip()
        pos = POS_TAGS.get((attrs.get("pos") or "").strip())
        if not instance_id or any(c.isspace() for c in instance_id):
            raise bad(f"instance id {instance_id!r} is empty or holds whitespace")
        if not lemma:
            raise bad(f"instance {instance_id!r} has no lemma")
        if pos is None:
            raise bad(f"instance {instance_id!r} has pos {attrs.get('pos')!r}")
        if instance_id in self.seen:
            raise bad(f"instance id {instance_id!r} is used twice (first on line {self.seen[instance_id]})")
        self.seen[instance_id] = line
        return Target(instance_id, self.doc_id, self.sent_id, lemma, pos, tokens, index, line)


def stem_of(path: Path) -> str:
    """``senseval2`` of ``senseval2.data.xml`` (a file of another name: its stem)."""
    return path.name[: -len(DATA_SUFFIX)] if path.name.endswith(DATA_SUFFIX) else path.stem


def read_targets(path: Path) -> tuple[list[Target], str]:
    """The targets of a ``.data.xml`` file, in document order, and its corpus ``source`` attribute."""
    from defusedxml import DefusedXmlException
    from defusedxml.sax import parse

    from lexprobe.data.pins import check_unchanged

    fix = "pass the framework's <set>.data.xml"
    require_regular(path, fix)
    if not path.is_file():
        raise DataError(f"{path} is not a file; {fix}")
    check_unchanged(path)
    handler = FrameworkHandler(path)
    try:
        with open(path, "rb") as f:
            parse(f, handler, forbid_dtd=True)
    except xml.sax.SAXParseException as err:
        raise DataError(f"{path}:{err.getLineNumber()}: malformed XML ({err.getMessage()}); {fix}") from None
    except xml.sax.SAXException as err:
        raise DataError(f"{path}:{handler.line()}: unreadable XML ({err.getMessage()}); {fix}") from None
    except DefusedXmlException as err:
        raise DataError(f"{path}:{handler.line()}: {type(err).__name__}: DTDs and entity declarations are "
                        f"refused (nothing is expanded or fetched); {fix}") from None
    except OSError as err:
        raise DataError(f"cannot read {path} ({err.strerror or err}); {fix}") from None
    if not handler.targets:
        raise DataError(f"{path} holds no <instance>; {fix}")
    return handler.targets, handler.corpus_source
