"""What a likely secret looks like, in one string of a session: the token formats their
issuers document (AWS, GitHub, GitLab, OpenAI, Anthropic, Google, Slack, Stripe, npm, PyPI),
private key blocks, JSON Web Tokens, passwords in URLs and connection strings, and a
random-looking value assigned to a name ending in KEY, TOKEN, SECRET or PASSWORD.

Every pattern runs on RE2 (google-re2: time linear in the text, whatever it holds, so a
hostile tool output cannot make a scan hang), on the string's UTF-8 bytes. What RE2 cannot
say (lookarounds, a length exactly, a JWT whose parts decode to JSON, how random a value
is) is checked in Python on the short value matched, never on the whole text.

:data:`PREFILTER` is looser than the rest together and runs on a file's raw JSON lines: a
line it does not match holds no string any pattern matches, whatever JSON escapes its strings
were written with (a ``\\u``-escaped ASCII letter makes the line a candidate), so only the
lines it matches are parsed; and on each string of them before the patterns do.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from bisect import bisect_right
from collections import Counter
from typing import NamedTuple

import orjson

__all__ = ["KINDS", "PREFILTER", "Found", "find_in_text", "is_secret_name", "is_value", "assigned_value"]

#: Every kind found, with what it is (``pitui check --help`` lists them; placeholders name them).
KINDS: dict[str, str] = {
    "aws-access-key": "an AWS access key id (AKIA…, ASIA…)",
    "aws-secret-key": "an AWS secret access key (40 characters assigned to aws_secret_access_key or alike)",
    "github-token": "a GitHub token, classic (ghp_, gho_, ghu_, ghs_, ghr_) or fine-grained (github_pat_)",
    "gitlab-token": "a GitLab token (glpat-, gldt-, glrt-, glcbt-, … or a runner registration token)",
    "openai-key": "an OpenAI API key (sk-…T3BlbkFJ…, sk-proj-…)",
    "anthropic-key": "an Anthropic API key (sk-ant-api03-…)",
    "google-api-key": "a Google API key (AIza…)",
    "slack-token": "a Slack token (xoxb-, xoxp-, xapp-, …)",
    "slack-webhook": "a Slack webhook URL (hooks.slack.com/services/…)",
    "stripe-key": "a Stripe secret or restricted key (sk_live_, rk_live_, sk_test_, rk_test_)",
    "npm-token": "an npm access token (npm_…)",
    "pypi-token": "a PyPI API token (pypi-AgE…)",
    "private-key": "a private key block (RSA, EC, DSA, OpenSSH, PGP, PKCS #8)",
    "jwt": "a JSON Web Token (its header and payload decode to JSON objects)",
    "url-password": "a password in a URL (scheme://user:password@host) or a connection string (…;Password=…)",
    "assigned-secret": "a random-looking value assigned to a name ending in KEY, TOKEN, SECRET or PASSWORD "
                       "(.env and shell export lines, JSON, YAML)",
}


class Found(NamedTuple):
    """One secret in a string: its kind and its value (the secret itself, what a
    redaction replaces: for a password in a URL, the password alone)."""

    kind: str
    value: str


# ---------------------------------------------------------------------------- the patterns
# (bytes patterns: RE2 runs on the UTF-8 of a string, encoded once for every pattern)

# Token formats, one group each, the kind of each group in _TOKEN_KINDS. Lengths that must
# be exact are checked in _token_ok (RE2 has no lookahead to say "and no token character
# after it"); a length matched greedily ends where the token's characters end.
_TOKEN_PARTS = (
    ("aws-access-key", rb"\b((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b"),
    ("github-token", rb"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36})\b"),
    ("github-token", rb"\b(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b"),
    ("gitlab-token", rb"\b((?:glpat|gldt|glft|glsoat|glrt|glcbt|glptt|gloas|glimt|glagent)-[A-Za-z0-9_-]{20,})"),
    ("gitlab-token", rb"\b(GR1348941[A-Za-z0-9_-]{20,})"),
    ("anthropic-key", rb"\b(sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{32,})"),
    ("openai-key", rb"\b(sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]*T3BlbkFJ[A-Za-z0-9_-]+)"),
    ("openai-key", rb"\b(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,})"),
    ("google-api-key", rb"\b(AIza[0-9A-Za-z_-]+)"),
    ("slack-token", rb"\b(xox[abposre]-[0-9]+-[0-9A-Za-z-]+)"),
    ("slack-token", rb"\b(xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+)"),
    ("slack-webhook", rb"(https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,})"),
    ("stripe-key", rb"\b((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,})\b"),
    ("npm-token", rb"\b(npm_[A-Za-z0-9]{36})\b"),
    ("pypi-token", rb"\b(pypi-AgE[A-Za-z0-9_-]{50,})"),
    # a block with its END line, else (cut short) its header and the base64 lines after it
    ("private-key", rb"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)"
                    rb"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)"),
    ("private-key", rb"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                    rb"(?:\r?\n[A-Za-z-]+: [^\r\n]*)*(?:\r?\n[A-Za-z0-9+/=]+)*)"),
    ("jwt", rb"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})"),
)
_TOKEN_KINDS = tuple(kind for kind, _ in _TOKEN_PARTS)

# A password in a URL's user part, and one in a connection string (``Password=…;``).
_USERINFO = rb"[^\s:/?#@'\"<>\[\]{}\\]"
_URL_PASSWORD = (rb"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://(" + _USERINFO + rb"{1,256}):(" + _USERINFO + rb"{1,256})@"
                 rb"[A-Za-z0-9\[]")
_CONN_PASSWORD = rb"(?i:;[ \t]*(?:password|pwd)[ \t]*=[ \t]*([^;'\"\s()`$]{3,256}))"

# A name ending in KEY, TOKEN, SECRET or PASSWORD, maybe quoted, then =, :, := or =>, then a
# value, maybe quoted: ``.env`` and ``export`` lines, YAML, JSON and code alike.
_ASSIGNMENT = (rb"\b([A-Za-z0-9_.-]{0,64}(?i:key|token|secret|password|passwd))[\"'\]]{0,2}[ \t]*"
               rb"(?::=|=>|=|:)[ \t]*[\"'`]?([^\s\"'`,;(){}\[\]<>\\]{16,1000})")


def _compile(pattern: bytes):
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20  # (the token alternation's DFA: room to stay fast on long texts)
    return re2.compile(pattern, options)


class _Patterns:
    """The compiled patterns, made on first use (importing this module compiles nothing)."""

    _made = False

    def make(self) -> "_Patterns":
        if not self._made:
            self.tokens = _compile(b"|".join(part for _, part in _TOKEN_PARTS))
            self.url_password = _compile(_URL_PASSWORD)
            self.conn_password = _compile(_CONN_PASSWORD)
            self.assignment = _compile(_ASSIGNMENT)
            self.prefilter = _compile(_PREFILTER)
            self._made = True
        return self


_PATTERNS = _Patterns()

# The raw lines worth parsing, and the strings worth matching: each pattern above needs one
# of these in the string's text, and none of them is broken by the way JSON writes text (a
# tab as "\t", a quote as "\"", any character as a \u escape: an ASCII one makes the line a
# candidate, the last alternative). No alternative spans a line's end, and none needs a word
# boundary (the raw text before a token may be "\n"). One group a family (the numbers
# below), so that a string runs only the passes its hits call for.
_BLANK = rb"(?:[ \t]|\\t)"
_VALUE_CHAR = rb"(?:[^\s\"'`,;(){}\[\]<>\\]|\\u[0-9a-fA-F]{4})"
_NOT_DIGIT = rb"(?:[^\s\"'`,;(){}\[\]<>\\0-9]|\\u[0-9a-fA-F]{4})"
# a value as assigned_value takes one: 16 characters or more, a digit among them (its first
# digit at each place in the first 16, or after them)
_RANDOM_VALUE = (rb"(?:" + b"|".join(_NOT_DIGIT + b"{%d}[0-9]" % length + _VALUE_CHAR + b"{%d}" % (15 - length)
                                     for length in range(16))
                 + rb"|" + _NOT_DIGIT + rb"{16,}[0-9])")
_PREFILTER = (
    rb"(AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|gl(?:pat|dt|ft|soat|rt|cbt|ptt|oas|imt|agent)-|GR1348941"
    rb"|sk-(?:ant|proj|svcacct|admin)-|T3BlbkFJ|AIza|xox[abposre]-|xapp-|hooks\.slack\.com"
    rb"|[sr]k_(?:live|test)_|npm_[A-Za-z0-9]{36}|pypi-AgE|PRIVATE KEY|eyJ[A-Za-z0-9_-]{8,}\.eyJ)"
    rb"|(://[^\s/@]+:[^\s/@]+@|:\\/\\/)"
    rb"|(;" + _BLANK + rb"*(?i:password|pwd)" + _BLANK + rb"*=)"
    rb"|((?i:key|token|secret|password|passwd)(?:\\*[\"'\]]){0,2}" + _BLANK + rb"*(?::=|=>|=|:)" + _BLANK
    + rb"*(?:\\*[\"'`])?" + _RANDOM_VALUE + rb")"
    rb"|(\\u00[2-7][0-9A-Fa-f])"
)
#: the prefilter's groups: the families of patterns, and an escaped ASCII character
_TOKENS, _URL, _CONNECTION, _ASSIGNED, _ESCAPED = 1, 2, 3, 4, 5


def prefilter():
    """The compiled :data:`PREFILTER` (RE2 on bytes)."""
    return _PATTERNS.make().prefilter


PREFILTER = _PREFILTER


# ---------------------------------------------------------------------------- the checks
_TOKEN_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


# (Python's re: one character then the same five times, a fixed width: it cannot backtrack)
_RUN_OF_SIX = re.compile(r"(.)\1{5}", re.DOTALL)


def _placeholder(value: str) -> bool:
    """A documentation example or a stand-in, not a key: ``AKIAIOSFODNN7EXAMPLE``,
    ``T00000000/B00000000/XXXXXXXX``, a run of six of one character."""
    return "example" in value.lower() or _RUN_OF_SIX.search(value) is not None


def _b64json(part: str) -> bool:
    """Whether ``part`` is base64url of a JSON object."""
    try:
        raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        return isinstance(orjson.loads(raw), dict)
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        return False


def _token_ok(kind: str, value: str, data: bytes, end: int) -> bool:
    """What RE2 could not say of a token it matched (``data[...:end]`` is ``value``)."""
    if kind == "private-key":
        return True
    if kind == "jwt":
        head, payload, _ = value.split(".", 2)
        return _b64json(head) and _b64json(payload)
    if kind == "google-api-key" and len(value) != 39:
        return False
    if kind == "openai-key" and len(value) < 40:
        return False
    if kind in ("gitlab-token", "anthropic-key", "google-api-key", "openai-key") and end < len(data) \
            and data[end] in _TOKEN_CHARS:
        return False
    return not _placeholder(value)


def _entropy(value: str) -> float:
    """Shannon entropy of ``value``'s characters, in bits per character."""
    length = len(value)
    return -sum(count / length * math.log2(count / length) for count in Counter(value).values())


