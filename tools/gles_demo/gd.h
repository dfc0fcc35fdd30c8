/* pp_gles_demo: a deterministic multi-pass OpenGL ES 3.2 renderer on the EGL surfaceless
 * platform, the GLES workload of passprobe's shim tests (docs/demo.md). Internal header
 * shared by the demo's translation units; nothing here is installed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "demo_mat4.h"
#include "gd_api.h"

#define GD_NAME "pp_gles_demo"

/* Exit codes: 2 for a usage error, 77 (ctest's usual skip code) where EGL, the surfaceless
 * platform or an OpenGL ES 3.2 context is unavailable, 1 for any other failure. */
#define GD_EXIT_FAILURE 1
#define GD_EXIT_USAGE 2
#define GD_EXIT_UNAVAILABLE 77

enum gd_pass {
	GD_PASS_SHADOW,
	GD_PASS_GBUFFER,
	GD_PASS_LIGHTING,
	GD_PASS_BLOOM,
	GD_PASS_COMPOSITE,
	GD_PASS_COUNT
};

/* One switch per GLES diagnostic of passprobe; each has a misuse and a control mode. */
enum gd_misuse {
	GD_MISUSE_READPIXELS,
	GD_MISUSE_FINISH,
	GD_MISUSE_QUERY_RESULT,
	GD_MISUSE_CLIENTWAITSYNC,
	GD_MISUSE_MAP_SYNC,
	GD_MISUSE_TEXSUBIMAGE,
	GD_MISUSE_BUFSUBDATA_STATIC,
	GD_MISUSE_TILE_LOAD_STORE,
	GD_MISUSE_COUNT
};

enum gd_mode {
	GD_MODE_DEFAULT, /* neither switch given */
	GD_MODE_MISUSE,
	GD_MODE_CONTROL,
};

#define GD_LOAD_MAX 1000u
#define GD_EXTENT_MAX 4096u
#define GD_THREADS_MAX 16u
/* Fragment-shader loop iterations per unit of --load. */
#define GD_LOAD_ITERATIONS 64u
/* Depth of the rings of the control modes: frame f reads what frame f-2 wrote. */
#define GD_RING 3u
#define GD_RING_LAG 2u

struct gd_options {
	uint32_t frames;
	uint32_t width;
	uint32_t height;
	uint32_t threads;
	uint32_t load[GD_PASS_COUNT];
	enum gd_mode mode[GD_MISUSE_COUNT];
	bool no_swap;
	bool no_surface; /* implies no_swap */
	bool no_groups;
	bool expect;
	bool debug_callback;
	bool debug_insert;
	enum { GD_DEBUG_MUTE_NONE = 0, GD_DEBUG_MUTE_THIRD_PARTY, GD_DEBUG_MUTE_OUTPUT } debug_mute;
	bool timings;
	bool info;
	/* Where the display comes from: Mesa's surfaceless platform, or an EGL device
	 * (EGL_EXT_platform_device: NVIDIA's EGL without a window system); auto: surfaceless
	 * where EGL has it, else a device. */
	enum { GD_EGL_PLATFORM_AUTO = 0, GD_EGL_PLATFORM_SURFACELESS, GD_EGL_PLATFORM_DEVICE } egl_platform;
	const char *output;    /* PPM path, or NULL */
	const char *gl_errors; /* glGetError sequence file, or NULL */
};

enum gd_draw_form {
	GD_DRAW_ARRAYS,
	GD_DRAW_ELEMENTS,
	GD_DRAW_RANGE_ELEMENTS,
	GD_DRAW_ARRAYS_INSTANCED,
	GD_DRAW_ELEMENTS_INSTANCED,
};

enum gd_mesh {
	GD_MESH_GROUND, /* a 40x40 floor at y = 0 */
	GD_MESH_CUBE,   /* a box, x and z in [-0.5, 0.5], y in [0, 1] */
	GD_MESH_QUAD,   /* the unit square [0,1]^2, placed by the instance's rectangle */
	GD_MESH_COUNT
};

/* Where a mesh lies in the geometry buffers: `arrays_*` are whole vertices for glDrawArrays*,
 * `index_*` indices (into the indexed vertices, `min_vertex..max_vertex`) for glDraw*Elements*. */
struct gd_mesh_range {
	GLenum arrays_mode;
	uint32_t arrays_first;
	uint32_t arrays_count;
	GLenum elements_mode;
	uint32_t index_first;
	uint32_t index_count;
	uint32_t min_vertex;
	uint32_t max_vertex;
};

