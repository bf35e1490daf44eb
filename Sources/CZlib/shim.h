#include <zlib.h>

/// inflateInit2 is a macro over inflateInit2_, which Swift cannot call.
static inline int czlib_inflate_init(z_stream *stream, int window_bits) {
  return inflateInit2(stream, window_bits);
}
