/* The vocabulary of the rules: pipeline stages and accesses (bits, names, expansion) and the
 * rules' identifiers. */
#include "diag_internal.h"

/* ---- stages and accesses ---------------------------------------------------------------- */

static const char *const stage_names[NSTAGES] = {
	"TOP_OF_PIPE",          "DRAW_INDIRECT",       "VERTEX_INPUT",   "VERTEX_SHADER",
	"TESSELLATION_CONTROL_SHADER", "TESSELLATION_EVALUATION_SHADER", "GEOMETRY_SHADER",
	"EARLY_FRAGMENT_TESTS", "FRAGMENT_SHADER",     "LATE_FRAGMENT_TESTS", "COLOR_ATTACHMENT_OUTPUT",
	"COMPUTE_SHADER",       "TRANSFER",            "BOTTOM_OF_PIPE", "HOST",
	"ALL_GRAPHICS",         "ALL_COMMANDS",        "OTHER",
};

static const char *const access_names[] = {
	"INDIRECT_COMMAND_READ", "INDEX_READ",         "VERTEX_ATTRIBUTE_READ", "UNIFORM_READ",
	"INPUT_ATTACHMENT_READ", "SHADER_READ",        "SHADER_WRITE",          "COLOR_ATTACHMENT_READ",
	"COLOR_ATTACHMENT_WRITE", "DEPTH_STENCIL_ATTACHMENT_READ", "DEPTH_STENCIL_ATTACHMENT_WRITE",
	"TRANSFER_READ",         "TRANSFER_WRITE",     "HOST_READ",             "HOST_WRITE",
	"MEMORY_READ",           "MEMORY_WRITE",       "OTHER_READ",            "OTHER_WRITE",
};

uint32_t pp_diag_vocab_stage_expand(uint32_t s, bool second_scope)
{
	uint32_t out = s & ~(PP_STAGE_ALL_GRAPHICS | PP_STAGE_ALL_COMMANDS | PP_STAGE_TOP | PP_STAGE_BOTTOM);
	if (s & PP_STAGE_ALL_GRAPHICS)
		out |= PP_STAGE_GRAPHICS;
	if (s & PP_STAGE_ALL_COMMANDS)
		out |= PP_STAGE_WORK;
	if (second_scope ? (s & PP_STAGE_TOP) : (s & PP_STAGE_BOTTOM))
		out |= PP_STAGE_WORK;
	return out;
}

static size_t names_join(uint32_t bits, const char *const *names, uint32_t nnames, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	if (!bits)
		return (size_t)snprintf(buf, len, "NONE");
	for (uint32_t i = 0; i < nnames; i++) {
		if (!(bits & (1u << i)))
			continue;
		int w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s", n ? "|" : "", names[i]);
		if (w > 0)
			n += (size_t)w;
	}
	return n;
}

size_t pp_diag_vocab_stage_names(uint32_t stages, char *buf, size_t len)
{
	/* Spelled-out masks read better folded back. */
	if ((stages & PP_STAGE_WORK) == PP_STAGE_WORK)
		stages = (stages & ~PP_STAGE_WORK) | PP_STAGE_ALL_COMMANDS;
	else if ((stages & PP_STAGE_GRAPHICS) == PP_STAGE_GRAPHICS)
		stages = (stages & ~PP_STAGE_GRAPHICS) | PP_STAGE_ALL_GRAPHICS;
	return names_join(stages, stage_names, NSTAGES, buf, len);
}

size_t pp_diag_vocab_access_names(uint32_t access, char *buf, size_t len)
{
	return names_join(access, access_names, sizeof(access_names) / sizeof(access_names[0]), buf, len);
}

