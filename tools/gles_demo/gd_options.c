#include "gd.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tool_options.h"

const char *const gd_options_pass_names[GD_PASS_COUNT] = {
	[GD_PASS_SHADOW] = "shadow", [GD_PASS_GBUFFER] = "gbuffer",
	[GD_PASS_LIGHTING] = "lighting", [GD_PASS_BLOOM] = "bloom",
	[GD_PASS_COMPOSITE] = "composite",
};

const char *const gd_options_misuse_names[GD_MISUSE_COUNT] = {
	[GD_MISUSE_READPIXELS] = "readpixels",
	[GD_MISUSE_FINISH] = "finish",
	[GD_MISUSE_QUERY_RESULT] = "query-result",
	[GD_MISUSE_CLIENTWAITSYNC] = "clientwaitsync",
	[GD_MISUSE_MAP_SYNC] = "map-sync",
	[GD_MISUSE_TEXSUBIMAGE] = "texsubimage",
	[GD_MISUSE_BUFSUBDATA_STATIC] = "bufsubdata-static",
	[GD_MISUSE_TILE_LOAD_STORE] = "tile-load-store",
};

/* Deliberately not monotonic in pass order, so a profiler that shifts times by one pass
 * gets the order wrong. The passes with the larger costs per fragment and unit of load
 * (gbuffer, then shadow: overlapping boxes, two colour targets) get the larger loads, and
 * the pass after the heaviest one (lighting) a larger load than the two after it, so that
 * neither the fixed costs nor llvmpipe's spill of one pass's time into the next blur the
 * order (docs/demo.md). */
static const uint32_t gd_default_load[GD_PASS_COUNT] = {8, 16, 4, 1, 2};

enum {
	OPT_FRAMES = 256,
	OPT_SIZE,
	OPT_LOAD,
	OPT_THREADS,
	OPT_NO_SWAP,
	OPT_EXPECT,
	OPT_OUTPUT,
	OPT_MISUSE,
	OPT_CONTROL,
	OPT_DEBUG_CALLBACK,
	OPT_GL_ERRORS,
	OPT_DEBUG_INSERT,
	OPT_TIMINGS,
	OPT_INFO,
	OPT_NO_SURFACE,
	OPT_NO_GROUPS,
	OPT_DEBUG_MUTE,
	OPT_EGL_PLATFORM,
};

