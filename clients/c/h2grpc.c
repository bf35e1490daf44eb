/* Unary gRPC over h2c with libnghttp2: see h2grpc.h. */
#define _POSIX_C_SOURCE 200809L

#include "h2grpc.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

/* A response bigger than this is refused rather than buffered. */
#define MAX_RESPONSE_BYTES (64u * 1024u * 1024u)

struct h2grpc_call {
  int32_t stream_id;
  uint8_t *request; /* gRPC-framed */
  size_t request_len;
  size_t request_sent;
  int http_status;
  int grpc_status;
  char *grpc_message;
  char *content_type;
  char *grpc_encoding;
  uint8_t *body;
  size_t body_len;
  size_t body_cap;
  int too_large;
  int closed;
  uint32_t close_error;
};

struct h2grpc_conn {
  int fd;
  int broken;
  int timeout_ms;
  char *authority;
  char *authorization; /* "Bearer <token>", sent with every call; NULL sends none */
  nghttp2_session *session;
  struct h2grpc_call *call; /* the call under way, if any */
  int goaway;
  uint32_t goaway_error;
};

static void set_err(char *err, size_t err_len, const char *format, ...) {
  if (err == NULL || err_len == 0) return;
  va_list args;
  va_start(args, format);
  vsnprintf(err, err_len, format, args);
  va_end(args);
}

static char *dup_bytes(const uint8_t *data, size_t len) {
  char *copy = malloc(len + 1);
  if (copy == NULL) return NULL;
  memcpy(copy, data, len);
  copy[len] = '\0';
  return copy;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for `events` or the deadline passes: 1 ready, 0 timed out, -1 error. */
static int wait_for(int fd, short events, int64_t deadline) {
  for (;;) {
    int64_t left = deadline - now_ms();
    if (left <= 0) return 0;
    struct pollfd pfd = {.fd = fd, .events = events};
    int rv = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
    if (rv < 0 && errno == EINTR) continue;
    if (rv < 0) return -1;
    if (rv > 0) return 1;
  }
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* grpc-message is percent-encoded UTF-8; a malformed escape is kept as it came. */
static char *percent_decode(const uint8_t *value, size_t len) {
  char *out = malloc(len + 1);
  if (out == NULL) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    if (value[i] == '%' && i + 2 < len && hex_value((char)value[i + 1]) >= 0 &&
        hex_value((char)value[i + 2]) >= 0) {
      out[o++] = (char)(hex_value((char)value[i + 1]) * 16 + hex_value((char)value[i + 2]));
      i += 2;
    } else {
      out[o++] = (char)value[i];
    }
  }
  out[o] = '\0';
  return out;
}

/* ---- nghttp2 callbacks ---- */

static ssize_t read_request(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                            uint32_t *data_flags, nghttp2_data_source *source, void *user_data) {
  (void)session;
  (void)stream_id;
  (void)user_data;
  struct h2grpc_call *call = source->ptr;
  size_t left = call->request_len - call->request_sent;
  size_t n = left < length ? left : length;
  memcpy(buf, call->request + call->request_sent, n);
  call->request_sent += n;
  if (call->request_sent == call->request_len) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return (ssize_t)n;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t name_len,
                     const uint8_t *value, size_t value_len, uint8_t flags, void *user_data) {
  (void)session;
  (void)flags;
  struct h2grpc_conn *conn = user_data;
  struct h2grpc_call *call = conn->call;
  if (call == NULL || frame->hd.type != NGHTTP2_HEADERS || frame->hd.stream_id != call->stream_id) return 0;
#define IS(literal) (name_len == sizeof(literal) - 1 && memcmp(name, literal, name_len) == 0)
  if (IS(":status")) {
    call->http_status = 0;
    for (size_t i = 0; i < value_len && i < 3; i++) call->http_status = call->http_status * 10 + (value[i] - '0');
  } else if (IS("grpc-status")) {
    int status = 0;
    int ok = value_len > 0 && value_len <= 3;
    for (size_t i = 0; ok && i < value_len; i++) {
      if (value[i] < '0' || value[i] > '9') ok = 0;
      status = status * 10 + (value[i] - '0');
    }
    call->grpc_status = ok ? status : 2; /* UNKNOWN, as the spec says for an unparsable status */
  } else if (IS("grpc-message")) {
    free(call->grpc_message);
    call->grpc_message = percent_decode(value, value_len);
    if (call->grpc_message == NULL) return NGHTTP2_ERR_CALLBACK_FAILURE;
  } else if (IS("content-type")) {
    free(call->content_type);
    call->content_type = dup_bytes(value, value_len);
    if (call->content_type == NULL) return NGHTTP2_ERR_CALLBACK_FAILURE;
  } else if (IS("grpc-encoding")) {
    free(call->grpc_encoding);
    call->grpc_encoding = dup_bytes(value, value_len);
    if (call->grpc_encoding == NULL) return NGHTTP2_ERR_CALLBACK_FAILURE;
  }
#undef IS
  return 0;
}

/* DATA may arrive in any number of frames, and a frame in any number of reads: append it all. */
static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
                         size_t len, void *user_data) {
  (void)session;
  (void)flags;
  struct h2grpc_conn *conn = user_data;
  struct h2grpc_call *call = conn->call;
  if (call == NULL || stream_id != call->stream_id || call->too_large) return 0;
  if (call->body_len + len > MAX_RESPONSE_BYTES) {
    call->too_large = 1;
    return 0;
  }
  if (call->body_len + len > call->body_cap) {
    size_t cap = call->body_cap ? call->body_cap : 4096;
    while (cap < call->body_len + len) cap *= 2;
    uint8_t *grown = realloc(call->body, cap);
    if (grown == NULL) return NGHTTP2_ERR_CALLBACK_FAILURE;
    call->body = grown;
    call->body_cap = cap;
  }
  memcpy(call->body + call->body_len, data, len);
  call->body_len += len;
  return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
  (void)session;
  struct h2grpc_conn *conn = user_data;
  if (conn->call != NULL && stream_id == conn->call->stream_id) {
    conn->call->closed = 1;
    conn->call->close_error = error_code;
  }
  return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
  (void)session;
  struct h2grpc_conn *conn = user_data;
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    conn->goaway = 1;
    conn->goaway_error = frame->goaway.error_code;
  }
  return 0;
}

