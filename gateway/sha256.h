/* SHA-256 for key hashes, code hashes and the audit chain. */
#ifndef CELLGATE_SHA256_H
#define CELLGATE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

/* 0, or -EIO when libcrypto fails.  Not thread-safe: the gateway digests
 * from its one event loop thread (and the CLI commands from main). */
int sha256_digest(const void *data, size_t len, uint8_t out[SHA256_BYTES]);

#endif
