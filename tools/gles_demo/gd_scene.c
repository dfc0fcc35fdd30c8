/* The demo's tables (meshes, passes and their draws: the renderer and --expect both read
 * them), its shaders, geometry, render targets and buffers. */
#include "gd.h"

#include <stdlib.h>
#include <string.h>

/* Vertices: the indexed meshes first (ground 0..3, cube 4..27, quad 28..31), then the same
 * meshes expanded for glDrawArrays (ground 32..37, cube 38..73, quad 74..77 as a strip). */
const struct gd_mesh_range gd_scene_meshes[GD_MESH_COUNT] = {
	[GD_MESH_GROUND] = {GL_TRIANGLES, 32, 6, GL_TRIANGLES, 0, 6, 0, 3},
	[GD_MESH_CUBE] = {GL_TRIANGLES, 38, 36, GL_TRIANGLES, 6, 36, 4, 27},
	[GD_MESH_QUAD] = {GL_TRIANGLE_STRIP, 74, 4, GL_TRIANGLES, 42, 6, 28, 31},
};
#define GD_VERTEX_COUNT 78u
#define GD_INDEX_COUNT 48u

#define CUBES(first) (GD_INSTANCE_CUBES + (first))

/* The floor is drawn last: fragments hidden by the boxes fail the early depth test, so
 * every pass shades about one layer of fragments and its time follows its --load. */
static const struct gd_draw gd_shadow_draws[] = {
	{.form = GD_DRAW_ELEMENTS_INSTANCED, .mesh = GD_MESH_CUBE, .first_instance = CUBES(0), .instances = 6},
	{.form = GD_DRAW_RANGE_ELEMENTS, .mesh = GD_MESH_CUBE, .first_instance = CUBES(6), .instances = 1},
	{.form = GD_DRAW_RANGE_ELEMENTS, .mesh = GD_MESH_CUBE, .first_instance = CUBES(7), .instances = 1},
	{.form = GD_DRAW_ARRAYS_INSTANCED, .mesh = GD_MESH_CUBE, .first_instance = CUBES(8), .instances = 4},
	{.form = GD_DRAW_ELEMENTS, .mesh = GD_MESH_GROUND, .first_instance = GD_INSTANCE_GROUND, .instances = 1},
};
static const struct gd_draw gd_gbuffer_draws[] = {
	{.form = GD_DRAW_ELEMENTS_INSTANCED, .mesh = GD_MESH_CUBE, .first_instance = CUBES(0), .instances = 4},
	{.form = GD_DRAW_ARRAYS_INSTANCED, .mesh = GD_MESH_CUBE, .first_instance = CUBES(4), .instances = 4},
	{.form = GD_DRAW_ELEMENTS, .mesh = GD_MESH_CUBE, .first_instance = CUBES(8), .instances = 1},
	{.form = GD_DRAW_RANGE_ELEMENTS, .mesh = GD_MESH_CUBE, .first_instance = CUBES(9), .instances = 1},
	{.form = GD_DRAW_ELEMENTS_INSTANCED, .mesh = GD_MESH_CUBE, .first_instance = CUBES(10), .instances = 2},
	{.form = GD_DRAW_ARRAYS, .mesh = GD_MESH_GROUND, .first_instance = GD_INSTANCE_GROUND, .instances = 1},
};
static const struct gd_draw gd_lighting_draws[] = {
	{.form = GD_DRAW_ARRAYS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 0, .instances = 1},
	{.form = GD_DRAW_ARRAYS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 1, .instances = 1},
	{.form = GD_DRAW_ARRAYS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 2, .instances = 1},
	{.form = GD_DRAW_ARRAYS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 3, .instances = 1},
};
static const struct gd_draw gd_bloom_draws[] = {
	{.form = GD_DRAW_ARRAYS_INSTANCED, .mesh = GD_MESH_QUAD, .first_instance = 0, .instances = GD_SPRITE_COUNT / 2, .sprites = true},
	{.form = GD_DRAW_ARRAYS_INSTANCED, .mesh = GD_MESH_QUAD, .first_instance = GD_SPRITE_COUNT / 2, .instances = GD_SPRITE_COUNT / 2, .sprites = true},
};
static const struct gd_draw gd_composite_draws[] = {
	{.form = GD_DRAW_ELEMENTS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_FULL, .instances = 1},
	{.form = GD_DRAW_RANGE_ELEMENTS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_FULL, .instances = 1, .overlay = true},
};

