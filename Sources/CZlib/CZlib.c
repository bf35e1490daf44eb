#include "CZlib.h"

#include <string.h>
#include <zlib.h>

int64_t intentmesh_inflate(const uint8_t *input, size_t length, int gzip, uint8_t *output, size_t capacity) {
  z_stream stream;
  memset(&stream, 0, sizeof(stream));
  // 15: the largest window; +16: gzip's header and trailer instead of zlib's.
  if (inflateInit2(&stream, gzip ? 15 + 16 : 15) != Z_OK) return -1;
  stream.next_in = (Bytef *)input;
  stream.avail_in = (uInt)length;
  stream.next_out = output;
  stream.avail_out = (uInt)capacity;
  int status = inflate(&stream, Z_FINISH);
  int64_t written = (int64_t)stream.total_out;
  size_t unread = stream.avail_in;
  inflateEnd(&stream);
  if (status == Z_STREAM_END) return unread == 0 ? written : -1;
  // Out of room with input left, or output full: more bytes than the capacity.
  if (status == Z_BUF_ERROR && stream.avail_out == 0) return -2;
  return -1;
}