static const struct option gd_long_options[] = {
	{"frames", required_argument, NULL, OPT_FRAMES},
	{"size", required_argument, NULL, OPT_SIZE},
	{"load", required_argument, NULL, OPT_LOAD},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"no-swap", no_argument, NULL, OPT_NO_SWAP},
	{"expect", no_argument, NULL, OPT_EXPECT},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"misuse", required_argument, NULL, OPT_MISUSE},
	{"control", required_argument, NULL, OPT_CONTROL},
	{"debug-callback", no_argument, NULL, OPT_DEBUG_CALLBACK},
	{"gl-errors", required_argument, NULL, OPT_GL_ERRORS},
	{"debug-insert", no_argument, NULL, OPT_DEBUG_INSERT},
	{"timings", no_argument, NULL, OPT_TIMINGS},
	{"info", no_argument, NULL, OPT_INFO},
	{"no-surface", no_argument, NULL, OPT_NO_SURFACE},
	{"no-groups", no_argument, NULL, OPT_NO_GROUPS},
	{"debug-mute", required_argument, NULL, OPT_DEBUG_MUTE},
	{"egl-platform", required_argument, NULL, OPT_EGL_PLATFORM},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void gd_usage_print(FILE *out)
{
	fprintf(out,
		"usage: " GD_NAME " [options]   (pp_gles_demo_dlopen: the same, loading libEGL and\n"
		"       libGLESv2 with dlopen)\n"
		"Renders 5 named passes per frame with OpenGL ES 3.2 on the EGL surfaceless platform\n"
		"(or an EGL device), into a pbuffer, calling eglSwapBuffers once per frame:\n"
		"  shadow, gbuffer, lighting, bloom (a compute dispatch, then blended sprites),\n"
		"  composite (into the pbuffer). --expect prints the exact work of each.\n"
		"\n"
		"  --frames N          frames to render (default 60, >= 1)\n"
		"  --size WxH          size of every target (default 160x120, each 1..%u)\n"
		"  --load a,b,c,d,e    fragment work of shadow,gbuffer,lighting,bloom,composite,\n"
		"                      each 1..%u (default 8,16,4,1,2); GPU time follows it\n"
		"  --threads N         N more threads, each with its own context and pbuffer\n"
		"                      (odd ones share objects with the main context), 0..%u\n"
		"  --no-swap           never call eglSwapBuffers: glFlush at the end of each frame\n"
		"  --no-surface        no pbuffer: the context is made current without a surface\n"
		"                      and composite renders into composite_fbo (implies --no-swap)\n"
		"  --no-groups         no glPushDebugGroup: passes are known by their framebuffer\n"
		"                      labels (glObjectLabel) only\n"
		"  --expect            print what a profiler should see, one 'expect' line each\n"
		"  --output FILE.ppm   write the last frame's image as a binary PPM\n"
		"  --misuse NAME       do NAME's misuse every frame (may be repeated)\n"
		"  --control NAME      do NAME the right way every frame (may be repeated)\n"
		"                      NAME: readpixels, finish, query-result, clientwaitsync,\n"
		"                      map-sync, texsubimage, bufsubdata-static, tile-load-store\n"
		"  --debug-callback    print every KHR_debug performance message as\n"
		"                      'debug-message <id> <text>'\n"
		"  --debug-mute WHAT   with --debug-callback: 'third-party' disables third-party\n"
		"                      performance messages (glDebugMessageControl), 'output'\n"
		"                      disables GL_DEBUG_OUTPUT after installing the callback\n"
		"  --debug-insert      before the first frame, send one performance message of\n"
		"                      the demo's own (id 0x7070) with glDebugMessageInsert\n"
		"  --gl-errors FILE    make a few invalid GL calls each frame and write the\n"
		"                      glGetError sequence to FILE\n"
		"  --timings           print the demo's own per-pass GPU times\n"
		"                      (GL_EXT_disjoint_timer_query, read without waiting)\n"
		"  --egl-platform P    surfaceless (Mesa's), device (the first EGL device,\n"
		"                      EGL_EXT_platform_device) or auto (default: surfaceless where\n"
		"                      EGL has it, else device)\n"
		"  --info              print the EGL platform, GL renderer, version and extensions\n"
		"  --help              this text\n"
		"Exit codes: 0 rendered, 1 failed, 2 bad option, 77 no EGL/GLES 3.2 available.\n",
		GD_EXTENT_MAX, GD_LOAD_MAX, GD_THREADS_MAX);
}

static int gd_option_set(void *data, int code, const char *value);

static const struct tool_options gd_tool = {
	.name = GD_NAME,
	.long_options = gd_long_options,
	.usage_print = gd_usage_print,
	.usage_after_error = false,
	.option_set = gd_option_set,
};

/* Parses a decimal in min..max ending at `end_char` (or the end of the text). */
static bool gd_u32_parse(const char *text, uint32_t min, uint32_t max, char end_char,
			 const char **rest, uint32_t *out)
{
	char *end = NULL;
	if (!text || *text < '0' || *text > '9')
		return false;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || v < min || v > max || (*end != end_char && *end))
		return false;
	if (!rest && *end)
		return false;
	if (rest)
		*rest = end;
	*out = (uint32_t)v;
	return true;
}

static bool gd_load_parse(struct gd_options *opt, const char *spec)
{
	const char *p = spec;
	for (int i = 0; i < GD_PASS_COUNT; i++) {
		const char *rest = NULL;
		if (!gd_u32_parse(p, 1, GD_LOAD_MAX, ',', &rest, &opt->load[i]))
			return false;
		if (i == GD_PASS_COUNT - 1)
			return *rest == '\0';
		if (*rest != ',')
			return false;
		p = rest + 1;
	}
	return false;
}

static bool gd_size_parse(struct gd_options *opt, const char *spec)
{
	const char *rest = NULL;
	if (!gd_u32_parse(spec, 1, GD_EXTENT_MAX, 'x', &rest, &opt->width) || *rest != 'x')
		return false;
	return gd_u32_parse(rest + 1, 1, GD_EXTENT_MAX, '\0', NULL, &opt->height);
}

static int gd_misuse_find(const char *name)
{
	for (int m = 0; m < GD_MISUSE_COUNT; m++)
		if (!strcmp(name, gd_options_misuse_names[m]))
			return m;
	return -1;
}