#define DRAWS(a) a, sizeof(a) / sizeof(a[0])
const struct gd_pass_desc gd_scene_passes[GD_PASS_COUNT] = {
	[GD_PASS_SHADOW] = {"shadow", "shadow_fbo", DRAWS(gd_shadow_draws), 0, 0},
	[GD_PASS_GBUFFER] = {"gbuffer", "gbuffer_fbo", DRAWS(gd_gbuffer_draws), 0, 0},
	[GD_PASS_LIGHTING] = {"lighting", "lighting_fbo", DRAWS(gd_lighting_draws), 0, 0},
	[GD_PASS_BLOOM] = {"bloom", "bloom_fbo", DRAWS(gd_bloom_draws), 1, 1},
	[GD_PASS_COMPOSITE] = {"composite", NULL, DRAWS(gd_composite_draws), 0, 0},
};
#undef DRAWS

void gd_scene_pass_counts_draw(struct gd_pass_counts *c, const struct gd_draw *d)
{
	const struct gd_mesh_range *m = &gd_scene_meshes[d->mesh];
	c->draws++;
	c->instances += d->instances;
	switch (d->form) {
	case GD_DRAW_ARRAYS:
	case GD_DRAW_ARRAYS_INSTANCED:
		c->draws_arrays++;
		c->vertices += (uint64_t)m->arrays_count * d->instances;
		break;
	case GD_DRAW_ELEMENTS:
	case GD_DRAW_RANGE_ELEMENTS:
	case GD_DRAW_ELEMENTS_INSTANCED:
		c->draws_indexed++;
		c->indices += (uint64_t)m->index_count * d->instances;
		break;
	}
}

const char *gd_scene_pass_framebuffer_label(const struct gd_options *opt, enum gd_pass pass)
{
	if (gd_scene_passes[pass].fbo_label)
		return gd_scene_passes[pass].fbo_label;
	return opt->no_surface ? "composite_fbo" : "default";
}

/* Whether a pass clears at its start and invalidates depth at its end. Bloom loads the
 * lighting result on purpose (its sprites blend onto it); lighting has no depth. The
 * tile-load-store switch's misuse: gbuffer keeps the depth it invalidates (stored for its own
 * next clear), composite skips its clear (loads the depth it invalidated a frame before). */
void gd_scene_pass_counts_get(const struct gd_options *opt, enum gd_pass pass,
			struct gd_pass_counts *out)
{
	const struct gd_pass_desc *desc = &gd_scene_passes[pass];
	*out = (struct gd_pass_counts){0};
	for (uint32_t i = 0; i < desc->draw_count; i++)
		gd_scene_pass_counts_draw(out, &desc->draws[i]);
	out->dispatches = desc->dispatches;
	out->workgroups = (uint64_t)desc->dispatches * (GD_SPRITE_COUNT / 16);
	out->barriers = desc->barriers;
	bool tile_misuse = opt->mode[GD_MISUSE_TILE_LOAD_STORE] == GD_MODE_MISUSE;
	switch (pass) {
	case GD_PASS_SHADOW:
		out->clear = out->invalidate = true;
		break;
	case GD_PASS_GBUFFER:
		out->clear = true;
		out->invalidate = !tile_misuse;
		break;
	case GD_PASS_LIGHTING:
		out->clear = true;
		break;
	case GD_PASS_BLOOM:
		break;
	case GD_PASS_COMPOSITE:
		out->clear = !tile_misuse;
		out->invalidate = true;
		break;
	default:
		break;
	}
}

/* ---- shaders ---- */

static const char gd_common_glsl[] =
	"#version 320 es\n"
	"precision highp float;\n"
	"precision highp int;\n"
	"precision highp sampler2D;\n"
	"layout(std140, binding = 0) uniform Frame {\n"
	"	mat4 view_proj;\n"
	"	mat4 light_view_proj;\n"
	"	vec4 light_dir; /* xyz: towards the light, w: ambient */\n"
	"	vec4 viewport;  /* w, h, 1/w, 1/h */\n"
	"	vec4 params;    /* x: frame index */\n"
	"} frame;\n"
	"layout(std140, binding = 1) uniform Pass {\n"
	"	ivec4 load;   /* x: loop iterations of gd_burn */\n"
	"	vec4 weight;  /* x: always 0: keeps the loop alive without changing a pixel */\n"
	"} pass;\n"
	"float gd_burn(vec2 seed) {\n"
	"	float acc = fract(seed.x * 0.3713 + seed.y * 0.1171);\n"
	"	for (int i = 0; i < pass.load.x; i++)\n"
	"		acc = fract(acc * 1.6180339 + 0.1234567);\n"
	"	return acc * pass.weight.x;\n"
	"}\n";

