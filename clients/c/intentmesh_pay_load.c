/* intentmesh-pay-load: the load of scripts/bench-payments — N payments of 1.00 USD from the token's
 * user to Buttercup, each Confirm, then Handle with Confirm's confirmation token and an intent
 * identifier of its own, made by C threads (one HTTP/2 connection each, libnghttp2 through
 * h2grpc.c) straight to payments-service. It costs the machine a small part of what a Python
 * client does per payment, so the figure is the service's.
 *
 *   intentmesh-pay-load --target 127.0.0.1:50062 --payments 1200 --concurrency 16 [--round 1]
 *
 * The token is $INTENTMESH_TOKEN. Every Handle must answer "success" and not be a replay; the
 * balance is audited by the caller. Prints one line:
 *   result round=R concurrency=C payments=N rate=P/s p50_ms=… p99_ms=…
 * Exit status: 0 every payment succeeded; 1 usage, connection or protocol error; 2 a payment failed. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "google/protobuf/any.pb-c.h"
#include "h2grpc.h"
#include "intentmesh/payments/v1/payments.pb-c.h"
#include "intentmesh/v1/extension_service.pb-c.h"

#define CONFIRM_PATH "/intentmesh.v1.IntentsExtension/Confirm"
#define HANDLE_PATH "/intentmesh.v1.IntentsExtension/Handle"
#define MAX_CONCURRENCY 256

static const char *program = "intentmesh-pay-load";

typedef struct {
  const char *target;
  const char *token;
  const char *round;
  long payments;
  long concurrency;
} options;

/* What the threads share: the next payment to make, each one's latency, and the first failure. */
typedef struct {
  const options *opts;
  const uint8_t *payload; /* SendPaymentIntent, packed: the same for every payment */
  size_t payload_len;
  char run_id[17];
  atomic_long next;
  double *latencies_ms;
  atomic_int failed;
  pthread_mutex_t report;
} shared_state;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int pack_message(const ProtobufCMessage *message, uint8_t **out, size_t *out_len) {
  *out_len = protobuf_c_message_get_packed_size(message);
  *out = malloc(*out_len ? *out_len : 1);
  if (*out == NULL) return -1;
  protobuf_c_message_pack(message, *out);
  return 0;
}

/* Records the first failure (later ones are counted, not printed). */
static void fail(shared_state *shared, long payment, const char *what) {
  pthread_mutex_lock(&shared->report);
  if (atomic_fetch_add(&shared->failed, 1) == 0) fprintf(stderr, "%s: payment %ld: %s\n", program, payment, what);
  pthread_mutex_unlock(&shared->report);
}

/* Calls `path` with `message`; on success returns the answer's bytes in `result` (the caller frees
 * it), else records why and returns -1. */
static int call(h2grpc_conn *conn, const char *path, const ProtobufCMessage *message, h2grpc_result *result,
                shared_state *shared, long payment) {
  uint8_t *bytes;
  size_t len;
  char err[256];
  if (pack_message(message, &bytes, &len) < 0) {
    fail(shared, payment, "out of memory");
    return -1;
  }
  int rv = h2grpc_unary(conn, path, bytes, len, result, err, sizeof err);
  free(bytes);
  if (rv < 0) {
    fail(shared, payment, err);
    return -1;
  }
  if (result->grpc_status != 0) {
    char what[512];
    snprintf(what, sizeof what, "%s: %s: %s", path, h2grpc_status_name(result->grpc_status),
             result->grpc_message ? result->grpc_message : "");
    h2grpc_result_free(result);
    fail(shared, payment, what);
    return -1;
  }
  return 0;
}

/* One payment: Confirm, then Handle with the confirmation token. 0 when it succeeded. */
static int pay(h2grpc_conn *conn, shared_state *shared, long payment) {
  char type_url[128];
  snprintf(type_url, sizeof type_url, "type.googleapis.com/%s", intentmesh__payments__v1__send_payment_intent__descriptor.name);
  Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT;
  any.type_url = type_url;
  any.value.data = (uint8_t *)shared->payload;
  any.value.len = shared->payload_len;
  char identifier[64];
  snprintf(identifier, sizeof identifier, "bench-%s-%ld", shared->run_id, payment);
  Intentmesh__V1__Intent intent = INTENTMESH__V1__INTENT__INIT;
  intent.intent_class = "INSendPaymentIntent";
  intent.identifier = identifier;
  intent.payload = &any;
  Intentmesh__V1__RequestContext context = INTENTMESH__V1__REQUEST_CONTEXT__INIT;

  Intentmesh__V1__ConfirmRequest confirm = INTENTMESH__V1__CONFIRM_REQUEST__INIT;
  confirm.context = &context;
  confirm.intent = &intent;
  h2grpc_result result;
  if (call(conn, CONFIRM_PATH, &confirm.base, &result, shared, payment) < 0) return -1;
  Intentmesh__V1__ConfirmResponse *confirmed =
      intentmesh__v1__confirm_response__unpack(NULL, result.message_len, result.message);
  h2grpc_result_free(&result);
  if (confirmed == NULL || confirmed->confirmation_token == NULL || confirmed->confirmation_token[0] == '\0') {
    fail(shared, payment, "Confirm gave no confirmation token");
    if (confirmed != NULL) intentmesh__v1__confirm_response__free_unpacked(confirmed, NULL);
    return -1;
  }

  Intentmesh__V1__HandleRequest handle = INTENTMESH__V1__HANDLE_REQUEST__INIT;
  handle.context = &context;
  handle.intent = &intent;
  handle.confirmation_token = confirmed->confirmation_token;
  int rv = call(conn, HANDLE_PATH, &handle.base, &result, shared, payment);
  intentmesh__v1__confirm_response__free_unpacked(confirmed, NULL);
  if (rv < 0) return -1;
  Intentmesh__V1__HandleResponse *handled =
      intentmesh__v1__handle_response__unpack(NULL, result.message_len, result.message);
  h2grpc_result_free(&result);
  int ok = handled != NULL && handled->response != NULL && handled->response->code_name != NULL &&
           strcmp(handled->response->code_name, "success") == 0 && !handled->replayed;
  if (!ok) {
    char what[256];
    snprintf(what, sizeof what, "Handle answered %s%s",
             handled && handled->response && handled->response->code_name ? handled->response->code_name : "nothing",
             handled && handled->replayed ? " (replayed)" : "");
    fail(shared, payment, what);
  }
  if (handled != NULL) intentmesh__v1__handle_response__free_unpacked(handled, NULL);
  return ok ? 0 : -1;
}