#: names ending in KEY whose values are not secrets: a dictionary's, a cache's, a table's keys
_PLAIN_KEYS = ("publickey", "pubkey", "sortkey", "cachekey", "primarykey", "foreignkey", "partitionkey",
               "hashkey", "idempotencykey", "objectkey", "rowkey", "hotkey", "monkey", "turkey", "keyboardkey",
               "querykey", "storagekey", "i18nkey", "translationkey", "routekey", "rangekey", "groupkey", "mapkey",
               "lookupkey", "dedupkey", "dedupekey", "itemkey", "nodekey", "listkey", "reactkey", "localstoragekey")


#: what a value assigned to a name may not hold (the assignment pattern's value stops at it)
_NOT_IN_VALUE = frozenset("\"'`,;(){}[]<>\\")


def is_value(text: str) -> bool:
    """Whether ``text`` could be a value the assignment pattern matches whole: no white
    space, quote, bracket or separator (a JSON key's value is read under the same rule)."""
    return not any(char.isspace() or char in _NOT_IN_VALUE for char in text)


def is_secret_name(name: str) -> bool:
    """Whether a value named ``name`` would be a secret: the name ends in KEY, TOKEN,
    SECRET or PASSWORD (any case, ``_``, ``-`` and ``.`` ignored), and is not one of the
    keys that name no secret (``key``, ``publicKey``, ``cacheKey``, …)."""
    plain = name.lower().replace("_", "").replace("-", "").replace(".", "")
    if plain.endswith(("token", "secret", "password", "passwd")):
        return True
    return plain.endswith("key") and plain != "key" and not plain.endswith(_PLAIN_KEYS)


