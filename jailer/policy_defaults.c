/* The jailer's built-in policy: what runs when there is no policy file, and
 * the starting point of every profile a file names. */
#include <string.h>

#include "policy.h"
#include "policy_internal.h"

static const char *const default_ro_paths[] = {
    "/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache", "/etc/alternatives",
};
static const char *const base_env[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"};

/* ---- built-in defaults ---- */

static void profile_base(struct policy_profile *pr, const char *name)
{
	memset(pr, 0, sizeof(*pr));
	(void)pol_copy_str(pr->name, sizeof(pr->name), name);
	pr->nro_paths = sizeof(default_ro_paths) / sizeof(default_ro_paths[0]);
	for (size_t i = 0; i < pr->nro_paths; i++)
		(void)pol_copy_str(pr->ro_paths[i], sizeof(pr->ro_paths[i]), default_ro_paths[i]);
	pr->nenv = sizeof(base_env) / sizeof(base_env[0]);
	for (size_t i = 0; i < pr->nenv; i++)
		(void)pol_copy_str(pr->env[i], sizeof(pr->env[i]), base_env[i]);
	pr->defaults = (struct ipc_limits){
	    .wall_ms = 10000,
	    .cpu_ms = 10000,
	    .memory_bytes = 256ull << 20,
	    .pids = 64,
	    .tmpfs_bytes = 64ull << 20,
	    .output_bytes = 1ull << 20,
	};
	pr->maximum = (struct ipc_limits){
	    .wall_ms = 60000,
	    .cpu_ms = 60000,
	    .memory_bytes = 1ull << 30,
	    .pids = 256,
	    .tmpfs_bytes = 256ull << 20,
	    .output_bytes = 8ull << 20,
	};
	pr->network = false;
}

static void set_args(struct policy_profile *pr, const char *const *args, size_t n)
{
	memset(pr->args, 0, sizeof(pr->args));
	pr->nargs = n;
	for (size_t i = 0; i < n; i++)
		(void)pol_copy_str(pr->args[i], sizeof(pr->args[i]), args[i]);
}

static void profile_python(struct policy_profile *pr)
{
	static const char *const args[] = {"-I", "-B", "-u", "{code}"};

	profile_base(pr, "python");
	(void)pol_copy_str(pr->language, sizeof(pr->language), "python");
	(void)pol_copy_str(pr->interpreter, sizeof(pr->interpreter), "/usr/bin/python3");
	set_args(pr, args, sizeof(args) / sizeof(args[0]));
	(void)pol_copy_str(pr->code_name, sizeof(pr->code_name), "main.py");
	(void)pol_copy_str(pr->env[pr->nenv], sizeof(pr->env[0]), "PYTHONDONTWRITEBYTECODE=1");
	pr->nenv++;
}

static void profile_javascript(struct policy_profile *pr)
{
	static const char *const args[] = {"{code}"};

	profile_base(pr, "javascript");
	(void)pol_copy_str(pr->language, sizeof(pr->language), "javascript");
	(void)pol_copy_str(pr->interpreter, sizeof(pr->interpreter), "/usr/bin/node");
	set_args(pr, args, 1);
	(void)pol_copy_str(pr->code_name, sizeof(pr->code_name), "main.js");
}

/* A profile the file introduces: python's limits and the generic paths and
 * environment; language, interpreter and code_name must come from the file. */
void pol_profile_new(struct policy_profile *pr, const char *name)
{
	static const char *const args[] = {"{code}"};

	profile_base(pr, name);
	set_args(pr, args, 1);
}

bool pol_profile_builtin(struct policy_profile *pr, const char *name)
{
	if (strcmp(name, "python") == 0) {
		profile_python(pr);
		return true;
	}
	if (strcmp(name, "javascript") == 0) {
		profile_javascript(pr);
		return true;
	}
	return false;
}

void policy_defaults(struct policy *p, uid_t starter_uid)
{
	memset(p, 0, sizeof(*p));
	p->nallow_uids = 1;
	p->allow_uids[0] = starter_uid;
	p->uid_base = 2000000000u;
	p->gid_base = 2000000000u;
	p->uid_count = 256;
	p->max_jobs = 64;
	p->sandbox_uid = 1000;
	p->sandbox_gid = 1000;
	(void)pol_copy_str(p->hostname, sizeof(p->hostname), "cellgate");
	p->cgroup = CGROUP_AUTO;
	p->v1_favordynmods = true;
	p->nprofiles = 2;
	profile_python(&p->profiles[0]);
	profile_javascript(&p->profiles[1]);
}