/* Instance data (one vec4 per instance, attribute 2): cubes' positions and heights,
 * full-screen rectangles, strips; a draw starts at `first_instance` by offsetting the
 * attribute (GLES has no base instance). Bloom's sprites come from the compute output. */
enum gd_instance {
	GD_INSTANCE_GROUND = 0,
	GD_INSTANCE_CUBES = 1,
	GD_INSTANCE_CUBE_COUNT = 12,
	GD_INSTANCE_STRIPS = GD_INSTANCE_CUBES + GD_INSTANCE_CUBE_COUNT,
	GD_INSTANCE_STRIP_COUNT = 4,
	GD_INSTANCE_FULL = GD_INSTANCE_STRIPS + GD_INSTANCE_STRIP_COUNT,
	GD_INSTANCE_COUNT
};
#define GD_SPRITE_COUNT 16u

struct gd_draw {
	enum gd_draw_form form;
	enum gd_mesh mesh;
	uint32_t first_instance;
	uint32_t instances; /* 1 for the non-instanced forms */
	bool sprites;       /* instance data from bloom's compute output */
	bool overlay;       /* composite's blended vignette program */
};

struct gd_pass_desc {
	const char *name;
	const char *fbo_label; /* NULL: the pbuffer's default framebuffer */
	const struct gd_draw *draws;
	uint32_t draw_count;
	uint32_t dispatches; /* glDispatchCompute calls, each of GD_SPRITE_COUNT/16 groups */
	uint32_t barriers;   /* glMemoryBarrier calls */
};

/* What a profiler sees of one pass in one frame, computed from the tables alone. */
struct gd_pass_counts {
	uint32_t draws;
	uint32_t draws_arrays;  /* glDrawArrays, glDrawArraysInstanced */
	uint32_t draws_indexed; /* glDrawElements, glDrawRangeElements, glDrawElementsInstanced */
	uint64_t instances;     /* sum of instance counts (1 per non-instanced draw) */
	uint64_t vertices;      /* vertex count x instances over the glDrawArrays* forms */
	uint64_t indices;       /* index count x instances over the glDraw*Elements* forms */
	uint32_t dispatches;
	uint64_t workgroups;
	uint32_t barriers;
	/* Per frame: 0 or 1. Summed over frames in the issued counts (gd_context.issued). */
	uint32_t clear;      /* the pass starts with glClear of everything it renders to */
	uint32_t invalidate; /* the pass ends with glInvalidateFramebuffer (depth) */
};

#define GD_THREAD_PASSES 2u

struct gd_context {
	struct gd_options opt;

	EGLDisplay display;
	const char *egl_platform; /* "surfaceless" or "device": the one the display came from */
	EGLConfig config;
	EGLContext context;
	EGLSurface surface;
	int gles_major, gles_minor;

	GLint ubo_align;
	GLuint geometry_vbo, geometry_ibo;
	GLuint instance_vbo, sprite_buffer, constants_ubo;
	GLuint scene_vao;
	GLsync share_fence; /* the uploads --threads' shared contexts wait for */
	GLuint program[GD_PASS_COUNT];
	GLuint overlay_program, bloom_compute;
	GLuint fbo[GD_PASS_COUNT]; /* 0 for composite */
	GLuint shadow_map, shadow_depth, albedo, normal, gbuffer_depth, hdr, palette;
	GLuint composite_color, composite_depth; /* --no-surface: composite's own targets */
	/* Internal formats of each pass's colour 0, colour 1 and depth/stencil attachments
	 * (0: none), for --expect; the pbuffer's from its EGL config. */
	GLenum attachment_format[GD_PASS_COUNT][4];

	/* control/misuse state */
	GLuint queries[GD_RING];
	bool query_pending[GD_RING];
	GLuint pbo[GD_RING];
	GLsync pbo_fence[GD_RING];
	GLsync frame_fence[GD_RING];
	uint8_t *readback; /* --misuse readpixels: client memory */
	uint32_t readbacks_done, queries_read, fences_signalled;

	FILE *gl_errors;
	FILE *output_file;
	struct gd_timings *timings; /* --timings, where the extension is there */
	/* What the renderer really issued, counted at the calls, over all frames (--expect
	 * prints it at the end as "issued" lines). */
	struct gd_pass_counts issued[GD_PASS_COUNT];
	uint32_t swaps;
};