static const char gd_scene_vs[] =
	"layout(location = 0) in vec3 a_pos;\n"
	"layout(location = 1) in vec3 a_normal;\n"
	"layout(location = 2) in vec4 a_inst; /* xyz: position, w: height */\n"
	"out vec3 v_normal;\n"
	"out vec4 v_light;\n"
	"out float v_palette;\n"
	"void main() {\n"
	"	vec3 world = vec3(a_pos.x, a_pos.y * a_inst.w, a_pos.z) + a_inst.xyz;\n"
	"	v_normal = a_normal;\n"
	"	v_light = frame.light_view_proj * vec4(world, 1.0);\n"
	"	v_palette = fract(a_inst.x * 0.125 + a_inst.z * 0.375 + 0.0625);\n"
	"#ifdef GD_SHADOW\n"
	"	gl_Position = v_light;\n"
	"#else\n"
	"	gl_Position = frame.view_proj * vec4(world, 1.0);\n"
	"#endif\n"
	"}\n";

static const char gd_shadow_fs[] =
	"layout(location = 0) out vec4 o_depth;\n"
	"void main() {\n"
	"	o_depth = vec4(gl_FragCoord.z + gd_burn(gl_FragCoord.xy), 0.0, 0.0, 1.0);\n"
	"}\n";

static const char gd_gbuffer_fs[] =
	"layout(binding = 0) uniform sampler2D shadow_map;\n"
	"layout(binding = 1) uniform sampler2D palette;\n"
	"in vec3 v_normal;\n"
	"in vec4 v_light;\n"
	"in float v_palette;\n"
	"layout(location = 0) out vec4 o_albedo;\n"
	"layout(location = 1) out vec4 o_normal;\n"
	"void main() {\n"
	"	vec3 lp = v_light.xyz / v_light.w * 0.5 + 0.5;\n"
	"	float occluder = texture(shadow_map, lp.xy).r;\n"
	"	float lit = lp.z - 0.004 > occluder ? 0.25 : 1.0;\n"
	"	vec3 albedo = texture(palette, vec2(v_palette, 0.5)).rgb;\n"
	"	o_albedo = vec4(albedo + gd_burn(gl_FragCoord.xy), lit);\n"
	"	o_normal = vec4(normalize(v_normal) * 0.5 + 0.5, 1.0);\n"
	"}\n";

const char gd_scene_screen_vs[] =
	"layout(location = 0) in vec3 a_pos;\n"
	"layout(location = 2) in vec4 a_inst; /* the rectangle x0, y0, x1, y1 in clip space */\n"
	"out vec2 v_uv;\n"
	"void main() {\n"
	"	v_uv = a_pos.xy;\n"
	"	gl_Position = vec4(mix(a_inst.xy, a_inst.zw, a_pos.xy), 0.0, 1.0);\n"
	"}\n";