/* ---- socket I/O ---- */

static int send_all(h2grpc_conn *conn, const uint8_t *data, size_t len, int64_t deadline, char *err, size_t err_len) {
  while (len > 0) {
    ssize_t n = send(conn->fd, data, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int ready = wait_for(conn->fd, POLLOUT, deadline);
      if (ready == 0) {
        set_err(err, err_len, "timed out writing to the server");
        return -1;
      }
      if (ready < 0) {
        set_err(err, err_len, "poll: %s", strerror(errno));
        return -1;
      }
      continue;
    }
    if (n < 0) {
      set_err(err, err_len, "send: %s", strerror(errno));
      return -1;
    }
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Writes what the session has to send, then reads until `*done` or the deadline. */
static int pump(h2grpc_conn *conn, const int *done, int64_t deadline, char *err, size_t err_len) {
  uint8_t buf[16384];
  for (;;) {
    for (;;) {
      const uint8_t *data = NULL;
      ssize_t n = nghttp2_session_mem_send(conn->session, &data);
      if (n < 0) {
        set_err(err, err_len, "HTTP/2: %s", nghttp2_strerror((int)n));
        return -1;
      }
      if (n == 0) break;
      if (send_all(conn, data, (size_t)n, deadline, err, err_len) < 0) return -1;
    }
    if (done == NULL || *done) return 0;
    if (!nghttp2_session_want_read(conn->session)) {
      set_err(err, err_len, "the HTTP/2 session ended before the answer came%s (is %s a gRPC server?)",
              conn->goaway ? " (GOAWAY)" : "", conn->authority);
      return -1;
    }
    int ready = wait_for(conn->fd, POLLIN, deadline);
    if (ready == 0) {
      set_err(err, err_len, "no answer within %d ms", conn->timeout_ms);
      return -1;
    }
    if (ready < 0) {
      set_err(err, err_len, "poll: %s", strerror(errno));
      return -1;
    }
    ssize_t n = recv(conn->fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n < 0) {
      set_err(err, err_len, "recv: %s", strerror(errno));
      return -1;
    }
    if (n == 0) {
      set_err(err, err_len, "the server closed the connection%s%s", conn->goaway ? " after GOAWAY " : "",
              conn->goaway ? nghttp2_http2_strerror(conn->goaway_error) : "");
      return -1;
    }
    ssize_t used = nghttp2_session_mem_recv(conn->session, buf, (size_t)n);
    if (used < 0) {
      set_err(err, err_len, "HTTP/2: %s", nghttp2_strerror((int)used));
      return -1;
    }
  }
}

/* ---- connection ---- */

static int split_target(const char *target, char *host, size_t host_len, char *port, size_t port_len) {
  const char *colon;
  const char *host_start = target;
  size_t hl;
  if (target[0] == '[') {
    const char *close = strchr(target, ']');
    if (close == NULL || close[1] != ':') return -1;
    host_start = target + 1;
    hl = (size_t)(close - host_start);
    colon = close + 1;
  } else {
    colon = strrchr(target, ':');
    if (colon == NULL) return -1;
    hl = (size_t)(colon - target);
  }
  size_t pl = strlen(colon + 1);
  if (hl == 0 || hl >= host_len || pl == 0 || pl >= port_len) return -1;
  memcpy(host, host_start, hl);
  host[hl] = '\0';
  memcpy(port, colon + 1, pl + 1);
  return 0;
}

static int connect_socket(const char *host, const char *port, int64_t deadline, char *err, size_t err_len) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *addresses = NULL;
  int rv = getaddrinfo(host, port, &hints, &addresses);
  if (rv != 0) {
    set_err(err, err_len, "%s:%s: %s", host, port, gai_strerror(rv));
    return -1;
  }
  int fd = -1;
  set_err(err, err_len, "connect to %s:%s: no usable address", host, port);
  for (struct addrinfo *a = addresses; a != NULL; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
    int soerr = 0;
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
      soerr = errno;
      if (soerr == EINPROGRESS) {
        int ready = wait_for(fd, POLLOUT, deadline);
        socklen_t len = sizeof soerr;
        if (ready <= 0) soerr = ready == 0 ? ETIMEDOUT : errno;
        else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0) soerr = errno;
      }
    }
    if (soerr == 0) break;
    set_err(err, err_len, "connect to %s:%s: %s", host, port, strerror(soerr));
    close(fd);
    fd = -1;
  }
  freeaddrinfo(addresses);
  if (fd >= 0) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

