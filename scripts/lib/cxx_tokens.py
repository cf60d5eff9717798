"""The comments and string literals of C and C++ source, for the repository checks (check-citations,
check-messages): enough of the language's lexing to tell them apart — // and /* */ comments, "..."
literals with their escapes, raw strings R"d(...)d", character literals, and the digit separator of
1'000 — and nothing more.
"""
import re

_RAW = re.compile(r'"([^(\s]*)\(')


def scan(text):
    """Yields (kind, line, body): kind "comment" (the text after // or between /* */) or "string" (a
    literal's text between its quotes, escapes as written); line is where it starts, from 1."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield "comment", text.count("\n", 0, i) + 1, text[i + 2:j]
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            yield "comment", text.count("\n", 0, i) + 1, text[i + 2:j]
            i = j + 2
        elif c == "'":
            if i > 0 and text[i - 1].isalnum():  # a digit separator, 1'000
                i += 1
                continue
            m = re.match(r"'(?:\\.|[^'\\\n])*'", text[i:])
            i += len(m.group(0)) if m else 1
        elif c == '"':
            k = i
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
                k -= 1
            raw = _RAW.match(text, i) if text[k:i].endswith("R") else None
            if raw:
                end = text.find(")" + raw.group(1) + '"', i)
                end = n if end < 0 else end
                yield "string", text.count("\n", 0, k) + 1, text[raw.end():end]
                i = end + len(raw.group(1)) + 2
            else:
                j = i + 1
                while j < n and text[j] not in '"\n':
                    j += 2 if text[j] == "\\" else 1
                yield "string", text.count("\n", 0, k) + 1, text[i + 1:j]
                i = j + 1
        else:
            i += 1