static const char gd_lighting_fs[] =
	"layout(binding = 0) uniform sampler2D albedo;\n"
	"layout(binding = 1) uniform sampler2D normal_map;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"void main() {\n"
	"	ivec2 p = ivec2(gl_FragCoord.xy);\n"
	"	vec4 a = texelFetch(albedo, p, 0);\n"
	"	vec3 n = normalize(texelFetch(normal_map, p, 0).xyz * 2.0 - 1.0);\n"
	"	float ndl = max(dot(n, frame.light_dir.xyz), 0.0);\n"
	"	vec3 c = a.rgb * (frame.light_dir.w + ndl * a.a);\n"
	"	o_color = vec4(c * 0.8 + gd_burn(gl_FragCoord.xy), 1.0);\n"
	"}\n";

static const char gd_sprite_fs[] =
	"in vec2 v_uv;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"void main() {\n"
	"	float glow = max(1.0 - length(v_uv - 0.5) * 2.0, 0.0);\n"
	"	o_color = vec4(vec3(0.25, 0.2, 0.1) * glow * glow + gd_burn(gl_FragCoord.xy), 0.0);\n"
	"}\n";

static const char gd_bloom_cs[] =
	"layout(local_size_x = 16) in;\n"
	"layout(std430, binding = 0) writeonly buffer Sprites { vec4 rect[]; } sprites;\n"
	"void main() {\n"
	"	uint i = gl_GlobalInvocationID.x;\n"
	"	float x = float(i % 4u) * 0.5 - 1.0;\n"
	"	float y = float(i / 4u) * 0.5 - 1.0;\n"
	"	sprites.rect[i] = vec4(x, y, x + 0.5, y + 0.5) + gd_burn(vec2(float(i), 0.0));\n"
	"}\n";

static const char gd_composite_fs[] =
	"layout(binding = 0) uniform sampler2D hdr;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"void main() {\n"
	"	vec3 c = texelFetch(hdr, ivec2(gl_FragCoord.xy), 0).rgb;\n"
	"	c = c * (1.0 + c * 0.5) / (1.0 + c * 0.25);\n"
	"	o_color = vec4(c + gd_burn(gl_FragCoord.xy), 1.0);\n"
	"}\n";

/* The vignette: no gd_burn, so composite's time follows its load as the others do (one
 * full-screen layer of loaded fragments per pass). */
static const char gd_overlay_fs[] =
	"in vec2 v_uv;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"void main() {\n"
	"	vec2 d = v_uv - 0.5;\n"
	"	o_color = vec4(0.0, 0.0, 0.0, clamp(dot(d, d) * 1.6, 0.0, 0.6));\n"
	"}\n";

const char gd_scene_flat_fs[] =
	"in vec2 v_uv;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"void main() {\n"
	"	o_color = vec4(v_uv, 0.5, 1.0);\n"
	"}\n";

void gd_scene_label(GLenum identifier, GLuint name, const char *label)
{
	gd_load_gl.glObjectLabel(identifier, name, -1, label);
}

int gd_scene_check_error(const char *where)
{
	GLenum e = gd_load_gl.glGetError();
	if (e == GL_NO_ERROR)
		return 0;
	fprintf(stderr, GD_NAME ": GL error 0x%04x %s\n", e, where);
	return -1;
}

/* Whether a shader compiled (program: whether a program linked); if not, prints its log and
 * deletes it. */
static bool gd_built_check(GLuint object, bool program, const char *name)
{
	GLint ok = GL_FALSE;
	(program ? gd_load_gl.glGetProgramiv : gd_load_gl.glGetShaderiv)(
		object, program ? GL_LINK_STATUS : GL_COMPILE_STATUS, &ok);
	if (ok)
		return true;
	char log[2048] = "";
	(program ? gd_load_gl.glGetProgramInfoLog : gd_load_gl.glGetShaderInfoLog)(object, sizeof(log), NULL, log);
	if (program)
		fprintf(stderr, GD_NAME ": program %s does not link:\n%s\n", name, log);
	else
		fprintf(stderr, GD_NAME ": shader of %s does not compile:\n%s\n", name, log);
	(program ? gd_load_gl.glDeleteProgram : gd_load_gl.glDeleteShader)(object);
	return false;
}

static GLuint gd_shader_compile(const char *name, GLenum stage, const char *define,
				const char *body)
{
	GLuint shader = gd_load_gl.glCreateShader(stage);
	const char *sources[] = {gd_common_glsl, define ? define : "", body};
	gd_load_gl.glShaderSource(shader, 3, sources, NULL);
	gd_load_gl.glCompileShader(shader);
	return gd_built_check(shader, false, name) ? shader : 0;
}

/* Either vertex + fragment or compute; `define` (a "#define ...\n" line, or NULL) goes
 * between the common header and each body. */
GLuint gd_scene_program_build(const char *name, const char *define, const char *vertex,
			const char *fragment, const char *compute)
{
	GLuint shaders[2] = {0, 0};
	if (compute) {
		shaders[0] = gd_shader_compile(name, GL_COMPUTE_SHADER, define, compute);
	} else {
		shaders[0] = gd_shader_compile(name, GL_VERTEX_SHADER, define, vertex);
		shaders[1] = gd_shader_compile(name, GL_FRAGMENT_SHADER, define, fragment);
	}
	GLuint program = 0;
	if (!shaders[0] || (!compute && !shaders[1]))
		goto out;
	program = gd_load_gl.glCreateProgram();
	for (int i = 0; i < 2; i++)
		if (shaders[i])
			gd_load_gl.glAttachShader(program, shaders[i]);
	gd_load_gl.glLinkProgram(program);
	if (!gd_built_check(program, true, name)) {
		program = 0;
		goto out;
	}
	gd_scene_label(GL_PROGRAM, program, name);
out:
	for (int i = 0; i < 2; i++)
		if (shaders[i])
			gd_load_gl.glDeleteShader(shaders[i]);
	return program;
}

/* ---- geometry, targets, buffers ---- */

struct gd_vertex {
	float pos[3];
	float normal[3];
};

static void gd_vertex_put(struct gd_vertex *v, float x, float y, float z, float nx, float ny,
			  float nz)
{
	*v = (struct gd_vertex){{x, y, z}, {nx, ny, nz}};
}

/* Fills vertices and indices in the layout gd_scene_meshes describes. */
static void gd_geometry_build(struct gd_vertex *v, uint16_t *idx)
{
	static const float ground[4][2] = {{-40, -40}, {40, -40}, {40, 40}, {-40, 40}};
	static const uint16_t quad_tris[6] = {0, 1, 2, 0, 2, 3};
	uint32_t nv = 0, ni = 0;
	for (int i = 0; i < 4; i++)
		gd_vertex_put(&v[nv++], ground[i][0], 0, ground[i][1], 0, 1, 0);
	for (int i = 0; i < 6; i++)
		idx[ni++] = quad_tris[i];
	/* Cube: per face a normal along axis a with sign s, corners from the two other axes. */
	for (int a = 0; a < 3; a++)
		for (int s = -1; s <= 1; s += 2) {
			uint16_t base = (uint16_t)nv;
			static const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
			for (int c = 0; c < 4; c++) {
				float p[3], n[3] = {0, 0, 0};
				p[a] = 0.5f * (float)s;
				p[(a + 1) % 3] = 0.5f * corner[c][0];
				p[(a + 2) % 3] = 0.5f * corner[c][1];
				n[a] = (float)s;
				gd_vertex_put(&v[nv++], p[0], p[1] + 0.5f, p[2], n[0], n[1], n[2]);
			}
			for (int i = 0; i < 6; i++)
				idx[ni++] = (uint16_t)(base + quad_tris[i]);
		}
	static const float quad[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
	uint16_t quad_base = (uint16_t)nv;
	for (int i = 0; i < 4; i++)
		gd_vertex_put(&v[nv++], quad[i][0], quad[i][1], 0, 0, 0, 1);
	for (int i = 0; i < 6; i++)
		idx[ni++] = (uint16_t)(quad_base + quad_tris[i]);
	/* Expanded copies for the glDrawArrays* forms. */
	for (int i = 0; i < 6; i++)
		v[nv++] = v[idx[i]];
	for (int i = 0; i < 36; i++)
		v[nv++] = v[idx[6 + i]];
	static const int strip[4] = {0, 1, 3, 2};
	for (int i = 0; i < 4; i++)
		v[nv++] = v[quad_base + strip[i]];
}

void gd_scene_geometry_upload(GLuint vbo, GLuint ibo)
{
	struct gd_vertex v[GD_VERTEX_COUNT];
	uint16_t idx[GD_INDEX_COUNT];
	gd_geometry_build(v, idx);
	gd_load_gl.glBindBuffer(GL_ARRAY_BUFFER, vbo);
	gd_load_gl.glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
	gd_load_gl.glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
	gd_load_gl.glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx, GL_STATIC_DRAW);
	gd_scene_label(GL_BUFFER, vbo, "geometry_vertices");
	gd_scene_label(GL_BUFFER, ibo, "geometry_indices");
}

static void gd_instances_build(float inst[GD_INSTANCE_COUNT][4])
{
	memcpy(inst[GD_INSTANCE_GROUND], (float[4]){0, 0, 0, 1}, sizeof(inst[0]));
	for (uint32_t i = 0; i < GD_INSTANCE_CUBE_COUNT; i++) {
		float *c = inst[GD_INSTANCE_CUBES + i];
		c[0] = (float)(i % 4) * 2.5f - 3.75f;
		c[1] = 0;
		c[2] = (float)(i / 4) * 2.5f - 2.5f;
		c[3] = 1.0f + (float)((i * 7u + 3u) % 4u) * 0.75f;
	}
	for (uint32_t i = 0; i < GD_INSTANCE_STRIP_COUNT; i++) {
		float y0 = -1.0f + 2.0f * (float)i / GD_INSTANCE_STRIP_COUNT;
		float y1 = -1.0f + 2.0f * (float)(i + 1) / GD_INSTANCE_STRIP_COUNT;
		memcpy(inst[GD_INSTANCE_STRIPS + i], (float[4]){-1, y0, 1, y1}, sizeof(inst[0]));
	}
	memcpy(inst[GD_INSTANCE_FULL], (float[4]){-1, -1, 1, 1}, sizeof(inst[0]));
}

/* The instance buffer's contents; --misuse/--control map-sync rewrite them each frame. */
void gd_scene_instances_write(void *dst)
{
	float inst[GD_INSTANCE_COUNT][4];
	gd_instances_build(inst);
	memcpy(dst, inst, sizeof(inst));
}

const uint8_t gd_scene_palette_texels[16] = {
	200, 90, 70, 255, 90, 170, 110, 255, 220, 200, 120, 255, 120, 140, 210, 255,
};

static GLuint gd_texture_create(GLenum format, uint32_t w, uint32_t h, const char *label)
{
	GLuint t = 0;
	gd_load_gl.glGenTextures(1, &t);
	gd_load_gl.glBindTexture(GL_TEXTURE_2D, t);
	gd_load_gl.glTexStorage2D(GL_TEXTURE_2D, 1, format, (GLsizei)w, (GLsizei)h);
	gd_load_gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	gd_load_gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	gd_load_gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	gd_load_gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	gd_scene_label(GL_TEXTURE, t, label);
	return t;
}

const char *gd_scene_format_name(GLenum format)
{
	switch (format) {
	case GL_RGBA8: return "GL_RGBA8";
	case GL_R32F: return "GL_R32F";
	case GL_DEPTH_COMPONENT16: return "GL_DEPTH_COMPONENT16";
	case GL_DEPTH_COMPONENT24: return "GL_DEPTH_COMPONENT24";
	case GL_DEPTH_COMPONENT32F: return "GL_DEPTH_COMPONENT32F";
	case GL_STENCIL_INDEX8: return "GL_STENCIL_INDEX8";
	default: return "other";
	}
}

/* The pbuffer's attachments, from the sizes of its EGL config. */
static void gd_default_formats(struct gd_context *ctx, GLenum out[4])
{
	EGLint r = 0, g = 0, b = 0, a = 0, d = 0, s = 0;
	gd_load_gl.eglGetConfigAttrib(ctx->display, ctx->config, EGL_RED_SIZE, &r);
	gd_load_gl.eglGetConfigAttrib(ctx->display, ctx->config, EGL_GREEN_SIZE, &g);
	gd_load_gl.eglGetConfigAttrib(ctx->display, ctx->config, EGL_BLUE_SIZE, &b);
	gd_load_gl.eglGetConfigAttrib(ctx->display, ctx->config, EGL_ALPHA_SIZE, &a);
	gd_load_gl.eglGetConfigAttrib(ctx->display, ctx->config, EGL_DEPTH_SIZE, &d);
	gd_load_gl.eglGetConfigAttrib(ctx->display, ctx->config, EGL_STENCIL_SIZE, &s);
	out[GD_SLOT_COLOR0] = r == 8 && g == 8 && b == 8 && a == 8 ? GL_RGBA8 : GD_FORMAT_OTHER;
	out[GD_SLOT_COLOR1] = 0;
	out[GD_SLOT_DEPTH] = d == 24 ? GL_DEPTH_COMPONENT24 : d == 16 ? GL_DEPTH_COMPONENT16
					: d == 32 ? GL_DEPTH_COMPONENT32F : d ? GD_FORMAT_OTHER : 0;
	out[GD_SLOT_STENCIL] = s == 8 ? GL_STENCIL_INDEX8 : s ? GD_FORMAT_OTHER : 0;
}

static int gd_fbo_create(struct gd_context *ctx, enum gd_pass pass, GLuint color0, GLenum format0,
			 GLuint color1, GLenum format1, GLuint depth)
{
	GLenum *formats = ctx->attachment_format[pass];
	formats[GD_SLOT_COLOR0] = format0;
	formats[GD_SLOT_COLOR1] = color1 ? format1 : 0;
	formats[GD_SLOT_DEPTH] = depth ? GL_DEPTH_COMPONENT24 : 0;
	formats[GD_SLOT_STENCIL] = 0;
	GLuint fbo = 0;
	gd_load_gl.glGenFramebuffers(1, &fbo);
	gd_load_gl.glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	gd_load_gl.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color0, 0);
	if (color1)
		gd_load_gl.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D,
					  color1, 0);
	if (depth)
		gd_load_gl.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth,
					  0);
	static const GLenum bufs[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
	gd_load_gl.glDrawBuffers(color1 ? 2 : 1, bufs);
	GLenum status = gd_load_gl.glCheckFramebufferStatus(GL_FRAMEBUFFER);
	const char *label = gd_scene_pass_framebuffer_label(&ctx->opt, pass);
	gd_scene_label(GL_FRAMEBUFFER, fbo, label);
	ctx->fbo[pass] = fbo;
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, GD_NAME ": %s is incomplete (0x%04x)\n", label, status);
		return -1;
	}
	return 0;
}

static int gd_targets_create(struct gd_context *ctx)
{
	uint32_t w = ctx->opt.width, h = ctx->opt.height;
	ctx->shadow_map = gd_texture_create(GL_R32F, w, h, "shadow_map");
	ctx->shadow_depth = gd_texture_create(GL_DEPTH_COMPONENT24, w, h, "shadow_depth");
	ctx->albedo = gd_texture_create(GL_RGBA8, w, h, "gbuffer_albedo");
	ctx->normal = gd_texture_create(GL_RGBA8, w, h, "gbuffer_normal");
	ctx->gbuffer_depth = gd_texture_create(GL_DEPTH_COMPONENT24, w, h, "gbuffer_depth");
	ctx->hdr = gd_texture_create(GL_RGBA8, w, h, "lighting_hdr");
	ctx->palette = gd_texture_create(GL_RGBA8, 4, 1, "palette");
	gd_load_gl.glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 4, 1, GL_RGBA, GL_UNSIGNED_BYTE,
			   gd_scene_palette_texels);
	if (gd_fbo_create(ctx, GD_PASS_SHADOW, ctx->shadow_map, GL_R32F, 0, 0, ctx->shadow_depth) ||
	    gd_fbo_create(ctx, GD_PASS_GBUFFER, ctx->albedo, GL_RGBA8, ctx->normal, GL_RGBA8,
			  ctx->gbuffer_depth) ||
	    gd_fbo_create(ctx, GD_PASS_LIGHTING, ctx->hdr, GL_RGBA8, 0, 0, 0) ||
	    gd_fbo_create(ctx, GD_PASS_BLOOM, ctx->hdr, GL_RGBA8, 0, 0, 0))
		return -1;
	if (ctx->opt.no_surface) {
		/* No pbuffer: composite renders into targets of its own, as a headless program. */
		ctx->composite_color = gd_texture_create(GL_RGBA8, w, h, "composite_color");
		ctx->composite_depth = gd_texture_create(GL_DEPTH_COMPONENT24, w, h,
							 "composite_depth");
		if (gd_fbo_create(ctx, GD_PASS_COMPOSITE, ctx->composite_color, GL_RGBA8, 0, 0,
				  ctx->composite_depth))
			return -1;
	} else {
		gd_default_formats(ctx, ctx->attachment_format[GD_PASS_COMPOSITE]);
	}
	gd_load_gl.glBindFramebuffer(GL_FRAMEBUFFER, 0);
	return 0;
}

