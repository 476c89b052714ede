/* MCP revision names (see mcp_version.h). */
#include "mcp_version.h"

#include <stddef.h>
#include <string.h>

static const char *const version_names[] = {
    [MCP_2024_11_05] = "2024-11-05",
    [MCP_2025_03_26] = "2025-03-26",
    [MCP_2025_06_18] = "2025-06-18",
    [MCP_2025_11_25] = "2025-11-25",
};

enum mcp_version mcp_version_from_string(const char *s)
{
	if (!s)
		return MCP_VERSION_NONE;
	for (int v = MCP_2024_11_05; v <= MCP_VERSION_LATEST; v++)
		if (strcmp(s, version_names[v]) == 0)
			return (enum mcp_version)v;
	return MCP_VERSION_NONE;
}

const char *mcp_version_string(enum mcp_version v)
{
	if (v < MCP_2024_11_05 || v > MCP_VERSION_LATEST)
		return NULL;
	return version_names[v];
}