static void *worker(void *argument) {
  shared_state *shared = argument;
  char err[256];
  h2grpc_conn *conn = h2grpc_connect(shared->opts->target, 30000, err, sizeof err);
  if (conn == NULL || h2grpc_set_bearer_token(conn, shared->opts->token) < 0) {
    fail(shared, -1, conn == NULL ? err : "out of memory");
    h2grpc_close(conn);
    return NULL;
  }
  for (;;) {
    long payment = atomic_fetch_add(&shared->next, 1);
    if (payment >= shared->opts->payments) break;
    double started = now_ms();
    if (pay(conn, shared, payment) < 0) break;
    shared->latencies_ms[payment] = now_ms() - started;
  }
  h2grpc_close(conn);
  return NULL;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int parse_options(int argc, char **argv, options *opts) {
  *opts = (options){.target = NULL, .token = getenv("INTENTMESH_TOKEN"), .round = "1", .payments = 1200, .concurrency = 16};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *name = argv[i], *value = argv[i + 1];
    char *end = NULL;
    if (strcmp(name, "--target") == 0) opts->target = value;
    else if (strcmp(name, "--round") == 0) opts->round = value;
    else if (strcmp(name, "--payments") == 0) opts->payments = strtol(value, &end, 10);
    else if (strcmp(name, "--concurrency") == 0) opts->concurrency = strtol(value, &end, 10);
    else {
      fprintf(stderr, "%s: unknown option %s\n", program, name);
      return -1;
    }
    if (end != NULL && *end != '\0') {
      fprintf(stderr, "%s: %s takes a number, not %s\n", program, name, value);
      return -1;
    }
  }
  if (argc % 2 == 0 || opts->target == NULL || opts->payments < 1 || opts->concurrency < 1 ||
      opts->concurrency > MAX_CONCURRENCY) {
    fprintf(stderr, "usage: %s --target HOST:PORT [--payments N] [--concurrency 1..%d] [--round R]\n", program,
            MAX_CONCURRENCY);
    return -1;
  }
  if (opts->token == NULL || opts->token[0] == '\0') {
    fprintf(stderr, "%s: no token: set INTENTMESH_TOKEN (intentmesh token --user diana)\n", program);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  options opts;
  if (parse_options(argc, argv, &opts) < 0) return 1;

  Intentmesh__V1__Person payee = INTENTMESH__V1__PERSON__INIT;
  payee.display_name = "Buttercup";
  Intentmesh__V1__CurrencyAmount amount = INTENTMESH__V1__CURRENCY_AMOUNT__INIT;
  amount.currency_code = "USD";
  amount.units = 1;
  Intentmesh__Payments__V1__SendPaymentIntent payment = INTENTMESH__PAYMENTS__V1__SEND_PAYMENT_INTENT__INIT;
  payment.payee = &payee;
  payment.currency_amount = &amount;

  shared_state shared = {.opts = &opts};
  uint8_t *payload;
  if (pack_message(&payment.base, &payload, &shared.payload_len) < 0) return 1;
  shared.payload = payload;
  atomic_init(&shared.next, 0);
  atomic_init(&shared.failed, 0);
  pthread_mutex_init(&shared.report, NULL);
  shared.latencies_ms = calloc((size_t)opts.payments, sizeof(double));
  if (shared.latencies_ms == NULL) return 1;
  /* Identifiers unique to this run: a rerun against the same database is not a replay. */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(shared.run_id, sizeof shared.run_id, "%08lx%08lx", (unsigned long)ts.tv_sec & 0xffffffffUL,
           (unsigned long)ts.tv_nsec & 0xffffffffUL);

  pthread_t threads[MAX_CONCURRENCY];
  double started = now_ms();
  long created = 0;
  for (; created < opts.concurrency; created++) {
    if (pthread_create(&threads[created], NULL, worker, &shared) != 0) {
      fail(&shared, -1, "cannot start a thread");
      break;
    }
  }
  for (long i = 0; i < created; i++) pthread_join(threads[i], NULL);
  double elapsed_ms = now_ms() - started;
  free(payload);

  int failed = atomic_load(&shared.failed);
  if (failed) {
    fprintf(stderr, "%s: %d payments did not succeed\n", program, failed);
    free(shared.latencies_ms);
    return 2;
  }
  qsort(shared.latencies_ms, (size_t)opts.payments, sizeof(double), by_value);
  long p99 = (long)((double)opts.payments * 0.99);
  if (p99 >= opts.payments) p99 = opts.payments - 1;
  printf("result round=%s concurrency=%ld payments=%ld rate=%.1f p50_ms=%.2f p99_ms=%.2f\n", opts.round,
         opts.concurrency, opts.payments, (double)opts.payments * 1000.0 / elapsed_ms,
         shared.latencies_ms[opts.payments / 2], shared.latencies_ms[p99]);
  free(shared.latencies_ms);
  return 0;
}