uint32_t pp_diag_vocab_access_stages(uint32_t a)
{
	uint32_t s = 0;
	if (a & PP_ACCESS_INDIRECT_READ)
		s |= PP_STAGE_DRAW_INDIRECT;
	if (a & (PP_ACCESS_INDEX_READ | PP_ACCESS_VERTEX_READ))
		s |= PP_STAGE_VERTEX_INPUT;
	if (a & (PP_ACCESS_UNIFORM_READ | PP_ACCESS_SHADER_READ | PP_ACCESS_SHADER_WRITE))
		s |= PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER | PP_STAGE_COMPUTE;
	if (a & PP_ACCESS_INPUT_ATTACHMENT_READ)
		s |= PP_STAGE_FRAGMENT_SHADER;
	if (a & (PP_ACCESS_COLOR_READ | PP_ACCESS_COLOR_WRITE))
		s |= PP_STAGE_COLOR_OUTPUT;
	if (a & (PP_ACCESS_DEPTH_READ | PP_ACCESS_DEPTH_WRITE))
		s |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	if (a & (PP_ACCESS_TRANSFER_READ | PP_ACCESS_TRANSFER_WRITE))
		s |= PP_STAGE_TRANSFER;
	if (a & (PP_ACCESS_HOST_READ | PP_ACCESS_HOST_WRITE))
		s |= PP_STAGE_HOST;
	if (a & (PP_ACCESS_MEMORY_READ | PP_ACCESS_MEMORY_WRITE))
		s |= PP_STAGE_WORK | PP_STAGE_HOST;
	if (a & (PP_ACCESS_OTHER_READ | PP_ACCESS_OTHER_WRITE))
		s |= PP_STAGE_OTHER;
	return s;
}

/* Logical position of a graphics stage; compute and transfer come right after the top. */
int pp_diag_vocab_stage_order(uint32_t bit)
{
	for (int i = 0; i < NSTAGES; i++)
		if (bit == (1u << i))
			return i;
	return NSTAGES;
}

uint32_t pp_diag_vocab_lowest_bit(uint32_t s)
{
	return s & (~s + 1u);
}

/* ---- rules ------------------------------------------------------------------------------ */

/* The rule table's columns (diag_rules.h) as arrays by rule. */
#define RULE_ID(name, id, ...) [PP_DIAG_##name] = id,
static const char *const rule_ids[PP_DIAG_RULE_COUNT] = { PP_DIAG_RULES(RULE_ID) };
#undef RULE_ID
#define RULE_KIND(name, id, kind, ...) [PP_DIAG_##name] = PP_DIAG_KIND_##kind,
static const enum pp_diag_rule_kind rule_kinds[PP_DIAG_RULE_COUNT] = { PP_DIAG_RULES(RULE_KIND) };
#undef RULE_KIND
#define RULE_API(name, id, kind, api, ...) [PP_DIAG_##name] = PP_DIAG_API_##api,
static const enum pp_diag_rule_api rule_apis[PP_DIAG_RULE_COUNT] = { PP_DIAG_RULES(RULE_API) };
#undef RULE_API
#define RULE_DOCS(name, id, kind, api, severity, docs, ...) [PP_DIAG_##name] = docs,
static const char *const rule_docs[PP_DIAG_RULE_COUNT] = { PP_DIAG_RULES(RULE_DOCS) };
#undef RULE_DOCS

const char *pp_diag_vocab_rule_id(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT ? rule_ids[rule] : "PASSPROBE-unknown";
}

bool pp_diag_vocab_rule_is_barrier(enum pp_diag_rule rule)
{
	return pp_diag_vocab_rule_kind(rule) == PP_DIAG_KIND_BARRIER;
}

enum pp_diag_rule_kind pp_diag_vocab_rule_kind(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT ? rule_kinds[rule] : PP_DIAG_KIND_BLOCKING;
}

enum pp_diag_rule_api pp_diag_vocab_rule_api(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT ? rule_apis[rule] : PP_DIAG_API_VULKAN;
}

const char *pp_diag_vocab_rule_docs(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT ? rule_docs[rule] : "";
}

