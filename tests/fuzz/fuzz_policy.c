/* libFuzzer target for the jailer's policy parser, through its public
 * entry point policy_parse (the text of a policy file, as policy_load
 * hands it over after the file checks).
 *
 * Properties checked, beyond ASan/UBSan and leaks:
 *  - the result is 0 or -EINVAL and the message is NUL-terminated within
 *    its buffer; a failure says why and leaves the policy all zero;
 *  - a policy that parses also passes policy_validate, each profile is
 *    found by name, its zero request resolves to its defaults, and its
 *    HELLO_OK encodes and decodes (the jailer must be able to send it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *err)
{
	fprintf(stderr, "fuzz_policy: %s%s%s\n", what, err ? ": " : "", err ? err : "");
	abort();
}

static struct policy pol;
static const struct policy zero;
static struct ipc_msg msg, back;
static uint8_t wire[IPC_MAX_MSG];

static void check_parsed(const struct policy *p)
{
	char err[512];

	if (policy_validate(p, err, sizeof(err)) != 0)
		fail("a parsed policy fails validation", err);
	if (p->nprofiles > IPC_MAX_PROFILES)
		fail("more profiles than a HELLO_OK holds", NULL);
	for (size_t i = 0; i < p->nprofiles; i++) {
		const struct policy_profile *pr = &p->profiles[i];
		struct ipc_limits none = {0}, eff;
		if (policy_find_profile(p, pr->name) != pr)
			fail("a profile is not found by its name", pr->name);
		if (policy_effective_limits(pr, &none, &eff, err, sizeof(err)) != 0)
			fail("a profile's defaults are refused", err);
		if (memcmp(&eff, &pr->defaults, sizeof(eff)) != 0)
			fail("an empty request does not get the defaults", pr->name);
	}
	memset(&msg, 0, sizeof(msg));
	msg.type = IPC_HELLO_OK;
	policy_to_hello(p, &msg.u.hello_ok);
	if (msg.u.hello_ok.nprofiles != p->nprofiles)
		fail("HELLO_OK lost profiles", NULL);
	int fds[IPC_MAX_FDS];
	size_t nfds = 0;
	ssize_t n = ipc_encode(&msg, wire, sizeof(wire), fds, &nfds);
	if (n < 0)
		fail("the policy's HELLO_OK cannot be encoded", NULL);
	if (ipc_decode(wire, (size_t)n, fds, nfds, &back) != 0)
		fail("the policy's HELLO_OK does not decode", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];

	memset(err, 'x', sizeof(err));
	int r = policy_parse((const char *)data, size, 1000, &pol, err, sizeof(err));
	if (!memchr(err, '\0', sizeof(err)))
		fail("the message is not NUL-terminated", NULL);
	if (r == 0) {
		check_parsed(&pol);
	} else if (r == -EINVAL) {
		if (err[0] == '\0')
			fail("a refused policy comes without a reason", NULL);
		if (memcmp(&pol, &zero, sizeof(pol)) != 0)
			fail("a refused policy left something usable behind", err);
	} else {
		fail("policy_parse returned neither 0 nor -EINVAL", NULL);
	}
	return 0;
}
