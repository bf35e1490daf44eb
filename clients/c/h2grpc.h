/* Unary gRPC calls over HTTP/2 cleartext (h2c, prior knowledge) with libnghttp2.
 *
 * One connection carries any number of calls, one after another. A call sends one message
 * (the 5-byte gRPC prefix added here) and waits for the stream to end; the answer is the
 * response message's bytes (prefix removed) and the grpc-status and grpc-message the server
 * sent, in trailers or in a trailers-only response. */
#ifndef INTENTMESH_H2GRPC_H
#define INTENTMESH_H2GRPC_H

#include <stddef.h>
#include <stdint.h>

typedef struct h2grpc_conn h2grpc_conn;

typedef struct {
  int http_status;    /* :status; 0 when none came */
  int grpc_status;    /* grpc-status; -1 when the server sent none */
  char *grpc_message; /* grpc-message, percent-decoded; NULL when none */
  uint8_t *message;   /* the response message (without the gRPC prefix); NULL when none */
  size_t message_len;
} h2grpc_result;

/* Connects to "host:port" ("[v6]:port" too) and starts the HTTP/2 session. NULL on failure, with
 * the reason in err. timeout_ms bounds the connect and, later, each call. */
h2grpc_conn *h2grpc_connect(const char *target, int timeout_ms, char *err, size_t err_len);

/* Calls `path` ("/package.Service/Method") with one request message. Returns 0 when the call
 * completed at the HTTP/2 level (whatever its grpc-status), -1 on a transport or protocol error
 * (reason in err). On 0 the caller owns `out` and frees it with h2grpc_result_free. */
int h2grpc_unary(h2grpc_conn *conn, const char *path, const uint8_t *request, size_t request_len,
                 h2grpc_result *out, char *err, size_t err_len);

void h2grpc_result_free(h2grpc_result *result);

/* Sends "authorization: Bearer <token>" with every later call (NULL or "" sends none). -1 when out
 * of memory. */
int h2grpc_set_bearer_token(h2grpc_conn *conn, const char *token);

/* Sends GOAWAY, closes the socket and frees everything. Accepts NULL. */
void h2grpc_close(h2grpc_conn *conn);

/* The canonical name of a gRPC status code ("NOT_FOUND"), or "UNKNOWN_CODE". */
const char *h2grpc_status_name(int code);

#endif
