#ifndef INTENTMESH_CZLIB_H
#define INTENTMESH_CZLIB_H

#include <stddef.h>
#include <stdint.h>

/// Inflates `input` (gzip when `gzip` is non-zero, else zlib's format) into `output`, which holds
/// `capacity` bytes. Returns the bytes written; -1 when the input is not one whole stream; -2 when
/// the inflated bytes would not fit in `capacity`. zlib's types stay inside this file, so that no
/// module of the package sees zlib.h twice.
int64_t intentmesh_inflate(const uint8_t *input, size_t length, int gzip, uint8_t *output, size_t capacity);

#endif