static int gd_mode_set(struct gd_options *opt, const char *option, const char *name,
		       enum gd_mode mode)
{
	int m = gd_misuse_find(name);
	if (m < 0)
		return tool_options_error(&gd_tool,
					  "%s wants one of readpixels, finish, query-result, "
					  "clientwaitsync, map-sync, texsubimage, bufsubdata-static, "
					  "tile-load-store, not '%s'",
					  option, name);
	if (opt->mode[m] != GD_MODE_DEFAULT && opt->mode[m] != mode)
		return tool_options_error(&gd_tool, "--misuse %s and --control %s exclude each other", name, name);
	opt->mode[m] = mode;
	return 0;
}

static int gd_option_set(void *data, int code, const char *value)
{
	struct gd_options *opt = data;
	switch (code) {
	case OPT_FRAMES:
		if (!gd_u32_parse(value, 1, UINT32_MAX, '\0', NULL, &opt->frames))
			return tool_options_error(&gd_tool, "--frames wants a whole number >= 1, not '%s'", value);
		break;
	case OPT_SIZE:
		if (!gd_size_parse(opt, value))
			return tool_options_error(&gd_tool, "--size wants WxH with W and H in 1..%u, not '%s'",
						  GD_EXTENT_MAX, value);
		break;
	case OPT_LOAD:
		if (!gd_load_parse(opt, value))
			return tool_options_error(&gd_tool,
						  "--load wants %d whole numbers in 1..%u separated by commas "
						  "(shadow,gbuffer,lighting,bloom,composite), not '%s'",
						  GD_PASS_COUNT, GD_LOAD_MAX, value);
		break;
	case OPT_THREADS:
		if (!gd_u32_parse(value, 0, GD_THREADS_MAX, '\0', NULL, &opt->threads))
			return tool_options_error(&gd_tool, "--threads wants a whole number in 0..%u, not '%s'",
						  GD_THREADS_MAX, value);
		break;
	case OPT_NO_SWAP:
		opt->no_swap = true;
		break;
	case OPT_EXPECT:
		opt->expect = true;
		break;
	case OPT_OUTPUT:
		if (!*value)
			return tool_options_error(&gd_tool, "--output wants a file name");
		opt->output = value;
		break;
	case OPT_GL_ERRORS:
		if (!*value)
			return tool_options_error(&gd_tool, "--gl-errors wants a file name");
		opt->gl_errors = value;
		break;
	case OPT_MISUSE:
		if (gd_mode_set(opt, "--misuse", value, GD_MODE_MISUSE))
			return -1;
		break;
	case OPT_CONTROL:
		if (gd_mode_set(opt, "--control", value, GD_MODE_CONTROL))
			return -1;
		break;
	case OPT_DEBUG_CALLBACK:
		opt->debug_callback = true;
		break;
	case OPT_DEBUG_INSERT:
		opt->debug_insert = true;
		break;
	case OPT_DEBUG_MUTE:
		if (!strcmp(value, "third-party"))
			opt->debug_mute = GD_DEBUG_MUTE_THIRD_PARTY;
		else if (!strcmp(value, "output"))
			opt->debug_mute = GD_DEBUG_MUTE_OUTPUT;
		else
			return tool_options_error(&gd_tool, "--debug-mute wants third-party or output, not '%s'",
						  value);
		break;
	case OPT_TIMINGS:
		opt->timings = true;
		break;
	case OPT_INFO:
		opt->info = true;
		break;
	case OPT_NO_SURFACE:
		opt->no_surface = opt->no_swap = true;
		break;
	case OPT_NO_GROUPS:
		opt->no_groups = true;
		break;
	case OPT_EGL_PLATFORM:
		if (!strcmp(value, "surfaceless"))
			opt->egl_platform = GD_EGL_PLATFORM_SURFACELESS;
		else if (!strcmp(value, "device"))
			opt->egl_platform = GD_EGL_PLATFORM_DEVICE;
		else if (!strcmp(value, "auto"))
			opt->egl_platform = GD_EGL_PLATFORM_AUTO;
		else
			return tool_options_error(&gd_tool,
						  "--egl-platform wants surfaceless, device or auto, not '%s'", value);
		break;
	}
	return 0;
}

int gd_options_parse(struct gd_options *opt, int argc, char **argv)
{
	*opt = (struct gd_options){.frames = 60, .width = 160, .height = 120};
	for (int p = 0; p < GD_PASS_COUNT; p++)
		opt->load[p] = gd_default_load[p];
	return tool_options_parse(&gd_tool, opt, argc, argv);
}
