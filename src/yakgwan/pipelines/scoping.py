"""A question's scope applied to a pipeline context: the part of the index the question names
(``query.scope``), the note that says so, and the refusal when it names only what is not held."""

from __future__ import annotations

from yakgwan.messages import Message, msg
from yakgwan.pipelines.context import PipelineContext
from yakgwan.query.scope import Scope, labels_of, scope_of
from yakgwan.store import keep_docs


def scoped(ctx: PipelineContext, question: str) -> tuple[PipelineContext, Scope]:
    """``ctx`` over the documents ``question`` names (``ctx`` itself when it names none, all of
    them, or only what the index does not hold), and the scope."""
    scope = scope_of(question, labels_of(ctx.view.docs))
    if not scope.narrows or set(scope.docs or ()) >= set(ctx.view.docs):
        return ctx, scope
    return ctx.within(keep_docs(ctx.view, scope.docs or ())), scope


def _listed(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(names)


def _why(scope: Scope) -> str:
    return _listed(list(dict.fromkeys([*scope.named, *scope.groups, *scope.types, *scope.words])))


def scope_note(scope: Scope) -> Message | None:
    """What a reader is told of the scope: the documents searched and the names that chose them,
    and the insurers named that the index does not hold. None when the question named nothing."""
    if scope.refuses:
        return refusal_note(scope)
    parts = []
    if scope.absent and scope.held:  # documents that know no insurer say nothing of one
        parts.append(msg("scope.absent", absent=_listed(scope.absent), held=_listed(scope.held) or "-"))
    if scope.narrows:
        parts.append(msg("scope.narrowed", docs=_listed(scope.docs or ()), why=_why(scope)))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else msg("scope.both", first=parts[0], second=parts[1])


def refusal_note(scope: Scope) -> Message:
    """Why a question scoped to nothing cannot be answered: the insurers it names that the index
    does not hold (and those it holds), or the product type the named insurer's documents lack."""
    if scope.absent_types:
        return msg("scope.absent_type", insurer=_listed([*scope.named, *scope.groups]), types=_listed(scope.absent_types),
                   docs=_listed(scope.offered))
    return msg("scope.absent", absent=_listed(scope.absent), held=_listed(scope.held) or "-")