def assigned_value(name: str, value: str) -> str | None:
    """The kind of ``value`` assigned to ``name`` when it looks like a secret (``is_secret_name``
    is not asked here): ``aws-secret-key`` for 40 characters of base64 under an AWS secret's
    name, else ``assigned-secret`` for a value random enough (16 characters or more, letters
    and digits, 3.5 bits a character or more, no placeholder, no reference to another value
    such as ``$VAR``, ``${…}``, ``%s``, a path or a URL); None when it does not. Both want
    a digit in the value (what the prefilter looks for: an AWS secret without one, one in a
    thousand, is missed)."""
    if not 16 <= len(value) <= 1000 or value[0] in "$%<{*#@/~.&" or "://" in value or value.startswith("./"):
        return None
    if not any(char.isdigit() for char in value):
        return None
    plain = name.lower().replace("_", "").replace("-", "").replace(".", "")
    if ("secretaccesskey" in plain or ("aws" in plain and "secret" in plain)) and len(value) == 40 \
            and all(char.isalnum() or char in "/+" for char in value) and not _placeholder(value):
        return "aws-secret-key"
    if not any(char.isalpha() for char in value):
        return None
    if _placeholder(value) or _entropy(value) < 3.5:
        return None
    return "assigned-secret"


#: passwords in URLs that are stand-ins or the defaults of local services, not secrets
_URL_PLACEHOLDERS = frozenset({"password", "pass", "passwd", "pwd", "secret", "changeme", "xxx", "xxxx", "****",
                               "postgres", "root", "admin", "guest", "test", "user", "mysql", "redis", "example"})


