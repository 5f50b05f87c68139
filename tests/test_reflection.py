"""The referee's generic gRPC tools: server reflection (what grpcurl uses) and health checking."""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from referee.server.service import RefereeService, make_server

REFEREE = "arena.v1.Referee"
HEALTH = "grpc.health.v1.Health"
REFLECTION = "grpc.reflection.v1alpha.ServerReflection"


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    """A referee server (no match) on a unix socket, run by an event loop in a thread of its own."""
    tmp = tempfile.TemporaryDirectory(prefix="arena-refl-")
    target = f"unix:{Path(tmp.name) / 'r.sock'}"
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop: list[asyncio.Event] = []

    async def serve() -> None:
        server = make_server(RefereeService())
        server.add_insecure_port(target)
        await server.start()
        stop.append(asyncio.Event())
        ready.set()
        await stop[0].wait()
        await server.stop(grace=0.2)

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    yield target
    loop.call_soon_threadsafe(stop[0].set)
    thread.join(10)
    tmp.cleanup()


def test_reflection_lists_the_services(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = list(stub.ServerReflectionInfo(iter([request]), timeout=5))
    assert len(replies) == 1
    names = {s.name for s in replies[0].list_services_response.service}
    assert names == {REFEREE, HEALTH, REFLECTION}


def test_reflection_describes_the_protocol(address: str) -> None:
    """A generic client learns the Play method and every game's messages from the server alone."""
    with grpc.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=REFEREE)
        [reply] = list(stub.ServerReflectionInfo(iter([request]), timeout=5))
        files = [FileDescriptorProto.FromString(b) for b in reply.file_descriptor_response.file_descriptor_proto]
        assert "arena/v1/referee.proto" in {f.name for f in files}

        pool = DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        play = pool.FindServiceByName(REFEREE).FindMethodByName("Play")
        assert play.client_streaming and play.server_streaming
        assert play.input_type.full_name == "arena.v1.BotMessage"
        assert play.output_type.full_name == "arena.v1.RefereeMessage"
        games = {f.name for f in pool.FindMessageTypeByName("arena.v1.Action").oneofs_by_name["game"].fields}
        assert games == {"generals_war", "glory", "generals_and_assassins", "land_and_castle", "assassination"}
        assert pool.FindMessageTypeByName("arena.v1.generals_war.SquadChoice").fields_by_name["max_cards"].number == 3


def test_health_says_serving(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