h2grpc_conn *h2grpc_connect(const char *target, int timeout_ms, char *err, size_t err_len) {
  char host[256], port[16];
  if (split_target(target, host, sizeof host, port, sizeof port) < 0) {
    set_err(err, err_len, "target \"%s\" is not HOST:PORT", target);
    return NULL;
  }
  h2grpc_conn *conn = calloc(1, sizeof *conn);
  if (conn == NULL) {
    set_err(err, err_len, "out of memory");
    return NULL;
  }
  conn->timeout_ms = timeout_ms;
  conn->authority = dup_bytes((const uint8_t *)target, strlen(target));
  conn->fd = connect_socket(host, port, now_ms() + timeout_ms, err, err_len);
  if (conn->authority == NULL || conn->fd < 0) {
    if (conn->authority == NULL) set_err(err, err_len, "out of memory");
    h2grpc_close(conn);
    return NULL;
  }

  nghttp2_session_callbacks *callbacks;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) {
    set_err(err, err_len, "out of memory");
    h2grpc_close(conn);
    return NULL;
  }
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
  int rv = nghttp2_session_client_new(&conn->session, callbacks, conn);
  nghttp2_session_callbacks_del(callbacks);
  if (rv != 0) {
    set_err(err, err_len, "HTTP/2 session: %s", nghttp2_strerror(rv));
    h2grpc_close(conn);
    return NULL;
  }
  /* The client preface goes out with these settings on the first pump. */
  nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                       {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}};
  rv = nghttp2_submit_settings(conn->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]);
  if (rv != 0 || pump(conn, NULL, now_ms() + timeout_ms, err, err_len) < 0) {
    if (rv != 0) set_err(err, err_len, "HTTP/2 settings: %s", nghttp2_strerror(rv));
    h2grpc_close(conn);
    return NULL;
  }
  return conn;
}