def _password_ok(value: str, user: str | None = None) -> bool:
    """A password in a URL or a connection string that is one, not a stand-in
    (``$PASSWORD``, ``%s``, ``<password>``, ``password``), a local service's default
    (``postgres``, the user's own name) nor a port."""
    if value[0] in "$%<{*[" or value.lower() in _URL_PLACEHOLDERS or (value.isdigit() and len(value) <= 5):
        return False
    if user is not None and value == user:
        return False
    return not all(char == value[0] for char in value)


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    """Whether ``span`` overlaps one of ``spans`` (sorted, not overlapping each other)."""
    position = bisect_right(spans, (span[0], 1 << 62))
    return (position > 0 and spans[position - 1][1] > span[0]) or (position < len(spans) and spans[position][0] < span[1])


def find_in_text(text: str) -> list[Found]:
    """Every likely secret in ``text``, in the order they stand (a value matched by a token
    format is not matched again as a password or an assignment)."""
    if len(text) < 8:  # (the shortest text a pattern matches, ";pwd=abc", is longer)
        return []
    patterns = _PATTERNS.make()
    data = text.encode("utf-8", "surrogatepass")
    # The prefilter matches wherever a pattern below does: a text it does not match holds no
    # secret, and one where it meets token prefixes alone needs the token pass alone. (Any
    # other hit runs every pass: a hit can hide another, an assignment's value a token.)
    families = set()
    for match in patterns.prefilter.finditer(data):
        families.add(match.lastindex)
        if families - {_TOKENS, _ESCAPED}:
            break
    families.discard(_ESCAPED)  # (a "\u0041" in text itself means nothing)
    if not families:
        return []
    wanted = {_TOKENS} if families == {_TOKENS} else {_TOKENS, _URL, _CONNECTION, _ASSIGNED}
    found: list[tuple[int, Found]] = []
    # the spans taken by each pass, each list in order (a pass's matches do not overlap)
    passes: list[list[tuple[int, int]]] = []

    def free(span: tuple[int, int]) -> bool:
        return not any(_overlaps(span, taken) for taken in passes)

    taken = []
    for match in patterns.tokens.finditer(data) if _TOKENS in wanted else ():
        group = match.lastindex
        if group is None:
            continue
        start, end = match.span(group)
        value = data[start:end].decode("utf-8", "replace")
        kind = _TOKEN_KINDS[group - 1]
        if _token_ok(kind, value, data, end):
            found.append((start, Found(kind, value)))
            taken.append((start, end))
    passes.append(taken)
    for family, regex in ((_URL, patterns.url_password), (_CONNECTION, patterns.conn_password)):
        taken = []
        for match in regex.finditer(data) if family in wanted else ():
            span = match.span(match.lastindex)  # (the password: a URL's user is the group before it)
            value = data[span[0]:span[1]].decode("utf-8", "replace")
            user = data[match.start(1):match.end(1)].decode("utf-8", "replace") if match.lastindex == 2 else None
            if _password_ok(value, user) and free(span):
                found.append((span[0], Found("url-password", value)))
                taken.append(span)
        passes.append(taken)
    for match in patterns.assignment.finditer(data) if _ASSIGNED in wanted else ():
        span = match.span(2)
        if not free(span):
            continue
        name = data[match.start(1):match.end(1)].decode("utf-8", "replace")
        value = data[span[0]:span[1]].decode("utf-8", "replace")
        kind = assigned_value(name, value) if is_secret_name(name) else None
        if kind is not None:
            found.append((span[0], Found(kind, value)))
    found.sort(key=lambda hit: hit[0])
    return [hit for _, hit in found]
