/* The GPU counter interface's shared parts: the fixed counters of the timestamp and pipeline
 * statistics backends, interning run-time descriptions, the gpu_counters setting. */
#include "pp_gpu_counters.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct pp_gpu_counter_desc pp_gpu_counters_pipeline_statistics[PP_GPU_PIPELINE_STATISTICS_COUNT] = {
	{ "pipeline_statistics", "input_assembly_vertices", "vertices", "input assembly", 1, false,
	  "vertices the input assembly stage fetched" },
	{ "pipeline_statistics", "input_assembly_primitives", "primitives", "input assembly", 1, false,
	  "primitives the input assembly stage assembled" },
	{ "pipeline_statistics", "vertex_shader_invocations", "invocations", "vertex shader", 1, false,
	  "vertex shader invocations" },
	{ "pipeline_statistics", "clipping_invocations", "primitives", "clipping", 1, false,
	  "primitives that reached the clipping stage" },
	{ "pipeline_statistics", "clipping_primitives", "primitives", "clipping", 1, false,
	  "primitives the clipping stage output" },
	{ "pipeline_statistics", "fragment_shader_invocations", "invocations", "fragment shader", 1, false,
	  "fragment shader invocations" },
	{ "pipeline_statistics", "compute_shader_invocations", "invocations", "compute shader", 1, false,
	  "compute shader invocations" },
};

const struct pp_gpu_counter_desc pp_gpu_counters_timestamp = {
	"timestamps", "gpu_time", "ns", "", 1, false,
	"begin to end timestamp of the scope (docs/timing.md)",
};

/* ---- interning ------------------------------------------------------------------------ */

struct interned {
	struct pp_gpu_counter_desc d;
	char *strings; /* every string of d, one allocation */
};

static pthread_mutex_t g_intern_lock = PTHREAD_MUTEX_INITIALIZER;
static struct interned *g_interned[PP_GPU_COUNTER_INTERN_MAX];
static uint32_t g_ninterned;

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

const struct pp_gpu_counter_desc *pp_gpu_counters_intern(const struct pp_gpu_counter_desc *d)
{
	if (!d || !d->source || !d->name)
		return NULL;
	const struct pp_gpu_counter_desc *found = NULL;
	pthread_mutex_lock(&g_intern_lock);
	for (uint32_t i = 0; i < g_ninterned && !found; i++)
		if (!strcmp(g_interned[i]->d.source, d->source) && !strcmp(g_interned[i]->d.name, d->name))
			found = &g_interned[i]->d;
	if (found || g_ninterned == PP_GPU_COUNTER_INTERN_MAX)
		goto out;
	const char *parts[5] = { d->source, d->name, or_empty(d->unit), or_empty(d->block), or_empty(d->description) };
	size_t len = 0;
	for (int i = 0; i < 5; i++)
		len += strlen(parts[i]) + 1;
	struct interned *in = calloc(1, sizeof(*in));
	char *s = malloc(len);
	if (!in || !s) {
		free(in);
		free(s);
		goto out;
	}
	in->strings = s;
	const char *copies[5];
	for (int i = 0; i < 5; i++) {
		size_t n = strlen(parts[i]) + 1;
		memcpy(s, parts[i], n);
		copies[i] = s;
		s += n;
	}
	in->d = (struct pp_gpu_counter_desc){ copies[0], copies[1], copies[2], copies[3], d->scale,
					      d->per_instance, copies[4] };
	g_interned[g_ninterned++] = in;
	found = &in->d;
out:
	pthread_mutex_unlock(&g_intern_lock);
	return found;
}

/* ---- the gpu_counters setting ---------------------------------------------------------- */

enum pp_gpu_counter_choice pp_gpu_counters_setting_choice(const char *text)
{
	if (!text || !*text || !strcmp(text, "none"))
		return PP_GPU_COUNTERS_NONE;
	if (!strcmp(text, "default"))
		return PP_GPU_COUNTERS_DEFAULT;
	return PP_GPU_COUNTERS_LIST;
}

static bool name_char_ok(char ch)
{
	/* Names as drivers and the counter databases spell them: letters, digits, and
	 * " _-./$()[]%:" (KHR performance counters have spaces and parentheses in their names, Mali
	 * kbase block counters brackets: SC[4]). */
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       strchr(" _-./$()[]%:", ch) != NULL;
}

