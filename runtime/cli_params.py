"""Text arguments and options of `uac` without loading pydantic.

Typer coerces every parameter value through a pydantic `TypeAdapter`, which costs a
pydantic import (tens of milliseconds) on every command. For a `str` or `list[str]`
parameter given plain strings, and a `bool` flag given a bool, that coercion returns the
value unchanged, so `TextParamsGroup` gives those parameters (`--help` among them) a direct
path: the value as typer would return it (a `str`, a list of `str`, a `bool`, None or `()`
when absent). Anything else (numbers, paths, a parameter with a custom parser, a Typer
version without this machinery) goes through typer's own coercion, error messages included.
"""

from __future__ import annotations

from typing import Any, Callable, get_args, get_origin

from typer.core import TyperGroup


class TextParamsGroup(TyperGroup):
    """The `uac` group: its own and each command's text parameters take the direct path."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        plain_text_params(self.params)

    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_option(super().get_help_option(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command: Any = super().get_command(ctx, cmd_name)
        if command is not None and not isinstance(command.__dict__.get("get_help_option"), _HelpOption):
            plain_text_params(command.params)
            command.get_help_option = _HelpOption(command.get_help_option)
        return command


class _HelpOption:
    """A command's `get_help_option`, whose (lazily made) `--help` flag takes the direct path."""

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self._make = make

    def __call__(self, ctx: Any) -> Any:
        return _plain_help_option(self._make(ctx))


def _plain_help_option(option: Any) -> Any:
    if option is not None:
        plain_text_params([option])
    return option


def plain_text_params(params: list[Any]) -> None:
    """Give every plain `str` / `list[str]` / `bool` parameter of `params` the direct path."""
    for param in params:
        if isinstance(param.__dict__.get("get_runtime_param"), _PlainText):
            continue  # done before (a command is looked up once for help, once to run)
        descriptor = getattr(param, "type_descriptor", None)
        typer_coercion = getattr(param, "get_runtime_param", None)
        if descriptor is None or not callable(typer_coercion) or not _is_text(descriptor):
            continue
        param.get_runtime_param = _PlainText(typer_coercion)


def _is_text(descriptor: Any) -> bool:
    info = getattr(descriptor, "parameter_info", None)
    if info is None or getattr(info, "parser", None) is not None:
        return False
    if getattr(descriptor, "file_annotation", 1) is not None or getattr(descriptor, "is_choice", True):
        return False
    annotation = getattr(descriptor, "annotation", None)
    return annotation in (str, bool) or (get_origin(annotation) is list and get_args(annotation) == (str,))


def _annotation(param: Any) -> Any:
    return getattr(getattr(param, "type_descriptor", None), "annotation", None)


class _PlainText:
    """Stands in for typer's runtime parameter (`get_runtime_param()` returns it): plain
    strings pass straight through; any other value goes to typer's coercion."""

    def __init__(self, typer_coercion: Callable[[], Any]) -> None:
        self._typer_coercion = typer_coercion

    def __call__(self) -> _PlainText:
        return self

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multiple = bool(getattr(param, "multiple", False)) or getattr(param, "nargs", 1) == -1
        annotation = _annotation(param)
        if value is None:
            return () if multiple else None
        if multiple and get_origin(annotation) is list and isinstance(value, (list, tuple)) \
                and all(type(v) is str for v in value):
            return list(value)
        if not multiple and type(value) in (str, bool) and type(value) is annotation:
            return value
        return self._typer_coercion().coerce(value, param=param, ctx=ctx)
