/* intentmesh-send: sends a UnicornChat message through the IntentMesh gateway's Interact, the
 * conversation Siri has with the user, and prints every turn: the resolution of each parameter,
 * the prompt, the app's answer and the layout Siri would draw.
 *
 *   intentmesh-send --target 127.0.0.1:50060 --to "Sparkle Sparkly" --say "Ready for the talk?"
 *
 * Messages are the protoc-c structs generated from Protos/; the call is gRPC over HTTP/2
 * cleartext made with libnghttp2 (h2grpc.c). The conversation is stateless: each turn sends back
 * the intent the gateway returned. The client answers "yes" to the confirmation prompt ("Ready to
 * send it?"); a parameter that needs the user (a value, a choice, another recipient) ends the run.
 *
 * Exit status: 0 handled (stage DONE); 1 usage, connection or protocol error; 2 a parameter needs
 * the user; 3 the app refused (stage FAILED); 4 the call failed with a gRPC status. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "google/protobuf/any.pb-c.h"
#include "h2grpc.h"
#include "intentmesh/gateway/v1/gateway.pb-c.h"
#include "intentmesh/messaging/v1/messaging.pb-c.h"

#define INTERACT_PATH "/intentmesh.gateway.v1.Gateway/Interact"
#define TYPE_URL_PREFIX "type.googleapis.com/"
#define MAX_TURNS 4
#define MAX_RECIPIENTS 16

enum { EXIT_DONE = 0, EXIT_ERROR = 1, EXIT_NEEDS_USER = 2, EXIT_REFUSED = 3, EXIT_STATUS = 4 };

typedef struct {
  const char *target;
  const char *token;
  const char *say;
  const char *app;
  const char *intent_class;
  const char *locale;
  const char *time_zone;
  const char *recipients[MAX_RECIPIENTS];
  size_t n_recipients;
  int timeout_seconds;
} options;

static const char *program = "intentmesh-send";

static void usage(FILE *out) {
  fprintf(out,
          "usage: %s [--target HOST:PORT] [--token JWT] [--to NAME]... [--say TEXT] [--app NAME]\n"
          "       [--intent-class CLASS] [--locale TAG] [--time-zone ZONE] [--timeout SECONDS]\n"
          "Sends a message through the gateway's Interact and prints each turn of the conversation.\n"
          "The user is the token's (--token, or env INTENTMESH_TOKEN; `intentmesh token --user NAME` prints one).\n"
          "defaults: --target 127.0.0.1:50060 --to \"Sparkle Sparkly\" --say \"Are you ready for your talk?\"\n"
          "          --app UnicornChat --intent-class INSendMessageIntent --locale en-US\n"
          "          --time-zone Europe/Zurich --timeout 10\n"
          "exit: 0 sent; 1 usage or connection error; 2 a parameter needs you; 3 the app refused;\n"
          "      4 the gateway answered a gRPC error\n",
          program);
}

static int parse_options(int argc, char **argv, options *opts) {
  *opts = (options){.target = "127.0.0.1:50060",
                    .token = getenv("INTENTMESH_TOKEN"),
                    .say = "Are you ready for your talk?",
                    .app = "UnicornChat",
                    .intent_class = "INSendMessageIntent",
                    .locale = "en-US",
                    .time_zone = "Europe/Zurich",
                    .timeout_seconds = 10};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(stdout);
      exit(EXIT_DONE);
    }
    const char *value = NULL;
    size_t name_len = strlen(arg);
    const char *equals = strchr(arg, '=');
    if (strncmp(arg, "--", 2) == 0 && equals != NULL) {
      name_len = (size_t)(equals - arg);
      value = equals + 1;
    } else if (i + 1 < argc) {
      value = argv[i + 1];
    }
#define OPTION(name) (name_len == sizeof(name) - 1 && strncmp(arg, name, name_len) == 0)
    const char **slot = NULL;
    if (OPTION("--target")) slot = &opts->target;
    else if (OPTION("--token")) slot = &opts->token;
    else if (OPTION("--say")) slot = &opts->say;
    else if (OPTION("--app")) slot = &opts->app;
    else if (OPTION("--intent-class")) slot = &opts->intent_class;
    else if (OPTION("--locale")) slot = &opts->locale;
    else if (OPTION("--time-zone")) slot = &opts->time_zone;
    else if (OPTION("--to")) {
      if (opts->n_recipients == MAX_RECIPIENTS) {
        fprintf(stderr, "%s: at most %d recipients\n", program, MAX_RECIPIENTS);
        return -1;
      }
      slot = &opts->recipients[opts->n_recipients++];
    } else if (!OPTION("--timeout")) {
      fprintf(stderr, "%s: unknown option %s\n", program, arg);
      usage(stderr);
      return -1;
    }
#undef OPTION
    if (value == NULL) {
      fprintf(stderr, "%s: %s needs a value\n", program, arg);
      return -1;
    }
    if (slot != NULL) {
      *slot = value;
    } else {
      char *end;
      long seconds = strtol(value, &end, 10);
      if (*end != '\0' || seconds < 1 || seconds > 3600) {
        fprintf(stderr, "%s: --timeout takes 1 to 3600 seconds\n", program);
        return -1;
      }
      opts->timeout_seconds = (int)seconds;
    }
    if (equals == NULL) i++;
  }
  if (opts->n_recipients == 0) opts->recipients[opts->n_recipients++] = "Sparkle Sparkly";
  return 0;
}

/* A random (version 4) UUID, as the Python client makes; empty lets the gateway make one. */
static void make_identifier(char out[37]) {
  unsigned char b[16];
  out[0] = '\0';
  FILE *random = fopen("/dev/urandom", "rb");
  if (random == NULL) return;
  size_t got = fread(b, 1, sizeof b, random);
  fclose(random);
  if (got != sizeof b) return;
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
           b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* ---- printing ---- */

static const char *enum_name(const ProtobufCEnumDescriptor *descriptor, int value) {
  const ProtobufCEnumValue *found = protobuf_c_enum_descriptor_get_value(descriptor, value);
  return found != NULL ? found->name : "?";
}

/* The name of the oneof field a message has set ("success", "needs_value"), from its descriptor. */
static const char *case_name(const ProtobufCMessageDescriptor *descriptor, unsigned case_number) {
  const ProtobufCFieldDescriptor *field = protobuf_c_message_descriptor_get_field(descriptor, case_number);
  return field != NULL ? field->name : "unset";
}

static int is_type(const Google__Protobuf__Any *any, const ProtobufCMessageDescriptor *descriptor) {
  if (any == NULL || any->type_url == NULL) return 0;
  const char *slash = strrchr(any->type_url, '/');
  return slash != NULL && strcmp(slash + 1, descriptor->name) == 0;
}

static void print_result(const char *indent, const Intentmesh__V1__ResolutionResult *result) {
  printf("%s", case_name(&intentmesh__v1__resolution_result__descriptor, result->kind_case));
  switch (result->kind_case) {
  case INTENTMESH__V1__RESOLUTION_RESULT__KIND_SUCCESS:
    if (result->success->value != NULL) printf(": %s", result->success->value->display_text);
    break;
  case INTENTMESH__V1__RESOLUTION_RESULT__KIND_DISAMBIGUATION:
    printf(": %s", result->disambiguation->prompt);
    for (size_t i = 0; i < result->disambiguation->n_options; i++)
      printf("\n%s  option %zu: %s", indent, i + 1, result->disambiguation->options[i]->display_text);
    break;
  case INTENTMESH__V1__RESOLUTION_RESULT__KIND_CONFIRMATION_REQUIRED:
    printf(": %s? %s", result->confirmation_required->value ? result->confirmation_required->value->display_text : "",
           result->confirmation_required->prompt);
    break;
  case INTENTMESH__V1__RESOLUTION_RESULT__KIND_NEEDS_VALUE:
    printf(": %s", result->needs_value->prompt);
    break;
  case INTENTMESH__V1__RESOLUTION_RESULT__KIND_UNSUPPORTED:
    if (result->unsupported->reason != NULL)
      printf(": %s (%s)", result->unsupported->reason->message, result->unsupported->reason->name);
    break;
  default:
    break;
  }
  printf("\n");
}

static void print_resolutions(const Intentmesh__Gateway__V1__InteractResponse *response) {
  for (size_t p = 0; p < response->n_resolutions; p++) {
    const Intentmesh__V1__ParameterResolution *resolution = response->resolutions[p];
    for (size_t r = 0; r < resolution->n_results; r++) {
      if (resolution->is_array && resolution->n_results > 1)
        printf("    %s[%zu]: ", resolution->parameter, r);
      else
        printf("    %s: ", resolution->parameter);
      print_result("    ", resolution->results[r]);
    }
  }
}

static void print_view_node(const Intentmesh__V1__ViewNode *node, int depth) {
  if (node == NULL || depth > 16) return;
  const char *role = node->role != NULL && node->role[0] != '\0' ? node->role : NULL;
  switch (node->node_case) {
  case INTENTMESH__V1__VIEW_NODE__NODE_STACK:
    for (size_t i = 0; i < node->stack->n_children; i++) print_view_node(node->stack->children[i], depth + 1);
    break;
  case INTENTMESH__V1__VIEW_NODE__NODE_TEXT:
    printf("      | %s%s%s%s\n", node->text->text, role ? "  (" : "", role ? role : "", role ? ")" : "");
    break;
  case INTENTMESH__V1__VIEW_NODE__NODE_ROW:
    printf("      | %s: %s\n", node->row->label, node->row->value);
    break;
  case INTENTMESH__V1__VIEW_NODE__NODE_IMAGE:
    printf("      | [image %s, %zu bytes]\n", node->image->image ? node->image->image->content_type : "",
           node->image->image ? node->image->image->data.len : 0);
    break;
  case INTENTMESH__V1__VIEW_NODE__NODE_MAP:
    printf("      | [map, %zu annotation(s)]\n", node->map->n_annotations);
    break;
  default:
    break;
  }
}

static void print_layout(const Intentmesh__Gateway__V1__InteractionLayout *layout) {
  if (layout == NULL) return;
  for (size_t s = 0; s < layout->n_sections; s++) {
    const Intentmesh__Gateway__V1__LayoutSection *section = layout->sections[s];
    if (section->kind == INTENTMESH__GATEWAY__V1__LAYOUT_SECTION__KIND__KIND_APP) {
      printf("    snippet (%s's view", layout->app_name);
      if (section->size != NULL) printf(", %.0fx%.0f", section->size->width, section->size->height);
      printf("):\n");
      if (section->view != NULL) print_view_node(section->view->root, 0);
    } else {
      printf("    snippet (Siri's default view):\n");
      for (size_t v = 0; v < section->n_display_values; v++)
        printf("      | %s: %s\n", section->display_values[v]->label, section->display_values[v]->display_text);
    }
  }
}

static void format_time(const Google__Protobuf__Timestamp *timestamp, char *out, size_t out_len) {
  out[0] = '\0';
  if (timestamp == NULL) return;
  time_t seconds = (time_t)timestamp->seconds;
  struct tm utc;
  if (gmtime_r(&seconds, &utc) != NULL) strftime(out, out_len, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

static void print_answer(const Intentmesh__V1__IntentResponse *answer, const char *step) {
  if (answer == NULL) return;
  printf("    %s: %s (code %d)\n", step, answer->code_name, answer->code);
  const Google__Protobuf__Any *payload = answer->payload;
  if (payload == NULL) return;
  if (!is_type(payload, &intentmesh__messaging__v1__send_message_intent_response__descriptor)) {
    if (payload->value.len > 0) printf("    payload: %s, %zu bytes\n", payload->type_url, payload->value.len);
    return;
  }
  Intentmesh__Messaging__V1__SendMessageIntentResponse *sent =
      intentmesh__messaging__v1__send_message_intent_response__unpack(NULL, payload->value.len, payload->value.data);
  if (sent == NULL) {
    printf("    payload: %s does not parse\n", payload->type_url);
    return;
  }
  for (size_t m = 0; m < sent->n_sent_messages; m++) {
    const Intentmesh__Messaging__V1__Message *message = sent->sent_messages[m];
    char when[32];
    format_time(message->date_sent, when, sizeof when);
    printf("    sent message %s to", message->identifier);
    for (size_t r = 0; r < message->n_recipients; r++)
      printf("%s %s", r ? "," : "", message->recipients[r]->display_name);
    printf(" at %s: \"%s\"\n", when, message->content);
  }
  intentmesh__messaging__v1__send_message_intent_response__free_unpacked(sent, NULL);
}

static void print_turn(int turn, const Intentmesh__Gateway__V1__InteractResponse *response) {
  const char *stage = enum_name(&intentmesh__gateway__v1__interact_response__stage__descriptor, response->stage);
  printf("turn %d: %s (%s, intent %s)\n", turn, stage + (strncmp(stage, "STAGE_", 6) == 0 ? 6 : 0),
         response->app_name, response->intent ? response->intent->identifier : "?");
  printf("  resolutions:\n");
  print_resolutions(response);
  switch (response->stage) {
  case INTENTMESH__GATEWAY__V1__INTERACT_RESPONSE__STAGE__STAGE_NEEDS_PARAMETER:
    printf("  needs %s", response->parameter);
    for (size_t p = 0; p < response->n_resolutions; p++)
      if (strcmp(response->resolutions[p]->parameter, response->parameter) == 0 && response->resolutions[p]->is_array &&
          response->resolutions[p]->n_results > 1)
        printf("[%d]", response->element_index);
    printf("\n  Siri: %s\n", response->prompt);
    break;
  case INTENTMESH__GATEWAY__V1__INTERACT_RESPONSE__STAGE__STAGE_NEEDS_CONFIRMATION:
    printf("  app:\n");
    print_answer(response->response, "confirm");
    print_layout(response->layout);
    printf("  Siri: %s\n", response->prompt);
    break;
  default:
    printf("  app:\n");
    print_answer(response->response, "handle");
    print_layout(response->layout);
    break;
  }
}

/* ---- the conversation ---- */

static int pack_message(const ProtobufCMessage *message, uint8_t **out, size_t *out_len) {
  *out_len = protobuf_c_message_get_packed_size(message);
  *out = malloc(*out_len ? *out_len : 1);
  if (*out == NULL) return -1;
  protobuf_c_message_pack(message, *out);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep the turns and the errors on stderr in order */
  options opts;
  if (parse_options(argc, argv, &opts) < 0) return EXIT_ERROR;

  /* The parameters: intentmesh.messaging.v1.SendMessageIntent, packed into google.protobuf.Any. */
  Intentmesh__V1__Person people[MAX_RECIPIENTS];
  Intentmesh__V1__Person *recipients[MAX_RECIPIENTS];
  for (size_t i = 0; i < opts.n_recipients; i++) {
    intentmesh__v1__person__init(&people[i]);
    people[i].display_name = (char *)opts.recipients[i];
    recipients[i] = &people[i];
  }
  Intentmesh__Messaging__V1__SendMessageIntent message = INTENTMESH__MESSAGING__V1__SEND_MESSAGE_INTENT__INIT;
  message.n_recipients = opts.n_recipients;
  message.recipients = recipients;
  message.content = (char *)opts.say;

  uint8_t *payload_bytes = NULL;
  size_t payload_len = 0;
  if (pack_message(&message.base, &payload_bytes, &payload_len) < 0) {
    fprintf(stderr, "%s: out of memory\n", program);
    return EXIT_ERROR;
  }
  char type_url[128];
  snprintf(type_url, sizeof type_url, TYPE_URL_PREFIX "%s",
           intentmesh__messaging__v1__send_message_intent__descriptor.name);
  Google__Protobuf__Any payload = GOOGLE__PROTOBUF__ANY__INIT;
  payload.type_url = type_url;
  payload.value.data = payload_bytes;
  payload.value.len = payload_len;

  char identifier[37];
  make_identifier(identifier);
  Intentmesh__V1__Intent intent = INTENTMESH__V1__INTENT__INIT;
  intent.intent_class = (char *)opts.intent_class;
  intent.identifier = identifier;
  intent.payload = &payload;
  intent.app_name = (char *)opts.app;

  Intentmesh__V1__RequestContext context = INTENTMESH__V1__REQUEST_CONTEXT__INIT;
  context.locale = (char *)opts.locale;
  context.time_zone = (char *)opts.time_zone;

  Intentmesh__Gateway__V1__InteractRequest request = INTENTMESH__GATEWAY__V1__INTERACT_REQUEST__INIT;
  request.context = &context;
  request.intent = &intent;

  printf("%s %s to", opts.intent_class, opts.app);
  for (size_t i = 0; i < opts.n_recipients; i++) printf("%s %s", i ? "," : "", opts.recipients[i]);
  printf(": \"%s\" (gateway %s)\n", opts.say, opts.target);

  char err[256];
  int status = EXIT_ERROR;
  Intentmesh__Gateway__V1__InteractResponse *previous = NULL;
  h2grpc_conn *conn = h2grpc_connect(opts.target, opts.timeout_seconds * 1000, err, sizeof err);
  if (conn == NULL) {
    fprintf(stderr, "%s: %s\n", program, err);
    goto done;
  }
  if (opts.token == NULL || *opts.token == '\0') {
    fprintf(stderr, "%s: no token: pass --token or set INTENTMESH_TOKEN (intentmesh token --user NAME)\n", program);
    goto done;
  }
  if (h2grpc_set_bearer_token(conn, opts.token) < 0) {
    fprintf(stderr, "%s: out of memory\n", program);
    goto done;
  }
  for (int turn = 1;; turn++) {
    if (turn > MAX_TURNS) {
      fprintf(stderr, "%s: no answer after %d turns\n", program, MAX_TURNS);
      status = EXIT_ERROR;
      break;
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (pack_message(&request.base, &bytes, &len) < 0) {
      fprintf(stderr, "%s: out of memory\n", program);
      break;
    }
    /* The request was packed: the previous turn's answer, which it pointed into, can go. */
    if (previous != NULL) intentmesh__gateway__v1__interact_response__free_unpacked(previous, NULL);
    previous = NULL;

    h2grpc_result result;
    int rv = h2grpc_unary(conn, INTERACT_PATH, bytes, len, &result, err, sizeof err);
    free(bytes);
    if (rv < 0) {
      fprintf(stderr, "%s: Interact: %s\n", program, err);
      status = EXIT_ERROR;
      break;
    }
    if (result.grpc_status != 0) {
      fprintf(stderr, "%s: Interact failed: %s (%d): %s\n", program, h2grpc_status_name(result.grpc_status),
              result.grpc_status, result.grpc_message ? result.grpc_message : "");
      h2grpc_result_free(&result);
      status = EXIT_STATUS;
      break;
    }
    Intentmesh__Gateway__V1__InteractResponse *response =
        intentmesh__gateway__v1__interact_response__unpack(NULL, result.message_len, result.message);
    h2grpc_result_free(&result);
    if (response == NULL) {
      fprintf(stderr, "%s: Interact: the answer is not an InteractResponse\n", program);
      status = EXIT_ERROR;
      break;
    }
    previous = response;
    print_turn(turn, response);

    if (response->stage == INTENTMESH__GATEWAY__V1__INTERACT_RESPONSE__STAGE__STAGE_NEEDS_CONFIRMATION &&
        !request.user_confirmed) {
      /* Say yes, and send back the intent as the gateway resolved it. */
      printf("  user: yes\n");
      request.user_confirmed = 1;
      request.intent = response->intent;
      /* The yes is bound to the answer it was given to: send its confirmation token back. */
      request.confirmation_token = response->confirmation_token;
      continue;
    }
    switch (response->stage) {
    case INTENTMESH__GATEWAY__V1__INTERACT_RESPONSE__STAGE__STAGE_DONE:
      printf("%s: %s\n", response->app_name,
             response->response ? response->response->code_name : "done");
      status = EXIT_DONE;
      break;
    case INTENTMESH__GATEWAY__V1__INTERACT_RESPONSE__STAGE__STAGE_NEEDS_PARAMETER:
      fprintf(stderr, "%s: not sent: %s needs an answer: %s\n", program, response->parameter, response->prompt);
      status = EXIT_NEEDS_USER;
      break;
    case INTENTMESH__GATEWAY__V1__INTERACT_RESPONSE__STAGE__STAGE_FAILED:
      fprintf(stderr, "%s: not sent: %s answered %s\n", program, response->app_name,
              response->response ? response->response->code_name : "failed");
      status = EXIT_REFUSED;
      break;
    case INTENTMESH__GATEWAY__V1__INTERACT_RESPONSE__STAGE__STAGE_NEEDS_CONFIRMATION:
      fprintf(stderr, "%s: the gateway asked to confirm again after the user said yes\n", program);
      status = EXIT_ERROR;
      break;
    default:
      fprintf(stderr, "%s: unexpected stage %d\n", program, response->stage);
      status = EXIT_ERROR;
      break;
    }
    break;
  }

done:
  if (previous != NULL) intentmesh__gateway__v1__interact_response__free_unpacked(previous, NULL);
  h2grpc_close(conn);
  free(payload_bytes);
  return status;
}
