"""The click classes of every nonosat command and of the ``nonosat`` group: one help style,
usage errors on one line, and plain parameters coerced without pydantic (start-up time)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from nonosat.errors import one_line

#: Metavars of options and arguments that name none, by parameter name (else by type, below):
#: one style (upper case, no ``<type>``) in every command's help.
_METAVARS = {
    "cert_dir": "DIR", "out": "FILE", "paths": "PATH", "puzzle_paths": "PUZZLE",
    "puzzles": "PUZZLE", "scheduler": "ADDRESS", "jobs": "N", "cell": "PIXELS",
    "depth": "N", "limit": "N", "max_steps": "N", "memory_limit": "MIB", "timeout": "SECONDS",
}
#: click's ranges in help ("x>=0.0", "1<=x<=9"): the help texts say the bounds in words.
_RANGE = re.compile(r"(?:; )?(?:-?[\d.]+<=?x(?:<=?-?[\d.]+)?|x[<>]=?-?[\d.]+)(?=[;\]])")
_TYPE_METAVARS = {"path": "FILE", "int": "N", "float": "X", "str": "NAME"}
_PROSE_DEFAULT = re.compile(r"\s*[(;]\s*default:?\s+([^)]*?)\)\s*(?=\.|$)|\s*Default:\s+([^.]*)\.\s*$")


def _click_exceptions() -> Any:
    """The module of the click exceptions typer raises (typer 0.29 vendors click)."""
    try:
        return importlib.import_module("typer._click.exceptions")
    except ImportError:  # a typer that uses click itself
        return importlib.import_module("click.exceptions")


def _usage_one_line(error: Any) -> None:
    """``show`` of a click usage error, on one line: ``nonosat: error: MESSAGE (try 'nonosat
    CMD -h')`` instead of click's usage, hint and error lines."""
    click = _click_exceptions()
    ctx = getattr(error, "ctx", None)
    plain = isinstance(error, click.BadParameter) and not isinstance(
        error, click.MissingParameter)
    message = error.message if plain else error.format_message()
    param = getattr(error, "param", None)
    if plain:
        name = param.opts[0] if param is not None and param.opts else (
            error.param_hint if isinstance(error.param_hint, str) else None)
        if param is not None and param.param_type_name == "argument":
            name = _argument_name(param)
        message = f"{name}: {message}" if name else message
    message = message.rstrip(".")
    where = f" (try '{ctx.command_path} -h')" if ctx is not None else ""
    typer.echo(f"nonosat: error: {one_line(message)}{where}", err=True)


def _one_line_errors(call: Callable[[], Any]) -> Any:
    """Run ``call``; a click usage error raised in it shows itself on one line."""
    click = _click_exceptions()
    try:
        return call()
    except click.UsageError as error:
        if type(error).__name__ != "NoArgsIsHelpError":  # that one shows the help, as it should
            error.show = lambda file=None, _e=error: _usage_one_line(_e)
        raise


class NonosatCommand(TyperCommand):
    """The click command class of every nonosat command: one help style everywhere.

    Arguments are shown as ``PUZZLE`` (``[NAME]`` when optional, ``NAME...`` for several), never
    as typer's ``{name}`` or ``<path>``; options without a metavar get one from the parameter
    name or its type (``FILE``, ``N``, ``NAME``) instead of ``<str>`` / ``<list[Path]>``; a
    default written in the help text ("(default: X)") moves into the ``[default: X]`` bracket
    typer uses for the others.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: the defaults moved out of a parameter's help text, for :meth:`format_options`
        self._prose_defaults: dict[object, str] = {}  # by parameter object
        for param in self.params:
            lighten(param)
            if getattr(param, "is_flag", False) or getattr(param, "count", False):
                continue
            if param.metavar is None:
                desc = getattr(param, "type_descriptor", None)
                kind = "str"
                if desc is not None:
                    kind = "path" if desc.is_path else getattr(
                        desc.annotation if not desc.is_list else str, "__name__", "str"
                    )
                    if desc.is_list and desc.is_path:
                        kind = "path"
                metavar = _METAVARS.get(param.name or "", _TYPE_METAVARS.get(kind, "VALUE"))
                if kind == "path" and "director" in (getattr(param, "help", "") or ""):
                    metavar = "DIR"
                param.metavar = metavar
                if param.param_type_name == "argument" and param.name not in _METAVARS:
                    param.metavar = (param.name or "value").upper()
            # typer's arguments and options are the parameters with a help text
            if isinstance(param, (TyperArgument, TyperOption)) and param.help:
                help_text = param.help
                match = _PROSE_DEFAULT.search(help_text)
                if match:
                    param.help = (help_text[: match.start()] + help_text[match.end():]).rstrip()
                    if not param.help.endswith("."):
                        param.help += "."
                    if param.default is None or param.default is False:  # else typer shows it
                        self._prose_defaults[param] = (match.group(1) or match.group(2)).strip()

    def get_help_option(self, ctx: Any) -> Any:
        """The ``-h``/``--help`` option, coerced without pydantic like the others."""
        option = super().get_help_option(ctx)
        if option is not None:
            lighten(option)
        return option

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """Click's, with usage errors on one line (:func:`_usage_one_line`)."""
        return _one_line_errors(lambda: super(NonosatCommand, self).make_context(*args, **kwargs))

    def invoke(self, ctx: Any) -> Any:
        """Click's, with usage errors (``typer.BadParameter`` of a command) on one line."""
        return _one_line_errors(lambda: super(NonosatCommand, self).invoke(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """``[OPTIONS] PUZZLE`` rather than typer's ``[OPTIONS] {PUZZLE}``."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(_argument_name(param, usage=True))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """Arguments and options as typer lays them out, in the one style above."""
        args, opts = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            name, text = record
            text = _RANGE.sub("", text).replace("  []", "").replace("[; ", "[")
            default = self._prose_defaults.get(param)
            if default:
                if text.endswith("]") and "  [" in text:
                    head, _, extra = text.rpartition("  [")
                    text = f"{head}  [default: {default}; {extra}"
                else:
                    text = f"{text}  [default: {default}]"
            if param.param_type_name == "argument":
                args.append((_argument_name(param), text))
            else:
                opts.append((name, text))
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


class NonosatGroup(TyperGroup):
    """The ``nonosat`` group: its own options (``--version``) coerced without pydantic too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            lighten(param)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """Click's, with usage errors on one line (:func:`_usage_one_line`)."""
        return _one_line_errors(lambda: super(NonosatGroup, self).make_context(*args, **kwargs))

    def invoke(self, ctx: Any) -> Any:
        """Click's, with usage errors (unknown command, a command's) on one line."""
        return _one_line_errors(lambda: super(NonosatGroup, self).invoke(ctx))

    def get_help_option(self, ctx: Any) -> Any:
        """The ``-h``/``--help`` option, coerced without pydantic like the others."""
        option = super().get_help_option(ctx)
        if option is not None:
            lighten(option)
        return option


_PLAIN = {str, int, float, bool, Path}


class _PlainCoercion:
    """Coercion of a plain ``str``/``int``/``float``/``bool``/``Path`` parameter (or a list of
    them) without building typer's pydantic ``TypeAdapter``: importing pydantic costs about a
    third of ``nonosat --help``'s time.  Same results and ranges (``min``/``max``) as typer's."""

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        if multi:
            if isinstance(value, str):
                raise typer.BadParameter("Value must be an iterable.", ctx=ctx, param=param)
            return [self._one(item, param, ctx) for item in value]
        return self._one(value, param, ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        kind = self.kind
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            result = value
        elif kind is bool:
            text = str(value).strip().lower()
            if text not in ("1", "0", "true", "false", "yes", "no", "on", "off", "y", "n"):
                raise typer.BadParameter(f"{value!r} is not a valid boolean.", ctx=ctx, param=param)
            result = text in ("1", "true", "yes", "on", "y")
        else:
            try:
                result = kind(value)
            except (TypeError, ValueError):
                noun = {int: "an integer", float: "a number"}.get(kind, kind.__name__)
                raise typer.BadParameter(
                    f"{value!r} is not {noun}.", ctx=ctx, param=param
                ) from None
        low, high = getattr(param, "min", None), getattr(param, "max", None)
        if kind in (int, float) and (
            (low is not None and result < low) or (high is not None and result > high)
        ):
            if low is not None and result < low:
                bound = f"at least {low:g}"
            else:
                bound = f"at most {high:g}"
            raise typer.BadParameter(f"must be {bound} (got {value})", ctx=ctx, param=param)
        return result


def lighten(param: Any) -> None:
    """Give a typer parameter of a plain type :class:`_PlainCoercion` instead of typer's
    pydantic coercion; parameters with path checks, parsers, choices or files keep typer's."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or desc.file_annotation is not None or desc.is_choice or desc.is_tuple:
        return
    info = desc.parameter_info
    if info.parser is not None or getattr(info, "clamp", False):
        return
    kind = desc.annotation
    if desc.is_list:
        from typing import get_args

        kind = (get_args(kind) or (None,))[0]
    if kind not in _PLAIN:
        return
    if kind is Path and (
        info.exists or info.resolve_path or info.allow_dash or info.writable
        or not info.file_okay or not info.dir_okay or info.path_type is not None
    ):
        return
    param._runtime_param = _PlainCoercion(kind)


def _argument_name(param: Any, usage: bool = False) -> str:
    name = param.metavar or (param.name or "value").upper()
    if param.nargs != 1:
        name += "..."
    if usage and not param.required:
        name = f"[{name}]"
    return name

