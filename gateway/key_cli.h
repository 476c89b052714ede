/* `cellgate key new --tenant NAME`: mint an API key.  The key goes to
 * stdout once and is never stored; the tenants file gets only its hash. */
#ifndef CELLGATE_KEY_CLI_H
#define CELLGATE_KEY_CLI_H

/* argv[0] is "key".  Prints, on success:
 *   line 1: the key
 *   line 2: empty
 *   line 3: "# add to [tenant NAME] in the tenants file:"
 *   line 4: "key = sha256:<64 hex>"
 * Exit status: 0; 2 on a usage error (message on stderr); 1 when no key
 * could be made or written. */
int key_cli(int argc, char **argv);

#endif
