"""Server reflection: every service it lists, it describes (file_containing_symbol), grpc.reflection.v1
included, whose descriptor grpcio-reflection does not bring (server._load_reflection_v1)."""
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from intentmesh.v1 import extension_service_pb2

from unicornfit import server
from unicornfit.app_service import SERVICE_NAME as APP_SERVICE

SERVICES = [
    extension_service_pb2.DESCRIPTOR.services_by_name["IntentsExtension"].full_name,
    APP_SERVICE,
    health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
]


def ask(servicer, *requests):
    return list(servicer.ServerReflectionInfo(iter(requests), None))


def described_services(answer):
    assert answer.WhichOneof("message_response") == "file_descriptor_response", answer
    found = set()
    for raw in answer.file_descriptor_response.file_descriptor_proto:
        file = descriptor_pb2.FileDescriptorProto.FromString(raw)
        found |= {f"{file.package}.{service.name}" for service in file.service}
    return found


def test_every_service_listed_is_described():
    servicer = server.reflection_servicer(SERVICES)
    [listing] = ask(servicer, reflection_pb2.ServerReflectionRequest(list_services=""))
    listed = sorted(service.name for service in listing.list_services_response.service)
    assert listed == sorted(SERVICES + [server.REFLECTION_V1, "grpc.reflection.v1alpha.ServerReflection"])
    answers = ask(servicer, *[reflection_pb2.ServerReflectionRequest(file_containing_symbol=name) for name in listed])
    for name, answer in zip(listed, answers):
        assert name in described_services(answer), f"{name} is listed but not described"


def test_the_v1_file_is_the_one_generated_from_protos():
    servicer = server.reflection_servicer(SERVICES)
    request = reflection_pb2.ServerReflectionRequest(file_by_filename="grpc/reflection/v1/reflection.proto")
    [answer] = ask(servicer, request)
    [raw] = answer.file_descriptor_response.file_descriptor_proto
    file = descriptor_pb2.FileDescriptorProto.FromString(raw)
    assert (file.package, [service.name for service in file.service]) == ("grpc.reflection.v1", ["ServerReflection"])
    [method] = file.service[0].method
    assert (method.name, method.client_streaming, method.server_streaming) == ("ServerReflectionInfo", True, True)
    # Loaded once, however many servicers are made.
    assert server._load_reflection_v1() is server._load_reflection_v1()
