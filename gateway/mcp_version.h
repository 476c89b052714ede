/* MCP protocol revisions the gateway speaks, in chronological order so
 * features can be gated with >= (e.g. outputSchema from 2025-06-18). */
#ifndef CELLGATE_MCP_VERSION_H
#define CELLGATE_MCP_VERSION_H

enum mcp_version {
	MCP_VERSION_NONE = 0, /* not negotiated yet */
	MCP_2024_11_05,
	MCP_2025_03_26, /* tool annotations, JSON-RPC batches (this revision only) */
	MCP_2025_06_18, /* titles, outputSchema / structuredContent */
	MCP_2025_11_25, /* error responses may omit an unreadable id */
	MCP_VERSION_LATEST = MCP_2025_11_25,
};

/* MCP_VERSION_NONE when `s` is not a revision we support. */
enum mcp_version mcp_version_from_string(const char *s);
/* "2025-11-25" etc.; NULL for MCP_VERSION_NONE. */
const char *mcp_version_string(enum mcp_version v);

#endif
