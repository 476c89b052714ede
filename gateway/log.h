/* Gateway logging: stderr only (stdout belongs to the MCP stdio transport).
 * Never log API keys, code, program output or request bodies. */
#ifndef CELLGATE_GATEWAY_LOG_H
#define CELLGATE_GATEWAY_LOG_H

enum gw_log_level { GW_LOG_ERROR = 0, GW_LOG_WARN, GW_LOG_INFO, GW_LOG_DEBUG };

void gw_log_set_level(enum gw_log_level level);
void gw_log(enum gw_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