static void free_call(struct h2grpc_call *call) {
  free(call->request);
  free(call->grpc_message);
  free(call->content_type);
  free(call->grpc_encoding);
  free(call->body);
}

/* The single message of a unary response: checks the 5-byte prefixes of everything that came. */
static int take_message(struct h2grpc_call *call, h2grpc_result *out, char *err, size_t err_len) {
  size_t offset = 0, count = 0, start = 0, len = 0;
  while (offset < call->body_len) {
    if (call->body_len - offset < 5) {
      set_err(err, err_len, "truncated gRPC message prefix (%zu bytes)", call->body_len - offset);
      return -1;
    }
    const uint8_t *prefix = call->body + offset;
    size_t size = (size_t)prefix[1] << 24 | (size_t)prefix[2] << 16 | (size_t)prefix[3] << 8 | prefix[4];
    if (prefix[0] != 0) {
      set_err(err, err_len, "the server sent a compressed message (%s) though none was offered",
              call->grpc_encoding ? call->grpc_encoding : "no grpc-encoding");
      return -1;
    }
    if (size > call->body_len - offset - 5) {
      set_err(err, err_len, "truncated gRPC message: %zu of %zu bytes", call->body_len - offset - 5, size);
      return -1;
    }
    start = offset + 5;
    len = size;
    offset = start + size;
    count++;
  }
  if (count != 1) {
    set_err(err, err_len, "a unary call answered %zu messages", count);
    return -1;
  }
  memmove(call->body, call->body + start, len);
  out->message = call->body;
  out->message_len = len;
  call->body = NULL;
  return 0;
}