static int gd_programs_create(struct gd_context *ctx)
{
	GLuint *p = ctx->program;
	p[GD_PASS_SHADOW] = gd_scene_program_build("shadow_program", "#define GD_SHADOW 1\n", gd_scene_vs,
					     gd_shadow_fs, NULL);
	p[GD_PASS_GBUFFER] = gd_scene_program_build("gbuffer_program", NULL, gd_scene_vs, gd_gbuffer_fs,
					      NULL);
	p[GD_PASS_LIGHTING] = gd_scene_program_build("lighting_program", NULL, gd_scene_screen_vs,
					       gd_lighting_fs, NULL);
	p[GD_PASS_BLOOM] = gd_scene_program_build("bloom_sprite_program", NULL, gd_scene_screen_vs,
					    gd_sprite_fs, NULL);
	p[GD_PASS_COMPOSITE] = gd_scene_program_build("composite_program", NULL, gd_scene_screen_vs,
						gd_composite_fs, NULL);
	ctx->overlay_program = gd_scene_program_build("overlay_program", NULL, gd_scene_screen_vs,
						gd_overlay_fs, NULL);
	ctx->bloom_compute = gd_scene_program_build("bloom_compute_program", NULL, NULL, NULL,
					      gd_bloom_cs);
	for (int i = 0; i < GD_PASS_COUNT; i++)
		if (!p[i])
			return -1;
	return ctx->overlay_program && ctx->bloom_compute ? 0 : -1;
}

