/* `cellgate audit verify FILE` (see audit_cli.h). */
#include "audit_cli.h"

#include <stdio.h>
#include <string.h>

#include "audit.h"

static int usage(FILE *f, int status)
{
	fprintf(f, "usage: cellgate audit verify FILE\n"
		   "  Checks the audit file's hash chain: prints \"ok: N records, head HASH\"\n"
		   "  (exit 0) or the first broken record (exit 1); 2 on usage or I/O errors.\n");
	return status;
}

int audit_cli(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
		return usage(stdout, 0);
	if (argc != 3 || strcmp(argv[1], "verify") != 0)
		return usage(stderr, 2);
	int rc = audit_verify_file(argv[2], stdout);
	/* A result nobody could read (e.g. stdout closed) is not a result. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cellgate audit: cannot write the result\n");
		return 2;
	}
	return rc;
}
