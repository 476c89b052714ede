/* The tool table and tools/list rendering (see tools.h). */
#include "tools.h"

#include <string.h>

/* Each tool's definition lives in its own file (tool_<name>.c). */
extern const struct tool_def tool_execute;
extern const struct tool_def tool_get_sandbox_info;

static const struct tool_def *const tool_table[] = {
    &tool_execute,
    &tool_get_sandbox_info,
};

#define TOOL_COUNT (sizeof(tool_table) / sizeof(tool_table[0]))

const struct tool_def *tools_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < TOOL_COUNT; i++)
		if (strcmp(tool_table[i]->name, name) == 0)
			return tool_table[i];
	return NULL;
}

static bool add_schema(cJSON *tool, const char *key, const char *text)
{
	cJSON *schema = cJSON_Parse(text);
	if (!schema)
		return false;
	if (!cJSON_AddItemToObject(tool, key, schema)) {
		cJSON_Delete(schema);
		return false;
	}
	return true;
}

static bool add_annotations(cJSON *tool, const struct tool_def *def)
{
	const struct tool_annotations *a = &def->annotations;
	cJSON *ann = cJSON_AddObjectToObject(tool, "annotations");

	return ann && (!def->title || cJSON_AddStringToObject(ann, "title", def->title)) &&
	       cJSON_AddBoolToObject(ann, "readOnlyHint", a->read_only) &&
	       cJSON_AddBoolToObject(ann, "destructiveHint", a->destructive) &&
	       cJSON_AddBoolToObject(ann, "idempotentHint", a->idempotent) &&
	       cJSON_AddBoolToObject(ann, "openWorldHint", a->open_world);
}

static cJSON *tool_json(const struct tool_def *def, enum mcp_version v)
{
	cJSON *tool = cJSON_CreateObject();
	bool ok = tool && cJSON_AddStringToObject(tool, "name", def->name);

	if (ok && def->title && v >= MCP_2025_06_18)
		ok = cJSON_AddStringToObject(tool, "title", def->title) != NULL;
	ok = ok && cJSON_AddStringToObject(tool, "description", def->description);
	ok = ok && add_schema(tool, "inputSchema", def->input_schema);
	if (ok && def->output_schema && v >= MCP_2025_06_18)
		ok = add_schema(tool, "outputSchema", def->output_schema);
	if (ok && v >= MCP_2025_03_26)
		ok = add_annotations(tool, def);
	if (!ok) {
		cJSON_Delete(tool);
		return NULL;
	}
	return tool;
}

cJSON *tools_list_json(enum mcp_version v)
{
	cJSON *tools = cJSON_CreateArray();
	if (!tools)
		return NULL;
	for (size_t i = 0; i < TOOL_COUNT; i++) {
		cJSON *tool = tool_json(tool_table[i], v);
		if (!tool || !cJSON_AddItemToArray(tools, tool)) {
			cJSON_Delete(tool);
			cJSON_Delete(tools);
			return NULL;
		}
	}
	return tools;
}

/* The tool table never changes while the process runs, so each revision's
 * array is built and printed once; tools/list is the hottest request. */
const char *tools_list_result_text(enum mcp_version v)
{
	static char *cache[MCP_VERSION_LATEST + 1];
	if ((unsigned)v > MCP_VERSION_LATEST)
		return NULL;
	if (!cache[v]) {
		cJSON *result = cJSON_CreateObject();
		cJSON *tools = tools_list_json(v);
		if (result && tools && cJSON_AddItemToObject(result, "tools", tools))
			cache[v] = cJSON_PrintUnformatted(result);
		else
			cJSON_Delete(tools);
		cJSON_Delete(result);
	}
	return cache[v];
}