/* gd_options.c */
extern const char *const gd_options_pass_names[GD_PASS_COUNT];
extern const char *const gd_options_misuse_names[GD_MISUSE_COUNT];
/* Returns 0 to run, 1 when --help was printed, -1 on a usage error (already reported). */
int gd_options_parse(struct gd_options *opt, int argc, char **argv);

/* gd_egl.c */
/* Returns 0, GD_EXIT_UNAVAILABLE or GD_EXIT_FAILURE (already reported). */
int gd_egl_create(struct gd_context *ctx);
void gd_egl_destroy(struct gd_context *ctx);
int gd_egl_debug_callback_install(int mute);
/* --debug-insert: one performance message of the application's own, through the callback. */
#define GD_DEBUG_INSERT_ID 0x7070u
void gd_egl_debug_insert(void);
/* Prints the message for `call` failing with eglGetError(). */
void gd_egl_fail(const char *call);

/* gd_scene.c: the tables, geometry, programs, targets. */
extern const struct gd_pass_desc gd_scene_passes[GD_PASS_COUNT];
extern const struct gd_mesh_range gd_scene_meshes[GD_MESH_COUNT];
#define GD_FORMAT_OTHER 0xFFFFu /* a pbuffer format gd_scene_format_name has no name for */
enum gd_attachment_slot { GD_SLOT_COLOR0, GD_SLOT_COLOR1, GD_SLOT_DEPTH, GD_SLOT_STENCIL };
/* "GL_RGBA8"-style name of the internal formats the demo uses. */
const char *gd_scene_format_name(GLenum format);
/* The label of the pass's framebuffer, "default" for the pbuffer's. */
const char *gd_scene_pass_framebuffer_label(const struct gd_options *opt, enum gd_pass pass);
void gd_scene_pass_counts_get(const struct gd_options *opt, enum gd_pass pass,
			struct gd_pass_counts *out);
/* Adds one draw's numbers to c. */
void gd_scene_pass_counts_draw(struct gd_pass_counts *c, const struct gd_draw *d);
int gd_scene_create(struct gd_context *ctx);
void gd_scene_destroy(struct gd_context *ctx);
GLuint gd_scene_program_build(const char *name, const char *define, const char *vertex,
			const char *fragment, const char *compute);
/* Sources shared with the threads. */
extern const char gd_scene_screen_vs[];
extern const char gd_scene_flat_fs[];
/* The geometry buffers' contents: vertices of vec3 position + vec3 normal, 16-bit indices. */
void gd_scene_geometry_upload(GLuint vbo, GLuint ibo);
void gd_scene_label(GLenum identifier, GLuint name, const char *label);
/* Writes the instance buffer's (constant) contents to dst. */
void gd_scene_instances_write(void *dst);
#define GD_INSTANCE_BYTES (GD_INSTANCE_COUNT * 16u)
extern const uint8_t gd_scene_palette_texels[16];
uint32_t gd_scene_constants_stride(const struct gd_context *ctx);
int gd_scene_check_error(const char *where);

/* gd_frame.c */
int gd_frame_render(struct gd_context *ctx, uint32_t frame);
/* Issues one draw of the tables, its instances read from instance_buffer (attribute 2 of
 * the bound vertex array). */
void gd_frame_draw_issue(GLuint instance_buffer, const struct gd_draw *d);
int gd_frame_finish(struct gd_context *ctx);

/* gd_timings.c */
bool gd_timings_gl_extension_has(const char *name);
/* Returns 0 (ctx->timings stays NULL where timestamps are unavailable, with a line saying
 * why) or -1. */
int gd_timings_create(struct gd_context *ctx);
void gd_timings_mark(struct gd_context *ctx, uint32_t frame, enum gd_pass pass, bool end);
void gd_timings_collect(struct gd_context *ctx, uint32_t frame);
/* Reads what is available without waiting, prints "timing ..." lines, frees. */
void gd_timings_finish(struct gd_context *ctx);

/* gd_threads.c */
struct gd_threads;
/* Per frame of each thread, from the threads' pass table. */
void gd_threads_counts_get(uint32_t *passes, uint32_t *draws);
int gd_threads_start(struct gd_context *ctx, struct gd_threads **out);
/* Joins every thread; returns 0 when all of them rendered every frame. With print_issued,
 * prints what each thread issued over all its frames ("issued thread ..."). */
int gd_threads_join(struct gd_threads *threads, bool print_issued);

/* Matrices: tools/common/demo_mat4.h, in DEMO_CLIP_GL. */
