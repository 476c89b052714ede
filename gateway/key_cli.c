/* `cellgate key new --tenant NAME` (key_cli.h). */
#include "key_cli.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tenants.h"

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "cellgate key: %s\n", why);
	fprintf(stderr,
		"usage: cellgate key new --tenant NAME\n"
		"  NAME: 1-%d characters of [a-z0-9_-], as in [tenant NAME]\n",
		TENANT_NAME_MAX);
	return 2;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > TENANT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

int key_cli(int argc, char **argv)
{
	char key[TENANT_KEY_LEN + 1], line[TENANT_KEY_LINE_LEN + 1];
	const char *tenant = NULL;
	int r, status = 0;

	if (argc < 2)
		return usage("missing subcommand");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		printf("usage: cellgate key new --tenant NAME\n");
		return 0;
	}
	if (strcmp(argv[1], "new") != 0)
		return usage("unknown subcommand (only 'new')");
	/* Parsed by hand: main may already have run getopt over its own
	 * options, and its state is global. */
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;

		if (strcmp(a, "--tenant") == 0) {
			if (i + 1 >= argc)
				return usage("--tenant needs a NAME");
			v = argv[++i];
		} else if (strncmp(a, "--tenant=", 9) == 0) {
			v = a + 9;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			printf("usage: cellgate key new --tenant NAME\n");
			return 0;
		} else {
			fprintf(stderr, "cellgate key new: unexpected argument '%s'\n", a);
			return usage(NULL);
		}
		if (tenant)
			return usage("--tenant given twice");
		tenant = v;
	}
	if (!tenant)
		return usage("--tenant NAME is required");
	if (!valid_name(tenant))
		return usage("the tenant name is not 1-63 characters of [a-z0-9_-]");

	r = tenant_key_generate(key, sizeof(key), line, sizeof(line));
	if (r < 0) {
		fprintf(stderr, "cellgate key new: cannot make a key: %s\n", strerror(-r));
		return 1;
	}
	printf("%s\n\n# add to [tenant %s] in the tenants file:\nkey = %s\n", key, tenant, line);
	/* A key that did not reach the terminal (closed or full stdout) must
	 * not look minted. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cellgate key new: cannot write the key: %s\n", strerror(errno));
		status = 1;
	}
	OPENSSL_cleanse(key, sizeof(key));
	return status;
}
