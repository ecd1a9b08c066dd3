"""One-line messages for invalid requests, shared by the application (:mod:`nonosat.studio.asgi`)
and the API (:mod:`nonosat.studio.api`), which both import it (so neither imports the other)."""

from __future__ import annotations


def validation_message(exc: Exception) -> str:
    """One line from a pydantic/FastAPI validation error: ``"puzzle.rows.0: Input should be a
    valid list"`` (the first problem, and how many more).

    Parameters
    ----------
    exc : Exception
        A ``pydantic.ValidationError`` or ``fastapi.exceptions.RequestValidationError`` (anything
        with ``errors()``), or any exception (its first line).

    Returns
    -------
    str
        Never empty, never more than one line.
    """
    errors_of = getattr(exc, "errors", None)
    errors = errors_of() if callable(errors_of) else []
    if not errors:
        text = str(exc).splitlines()[0] if str(exc).strip() else ""
        return text or "invalid request"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    msg = f"{where}: {first.get('msg', 'invalid')}"
    if len(errors) > 1:
        msg += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return " ".join(msg.split())
