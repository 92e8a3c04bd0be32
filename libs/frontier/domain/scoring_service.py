"""The scoring service (``python -m services.scoring``): the scoring domain's command kinds
(royal claims) decided and listed on its projection of a match, a match's final scoring
(EvaluateMatch), and the live scoreboard of every match (:mod:`.scoreboard`).

The scoreboard counts every match, so this service alone follows every committed batch on
NATS (one subscription feeds both its projections and the scoreboard, see :mod:`.main`);
the other four get the batches they lack with the requests.

Its RPCs are one table (:func:`rpcs`), served both as ``ScoringService``'s unary RPCs
(:class:`ScoringServicer`) and as DomainCallService messages (see :mod:`.service`).
"""

from __future__ import annotations

from typing import Any

from frontier.engine.domains import Domain
from frontier.engine.state import State
from frontier.runtime.errors import GrpcContext, grpc_errors
from frontier.v1 import scoring_pb2, scoring_pb2_grpc

from . import main as process
from .call_service import Method
from .core import DomainCore
from .scoreboard import Scoreboard
from .service import DomainService, Rpcs, decide_rpc, list_rpc, on_state


def rpcs(core: DomainCore, scoreboard: Scoreboard | None) -> Rpcs:
    """``ScoringService``'s RPCs: the match's ones answered on the request's state by
    ``core``, GetScoreboard by ``scoreboard``."""
    if scoreboard is None:
        raise ValueError("the scoring service keeps a scoreboard")
    board = scoreboard

    def evaluate(
        request: scoring_pb2.EvaluateMatchRequest, state: State
    ) -> scoring_pb2.EvaluateMatchResponse:
        return scoring_pb2.EvaluateMatchResponse(result=core.finish_on(state))

    async def get_scoreboard(
        request: scoring_pb2.GetScoreboardRequest,
    ) -> scoring_pb2.GetScoreboardResponse:
        return scoring_pb2.GetScoreboardResponse(matches=await board.current())

    return {
        "DecideScoringCommand": decide_rpc(
            core, scoring_pb2.DecideScoringCommandRequest, scoring_pb2.DecideScoringCommandResponse
        ),
        "ListScoringCommands": list_rpc(
            core, scoring_pb2.ListScoringCommandsRequest, scoring_pb2.ListScoringCommandsResponse
        ),
        "EvaluateMatch": on_state(core, scoring_pb2.EvaluateMatchRequest, evaluate),
        "GetScoreboard": Method(scoring_pb2.GetScoreboardRequest, get_scoreboard),
    }


class ScoringServicer(scoring_pb2_grpc.ScoringServiceServicer):
    """``ScoringService``'s unary RPCs: each runs its handler in :func:`rpcs`' table."""

    def __init__(self, rpcs: Rpcs) -> None:
        self.rpcs = rpcs

    @grpc_errors
    async def DecideScoringCommand(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["DecideScoringCommand"].handler(request)

    @grpc_errors
    async def ListScoringCommands(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["ListScoringCommands"].handler(request)

    @grpc_errors
    async def EvaluateMatch(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["EvaluateMatch"].handler(request)

    @grpc_errors
    async def GetScoreboard(self, request: Any, context: GrpcContext) -> Any:
        return await self.rpcs["GetScoreboard"].handler(request)


SERVICE = DomainService(
    Domain.SCORING,
    rpcs,
    ScoringServicer,
    scoring_pb2_grpc.add_ScoringServiceServicer_to_server,
    keeps_scoreboard=True,
)


def main() -> None:
    """Run the scoring service as this process (``python -m services.scoring``)."""
    process.main(SERVICE)