int h2grpc_unary(h2grpc_conn *conn, const char *path, const uint8_t *request, size_t request_len,
                 h2grpc_result *out, char *err, size_t err_len) {
  memset(out, 0, sizeof *out);
  out->grpc_status = -1;
  if (conn->broken) {
    set_err(err, err_len, "the connection failed earlier");
    return -1;
  }
  if (request_len > 0xffffffffu) {
    set_err(err, err_len, "request too large");
    return -1;
  }
  struct h2grpc_call call = {.grpc_status = -1, .request_len = request_len + 5};
  call.request = malloc(call.request_len);
  if (call.request == NULL) {
    set_err(err, err_len, "out of memory");
    return -1;
  }
  call.request[0] = 0; /* not compressed */
  call.request[1] = (uint8_t)(request_len >> 24);
  call.request[2] = (uint8_t)(request_len >> 16);
  call.request[3] = (uint8_t)(request_len >> 8);
  call.request[4] = (uint8_t)request_len;
  if (request_len > 0) memcpy(call.request + 5, request, request_len);

  char timeout[16];
  snprintf(timeout, sizeof timeout, "%dm", conn->timeout_ms);
  char user_agent[64];
  snprintf(user_agent, sizeof user_agent, "intentmesh-c/1.0 nghttp2/%s", nghttp2_version(0)->version_str);
#define HEADER(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}
  nghttp2_nv headers[] = {
      HEADER(":method", "POST"),
      HEADER(":scheme", "http"),
      HEADER(":path", path),
      HEADER(":authority", conn->authority),
      HEADER("content-type", "application/grpc"),
      HEADER("te", "trailers"),
      HEADER("grpc-timeout", timeout),
      HEADER("user-agent", user_agent),
      HEADER("authorization", conn->authorization ? conn->authorization : ""),
  };
#undef HEADER
  /* The credential goes last, and only when there is one; never indexed by HPACK. */
  size_t header_count = sizeof headers / sizeof headers[0] - (conn->authorization ? 0 : 1);
  headers[header_count - 1].flags |= conn->authorization ? NGHTTP2_NV_FLAG_NO_INDEX : 0;
  nghttp2_data_provider provider = {.source = {.ptr = &call}, .read_callback = read_request};
  int64_t deadline = now_ms() + conn->timeout_ms;
  int rv = 0;
  call.stream_id =
      nghttp2_submit_request(conn->session, NULL, headers, header_count, &provider, NULL);
  if (call.stream_id < 0) {
    set_err(err, err_len, "HTTP/2 request: %s", nghttp2_strerror(call.stream_id));
    rv = -1;
  } else {
    conn->call = &call;
    rv = pump(conn, &call.closed, deadline, err, err_len);
    conn->call = NULL;
  }
  if (rv < 0) {
    conn->broken = 1;
  } else if (call.close_error != NGHTTP2_NO_ERROR) {
    set_err(err, err_len, "the server reset the stream: %s", nghttp2_http2_strerror(call.close_error));
    rv = -1;
  } else if (call.too_large) {
    set_err(err, err_len, "the response is larger than %u bytes", MAX_RESPONSE_BYTES);
    rv = -1;
  } else if (call.grpc_status < 0) {
    set_err(err, err_len, "HTTP %d (%s) without grpc-status: is this a gRPC server?", call.http_status,
            call.content_type ? call.content_type : "no content-type");
    rv = -1;
  } else if (call.grpc_status == 0 &&
             (call.content_type == NULL || strncmp(call.content_type, "application/grpc", 16) != 0)) {
    set_err(err, err_len, "unexpected content-type %s", call.content_type ? call.content_type : "(none)");
    rv = -1;
  } else if (call.grpc_status == 0 && take_message(&call, out, err, err_len) < 0) {
    rv = -1;
  }
  if (rv == 0) {
    out->http_status = call.http_status;
    out->grpc_status = call.grpc_status;
    out->grpc_message = call.grpc_message;
    call.grpc_message = NULL;
  }
  free_call(&call);
  return rv;
}

void h2grpc_result_free(h2grpc_result *result) {
  if (result == NULL) return;
  free(result->grpc_message);
  free(result->message);
  memset(result, 0, sizeof *result);
}

int h2grpc_set_bearer_token(h2grpc_conn *conn, const char *token) {
  free(conn->authorization);
  conn->authorization = NULL;
  if (token == NULL || *token == '\0') return 0;
  size_t len = strlen("Bearer ") + strlen(token) + 1;
  conn->authorization = malloc(len);
  if (conn->authorization == NULL) return -1;
  snprintf(conn->authorization, len, "Bearer %s", token);
  return 0;
}

void h2grpc_close(h2grpc_conn *conn) {
  if (conn == NULL) return;
  if (conn->session != NULL) {
    if (!conn->broken && nghttp2_session_terminate_session(conn->session, NGHTTP2_NO_ERROR) == 0)
      pump(conn, NULL, now_ms() + 1000, NULL, 0);
    nghttp2_session_del(conn->session);
  }
  if (conn->fd >= 0) close(conn->fd);
  free(conn->authority);
  free(conn->authorization);
  free(conn);
}

const char *h2grpc_status_name(int code) {
  static const char *const names[] = {
      "OK",        "CANCELLED",          "UNKNOWN",          "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS",     "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",       "UNIMPLEMENTED",    "INTERNAL",         "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED",
  };
  return code >= 0 && code < (int)(sizeof names / sizeof names[0]) ? names[code] : "UNKNOWN_CODE";
}
