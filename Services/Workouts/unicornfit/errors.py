"""Failures with a gRPC status: every bad input gets a clear status and message, never a crash."""
import grpc


class Refusal(Exception):
    """A call refused with `code` and a message for the caller."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def invalid_argument(message):
    return Refusal(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message):
    return Refusal(grpc.StatusCode.NOT_FOUND, message)


def failed_precondition(message):
    return Refusal(grpc.StatusCode.FAILED_PRECONDITION, message)


def unauthenticated(message):
    return Refusal(grpc.StatusCode.UNAUTHENTICATED, message)


def permission_denied(message):
    return Refusal(grpc.StatusCode.PERMISSION_DENIED, message)


def unimplemented(message):
    return Refusal(grpc.StatusCode.UNIMPLEMENTED, message)
