/* `cellgate audit ...`: offline tools for the audit log.  For now one
 * subcommand, `cellgate audit verify FILE`, which walks the hash chain (see
 * audit_verify_file in audit.h). */
#ifndef CELLGATE_AUDIT_CLI_H
#define CELLGATE_AUDIT_CLI_H

/* argv[0] is "audit".  Exit status: 0 the chain is intact, 1 it is broken
 * (the first broken record is named on stdout), 2 usage or I/O error. */
int audit_cli(int argc, char **argv);

#endif