int pp_gpu_counters_setting_check(const char *text, char *err, size_t err_len)
{
	static const char allowed[] = "allowed: none, default, or a comma-separated list of counter names "
				      "(NAME or SOURCE/NAME, as `passprobe counters list` or report.json print them)";
	if (pp_gpu_counters_setting_choice(text) != PP_GPU_COUNTERS_LIST)
		return 0;
	const char *p = text;
	unsigned item = 1;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		/* leading and trailing blanks of an item are ignored */
		while (n && *p == ' ')
			p++, n--;
		while (n && p[n - 1] == ' ')
			n--;
		if (!n) {
			snprintf(err, err_len, "gpu_counters: item %u of \"%s\" is empty; %s", item, text, allowed);
			return -EINVAL;
		}
		for (size_t i = 0; i < n; i++)
			if (!name_char_ok(p[i])) {
				snprintf(err, err_len, "gpu_counters: item %u of \"%s\" has the character '%c'; %s",
					 item, text, p[i], allowed);
				return -EINVAL;
			}
		if ((n == 4 && !strncmp(p, "none", 4)) || (n == 7 && !strncmp(p, "default", 7))) {
			snprintf(err, err_len, "gpu_counters: \"%.*s\" cannot be part of a list (\"%s\"); %s", (int)n, p,
				 text, allowed);
			return -EINVAL;
		}
		if (!end)
			return 0;
		p = end + 1;
		item++;
	}
}

/* Whether list item [p, p+n) names d: "name" or "source/name". */
static bool item_names(const char *p, size_t n, const struct pp_gpu_counter_desc *d)
{
	size_t ls = strlen(d->source), ln = strlen(d->name);
	if (n == ln && !strncmp(p, d->name, n))
		return true;
	return n == ls + 1 + ln && !strncmp(p, d->source, ls) && p[ls] == '/' && !strncmp(p + ls + 1, d->name, ln);
}

static void missing_add(char *missing, size_t len, const char *p, size_t n)
{
	if (!missing || !len)
		return;
	size_t used = strlen(missing);
	snprintf(missing + used, len - used, "%s%.*s", used ? ", " : "", (int)n, p);
}

uint32_t pp_gpu_counters_select(const struct pp_gpu_counter_backend *b, const char *setting,
				bool (*is_default)(const struct pp_gpu_counter_desc *d), uint32_t *idx, uint32_t max,
				char *missing, size_t missing_len)
{
	if (missing && missing_len)
		missing[0] = '\0';
	uint32_t count = b->counter_count ? b->counter_count(b->ctx) : 0, n = 0;
	switch (pp_gpu_counters_setting_choice(setting)) {
	case PP_GPU_COUNTERS_NONE:
		return 0;
	case PP_GPU_COUNTERS_DEFAULT:
		for (uint32_t i = 0; i < count && n < max; i++) {
			const struct pp_gpu_counter_desc *d = b->counter_desc(b->ctx, i);
			if (d && (!is_default || is_default(d)))
				idx[n++] = i;
		}
		return n;
	case PP_GPU_COUNTERS_LIST:
		break;
	}
	const char *p = setting;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len && *p == ' ')
			p++, len--;
		while (len && p[len - 1] == ' ')
			len--;
		bool found = false;
		for (uint32_t i = 0; i < count && !found; i++) {
			const struct pp_gpu_counter_desc *d = b->counter_desc(b->ctx, i);
			if (!d || !item_names(p, len, d))
				continue;
			found = true;
			bool dup = false;
			for (uint32_t k = 0; k < n; k++)
				dup |= idx[k] == i;
			if (!dup && n < max)
				idx[n++] = i;
		}
		if (!found && len)
			missing_add(missing, missing_len, p, len);
		if (!end)
			return n;
		p = end + 1;
	}
}

uint32_t pp_gpu_counters_list_count(void *list)
{
	return ((const struct pp_gpu_counter_list *)list)->ndescs;
}

const struct pp_gpu_counter_desc *pp_gpu_counters_list_desc(void *list, uint32_t index)
{
	const struct pp_gpu_counter_list *l = list;
	return index < l->ndescs ? l->descs[index] : NULL;
}

uint32_t pp_gpu_counters_list_set_count(void *list)
{
	return ((const struct pp_gpu_counter_list *)list)->nset;
}

const struct pp_gpu_counter_desc *pp_gpu_counters_list_set_desc(void *list, uint32_t index)
{
	const struct pp_gpu_counter_list *l = list;
	return index < l->nset ? l->descs[l->set[index]] : NULL;
}
