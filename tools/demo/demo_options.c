#include "demo.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_options.h"

const char *const demo_options_pass_names[DEMO_PASS_COUNT] = {
	[DEMO_PASS_SHADOW] = "shadow",           [DEMO_PASS_GBUFFER] = "gbuffer",     [DEMO_PASS_LIGHTING] = "lighting",
	[DEMO_PASS_POSTPROCESS] = "postprocess", [DEMO_PASS_COMPOSITE] = "composite",
};

enum {
	OPT_FRAMES = 256,
	OPT_WIDTH,
	OPT_HEIGHT,
	OPT_DRAWS,
	OPT_LOAD,
	OPT_DYNAMIC_ONLY,
	OPT_RENDERPASS_ONLY,
	OPT_NO_LABELS,
	OPT_FRAMES_IN_FLIGHT,
	OPT_OUTPUT,
	OPT_SUBMIT2,
	OPT_BARRIER2,
	OPT_TIMINGS,
	OPT_MISUSE_BARRIERS,
	OPT_MISUSE_QUERY_WAIT,
	OPT_MISUSE_WAIT_IDLE,
};

static const struct option demo_long_options[] = {
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "draws", required_argument, NULL, OPT_DRAWS },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "dynamic-only", no_argument, NULL, OPT_DYNAMIC_ONLY },
	{ "renderpass-only", no_argument, NULL, OPT_RENDERPASS_ONLY },
	{ "no-labels", no_argument, NULL, OPT_NO_LABELS },
	{ "frames-in-flight", required_argument, NULL, OPT_FRAMES_IN_FLIGHT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "submit2", no_argument, NULL, OPT_SUBMIT2 },
	{ "barrier2", no_argument, NULL, OPT_BARRIER2 },
	{ "timings", no_argument, NULL, OPT_TIMINGS },
	{ "misuse-barriers", no_argument, NULL, OPT_MISUSE_BARRIERS },
	{ "misuse-query-wait", no_argument, NULL, OPT_MISUSE_QUERY_WAIT },
	{ "misuse-wait-idle", no_argument, NULL, OPT_MISUSE_WAIT_IDLE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void demo_usage_print(FILE *out)
{
	fprintf(out,
		"usage: " DEMO_NAME " [options]\n"
		"Renders 5 named passes offscreen per frame (headless Vulkan 1.3):\n"
		"  shadow (vkCmdBeginRenderPass, 1024x1024 depth), gbuffer (vkCmdBeginRendering,\n"
		"  2 colour targets + depth), lighting (vkCmdBeginRenderPass2), postprocess (compute\n"
		"  dispatch), composite (vkCmdBeginRendering).\n"
		"Every render pass (shadow, gbuffer, lighting, composite) issues exactly --draws\n"
		"draws: shadow and gbuffer draw one scene tile each, lighting and composite one\n"
		"horizontal screen strip each; postprocess is one dispatch.\n"
		"\n"
		"  --frames N             frames to render (default 10, >= 1)\n"
		"  --width W --height H   size of gbuffer/lighting/postprocess/composite (default 640x360)\n"
		"  --draws N              draws per render pass (default 8, 1..%u)\n"
		"  --load PASS=K[,...]    multiply the shader work of PASS by K (1..%u); PASS is one of\n"
		"                         shadow, gbuffer, lighting, postprocess, composite\n"
		"  --dynamic-only         every render pass uses vkCmdBeginRendering\n"
		"  --renderpass-only      every render pass uses a VkRenderPass (gbuffer: vkCmdBeginRenderPass,\n"
		"                         composite: vkCmdBeginRenderPass2)\n"
		"  --no-labels            no debug-utils labels; passes are known by object names only\n"
		"  --frames-in-flight N   command buffers/fences in rotation (default 2, 1..%u)\n"
		"  --output FILE.ppm      write the last frame's final image as a binary PPM\n"
		"  --submit2              submit with vkQueueSubmit2 instead of vkQueueSubmit\n"
		"  --barrier2             record barriers with vkCmdPipelineBarrier2\n"
		"  --timings              print the demo's own per-pass GPU times (timestamp queries)\n"
		"  --misuse-barriers      valid but over-broad barriers before lighting and postprocess\n"
		"  --misuse-query-wait    block on a timestamp query of the frame just submitted\n"
		"  --misuse-wait-idle     vkQueueWaitIdle after every submit\n"
		"  --help                 this text\n"
		"Environment: PASSPROBE_DEMO_DEVICE=N picks physical device N.\n",
		DEMO_DRAWS_MAX, DEMO_LOAD_MAX, DEMO_FRAMES_IN_FLIGHT_MAX);
}

static bool demo_u32_parse(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end = NULL;
	if (!text || !*text || *text == '-' || *text == '+')
		return false;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Parses "pass=K[,pass=K...]" into opt->load. Returns false on any malformed item. */
static bool demo_load_parse(struct demo_options *opt, const char *spec)
{
	char buf[256];
	if (strlen(spec) >= sizeof(buf))
		return false;
	strcpy(buf, spec);
	char *save = NULL;
	int items = 0;
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		if (!eq)
			return false;
		*eq = '\0';
		int pass = -1;
		for (int p = 0; p < DEMO_PASS_COUNT; p++)
			if (!strcmp(item, demo_options_pass_names[p]))
				pass = p;
		uint32_t k;
		if (pass < 0 || !demo_u32_parse(eq + 1, 1, DEMO_LOAD_MAX, &k))
			return false;
		opt->load[pass] = k;
		items++;
	}
	return items > 0;
}

/* The options being parsed, with the two that are checked together once all are read. */
struct demo_options_parsing {
	struct demo_options *opt;
	bool dynamic_only, renderpass_only;
};

static int demo_option_set(void *data, int code, const char *value);

static const struct tool_options demo_tool = {
	.name = DEMO_NAME,
	.long_options = demo_long_options,
	.usage_print = demo_usage_print,
	.usage_after_error = true,
	.option_set = demo_option_set,
};

static int demo_option_set(void *data, int code, const char *value)
{
	struct demo_options_parsing *parsing = data;
	struct demo_options *opt = parsing->opt;
	switch (code) {
	case OPT_FRAMES:
		if (!demo_u32_parse(value, 1, UINT32_MAX, &opt->frames))
			return tool_options_error(&demo_tool, "--frames wants a whole number >= 1, not '%s'", value);
		break;
	case OPT_WIDTH:
		if (!demo_u32_parse(value, 1, DEMO_EXTENT_MAX, &opt->width))
			return tool_options_error(&demo_tool, "--width wants a whole number in 1..8192, not '%s'",
						  value);
		break;
	case OPT_HEIGHT:
		if (!demo_u32_parse(value, 1, DEMO_EXTENT_MAX, &opt->height))
			return tool_options_error(&demo_tool, "--height wants a whole number in 1..8192, not '%s'",
						  value);
		break;
	case OPT_DRAWS:
		if (!demo_u32_parse(value, 1, DEMO_DRAWS_MAX, &opt->draws))
			return tool_options_error(&demo_tool, "--draws wants a whole number in 1..4096, not '%s'",
						  value);
		break;
	case OPT_LOAD:
		if (!demo_load_parse(opt, value))
			return tool_options_error(&demo_tool,
						  "--load wants PASS=K[,PASS=K...] with PASS one of shadow, gbuffer, "
						  "lighting, postprocess, composite and K in 1..1000, not '%s'",
						  value);
		break;
	case OPT_DYNAMIC_ONLY:
		parsing->dynamic_only = true;
		break;
	case OPT_RENDERPASS_ONLY:
		parsing->renderpass_only = true;
		break;
	case OPT_NO_LABELS:
		opt->no_labels = true;
		break;
	case OPT_FRAMES_IN_FLIGHT:
		if (!demo_u32_parse(value, 1, DEMO_FRAMES_IN_FLIGHT_MAX, &opt->frames_in_flight))
			return tool_options_error(&demo_tool,
						  "--frames-in-flight wants a whole number in 1..16, not '%s'", value);
		break;
	case OPT_OUTPUT:
		if (!*value)
			return tool_options_error(&demo_tool, "--output wants a file name");
		opt->output = value;
		break;
	case OPT_SUBMIT2:
		opt->submit2 = true;
		break;
	case OPT_BARRIER2:
		opt->barrier2 = true;
		break;
	case OPT_TIMINGS:
		opt->timings = true;
		break;
	case OPT_MISUSE_BARRIERS:
		opt->misuse_barriers = true;
		break;
	case OPT_MISUSE_QUERY_WAIT:
		opt->misuse_query_wait = true;
		break;
	case OPT_MISUSE_WAIT_IDLE:
		opt->misuse_wait_idle = true;
		break;
	}
	return 0;
}

int demo_options_parse(struct demo_options *opt, int argc, char **argv)
{
	*opt = (struct demo_options){
		.frames = 10,
		.width = 640,
		.height = 360,
		.draws = 8,
		.frames_in_flight = 2,
		.style = DEMO_STYLE_MIXED,
	};
	for (int p = 0; p < DEMO_PASS_COUNT; p++)
		opt->load[p] = 1;

	struct demo_options_parsing parsing = { .opt = opt };
	int parsed = tool_options_parse(&demo_tool, &parsing, argc, argv);
	if (parsed)
		return parsed;
	if (parsing.dynamic_only && parsing.renderpass_only)
		return tool_options_error(&demo_tool, "--dynamic-only and --renderpass-only exclude each other");
	if (parsing.dynamic_only)
		opt->style = DEMO_STYLE_DYNAMIC_ONLY;
	if (parsing.renderpass_only)
		opt->style = DEMO_STYLE_RENDERPASS_ONLY;
	return 0;
}
