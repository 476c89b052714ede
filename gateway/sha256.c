/* See sha256.h.  The algorithm is fetched once and one context is reused:
 * EVP_Digest(..., EVP_sha256(), ...) makes OpenSSL 3 look the
 * implementation up and allocate a context on every call, which showed in
 * the per-request profile (every HTTP request hashes its API key). */
#include "sha256.h"

#include <errno.h>
#include <openssl/evp.h>

int sha256_digest(const void *data, size_t len, uint8_t out[SHA256_BYTES])
{
	static EVP_MD *md;
	static EVP_MD_CTX *ctx;
	unsigned int n = 0;

	if (!md && !(md = EVP_MD_fetch(NULL, "SHA2-256", NULL)))
		return -EIO;
	if (!ctx && !(ctx = EVP_MD_CTX_new()))
		return -EIO;
	if (EVP_DigestInit_ex2(ctx, md, NULL) != 1 || EVP_DigestUpdate(ctx, data, len) != 1 ||
	    EVP_DigestFinal_ex(ctx, out, &n) != 1 || n != SHA256_BYTES)
		return -EIO;
	return 0;
}
