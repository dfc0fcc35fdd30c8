/* SPIR-V produced at build time by glslc -mfmt=c from shaders/, so the binary needs no
 * files at run time and works from any directory after install. */
#include "demo.h"

static const uint32_t shadow_vert[] =
#include "shadow.vert.inc"
	;
static const uint32_t shadow_frag[] =
#include "shadow.frag.inc"
	;
static const uint32_t gbuffer_vert[] =
#include "gbuffer.vert.inc"
	;
static const uint32_t gbuffer_frag[] =
#include "gbuffer.frag.inc"
	;
static const uint32_t strip_vert[] =
#include "strip.vert.inc"
	;
static const uint32_t lighting_frag[] =
#include "lighting.frag.inc"
	;
static const uint32_t postprocess_comp[] =
#include "postprocess.comp.inc"
	;
static const uint32_t composite_frag[] =
#include "composite.frag.inc"
	;

#define DEMO_SHADER_ENTRY(array)     \
	{                            \
		array, sizeof(array) \
	}

static const struct {
	const uint32_t *code;
	size_t size;
} demo_shaders[DEMO_SHADER_COUNT] = {
	[DEMO_SHADER_SHADOW_VERT] = DEMO_SHADER_ENTRY(shadow_vert),
	[DEMO_SHADER_SHADOW_FRAG] = DEMO_SHADER_ENTRY(shadow_frag),
	[DEMO_SHADER_GBUFFER_VERT] = DEMO_SHADER_ENTRY(gbuffer_vert),
	[DEMO_SHADER_GBUFFER_FRAG] = DEMO_SHADER_ENTRY(gbuffer_frag),
	[DEMO_SHADER_STRIP_VERT] = DEMO_SHADER_ENTRY(strip_vert),
	[DEMO_SHADER_LIGHTING_FRAG] = DEMO_SHADER_ENTRY(lighting_frag),
	[DEMO_SHADER_POSTPROCESS_COMP] = DEMO_SHADER_ENTRY(postprocess_comp),
	[DEMO_SHADER_COMPOSITE_FRAG] = DEMO_SHADER_ENTRY(composite_frag),
};

const uint32_t *demo_shaders_code(enum demo_shader shader, size_t *size_bytes)
{
	*size_bytes = demo_shaders[shader].size;
	return demo_shaders[shader].code;
}