/* Frame constants in slot 0, pass i's in slot 1 + i, each slot ubo_stride bytes. */
uint32_t gd_scene_constants_stride(const struct gd_context *ctx)
{
	uint32_t align = ctx->ubo_align > 0 ? (uint32_t)ctx->ubo_align : 256u;
	return (256u + align - 1) / align * align;
}

static void gd_buffers_create(struct gd_context *ctx)
{
	GLuint b[5];
	gd_load_gl.glGenBuffers(5, b);
	ctx->geometry_vbo = b[0];
	ctx->geometry_ibo = b[1];
	ctx->instance_vbo = b[2];
	ctx->sprite_buffer = b[3];
	ctx->constants_ubo = b[4];

	gd_load_gl.glGenVertexArrays(1, &ctx->scene_vao);
	gd_load_gl.glBindVertexArray(ctx->scene_vao);
	gd_scene_label(GL_VERTEX_ARRAY, ctx->scene_vao, "scene_vao");
	gd_scene_geometry_upload(ctx->geometry_vbo, ctx->geometry_ibo);
	gd_load_gl.glBindBuffer(GL_ARRAY_BUFFER, ctx->geometry_vbo);
	gd_load_gl.glEnableVertexAttribArray(0);
	gd_load_gl.glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(struct gd_vertex), (void *)0);
	gd_load_gl.glEnableVertexAttribArray(1);
	gd_load_gl.glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(struct gd_vertex),
				 (void *)offsetof(struct gd_vertex, normal));

	float inst[GD_INSTANCE_COUNT][4];
	gd_instances_build(inst);
	gd_load_gl.glBindBuffer(GL_ARRAY_BUFFER, ctx->instance_vbo);
	gd_load_gl.glBufferData(GL_ARRAY_BUFFER, sizeof(inst), inst, GL_DYNAMIC_DRAW);
	gd_scene_label(GL_BUFFER, ctx->instance_vbo, "instances");
	gd_load_gl.glEnableVertexAttribArray(2);
	gd_load_gl.glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, 16, (void *)0);
	gd_load_gl.glVertexAttribDivisor(2, 1);

	gd_load_gl.glBindBuffer(GL_SHADER_STORAGE_BUFFER, ctx->sprite_buffer);
	gd_load_gl.glBufferData(GL_SHADER_STORAGE_BUFFER, GD_SPRITE_COUNT * 16, NULL, GL_DYNAMIC_COPY);
	gd_scene_label(GL_BUFFER, ctx->sprite_buffer, "bloom_sprites");

	/* --misuse bufsubdata-static: the same glBufferSubData calls on a buffer declared
	 * STATIC_DRAW (the driver's hint that it is written once). */
	GLenum usage = ctx->opt.mode[GD_MISUSE_BUFSUBDATA_STATIC] == GD_MODE_MISUSE
			       ? GL_STATIC_DRAW
			       : GL_DYNAMIC_DRAW;
	gd_load_gl.glGetIntegerv(GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT, &ctx->ubo_align);
	gd_load_gl.glBindBuffer(GL_UNIFORM_BUFFER, ctx->constants_ubo);
	gd_load_gl.glBufferData(GL_UNIFORM_BUFFER, (GLsizeiptr)gd_scene_constants_stride(ctx) * (1 + GD_PASS_COUNT),
			NULL, usage);
	gd_scene_label(GL_BUFFER, ctx->constants_ubo, "constants");
}

