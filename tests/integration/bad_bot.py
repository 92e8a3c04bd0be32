"""A bot that answers its first decision with a legal id that does not exist, then plays
the first legal command of every decision: what a bot with an off-by-one in its id
handling does.  ``frontier check-bot`` must list the rejection and fail.

    FRONTIER_BOT_TOKEN=... python bad_bot.py --url HOST:PORT --match ID --seat A1
"""

from __future__ import annotations

import argparse
import os
import queue
from collections.abc import Iterator

import grpc

from frontier.v1 import bot_pb2, bot_pb2_grpc

BAD_ID = "no-such-legal-id"


def main() -> int:
    parser = argparse.ArgumentParser()
    for flag in ("--url", "--match", "--seat"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    outgoing: queue.Queue[bot_pb2.PlayRequest | None] = queue.Queue()
    hello = bot_pb2.Hello(match_id=args.match, seat_token=os.environ["FRONTIER_BOT_TOKEN"])
    outgoing.put(bot_pb2.PlayRequest(hello=hello))

    def requests() -> Iterator[bot_pb2.PlayRequest]:
        while (request := outgoing.get()) is not None:
            yield request

    def answer(decision_id: str, legal_id: str) -> None:
        outgoing.put(
            bot_pb2.PlayRequest(answer=bot_pb2.Answer(decision_id=decision_id, command_id=legal_id))
        )

    first = True
    last: bot_pb2.DecisionRequest | None = None
    with grpc.insecure_channel(args.url) as channel:
        for response in bot_pb2_grpc.BotServiceStub(channel).Play(requests()):
            which = response.WhichOneof("message")
            if which == "decision":
                last = response.decision
                answer(last.decision_id, BAD_ID if first else last.legal[0].id)
                first = False
            elif which == "rejected" and last is not None:
                answer(last.decision_id, last.legal[0].id)
            elif which == "match_over":
                break
    outgoing.put(None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