int gd_scene_create(struct gd_context *ctx)
{
	gd_buffers_create(ctx);
	if (gd_targets_create(ctx) || gd_programs_create(ctx))
		return -1;
	gd_load_gl.glGenQueries(GD_RING, ctx->queries);
	gd_load_gl.glGenBuffers(GD_RING, ctx->pbo);
	size_t image = (size_t)ctx->opt.width * ctx->opt.height * 4;
	for (uint32_t i = 0; i < GD_RING; i++) {
		gd_load_gl.glBindBuffer(GL_PIXEL_PACK_BUFFER, ctx->pbo[i]);
		gd_load_gl.glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)image, NULL, GL_STREAM_READ);
		gd_scene_label(GL_BUFFER, ctx->pbo[i], "readback_pbo");
	}
	gd_load_gl.glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	ctx->readback = malloc(image);
	if (!ctx->readback) {
		fprintf(stderr, GD_NAME ": out of memory\n");
		return -1;
	}
	return gd_scene_check_error("creating the scene");
}

void gd_scene_destroy(struct gd_context *ctx)
{
	free(ctx->readback);
	ctx->readback = NULL;
	if (ctx->context == EGL_NO_CONTEXT)
		return;
	for (uint32_t i = 0; i < GD_RING; i++) {
		if (ctx->pbo_fence[i])
			gd_load_gl.glDeleteSync(ctx->pbo_fence[i]);
		if (ctx->frame_fence[i])
			gd_load_gl.glDeleteSync(ctx->frame_fence[i]);
	}
	gd_load_gl.glDeleteQueries(GD_RING, ctx->queries);
	gd_load_gl.glDeleteBuffers(GD_RING, ctx->pbo);
	for (int i = 0; i < GD_PASS_COUNT; i++) {
		if (ctx->fbo[i])
			gd_load_gl.glDeleteFramebuffers(1, &ctx->fbo[i]);
		if (ctx->program[i])
			gd_load_gl.glDeleteProgram(ctx->program[i]);
	}
	gd_load_gl.glDeleteProgram(ctx->overlay_program);
	gd_load_gl.glDeleteProgram(ctx->bloom_compute);
	GLuint t[] = {ctx->shadow_map, ctx->shadow_depth, ctx->albedo, ctx->normal,
		      ctx->gbuffer_depth, ctx->hdr, ctx->palette, ctx->composite_color,
		      ctx->composite_depth};
	gd_load_gl.glDeleteTextures(sizeof(t) / sizeof(t[0]), t);
	GLuint b[] = {ctx->geometry_vbo, ctx->geometry_ibo, ctx->instance_vbo, ctx->sprite_buffer,
		      ctx->constants_ubo};
	gd_load_gl.glDeleteBuffers(sizeof(b) / sizeof(b[0]), b);
	gd_load_gl.glDeleteVertexArrays(1, &ctx->scene_vao);
}
