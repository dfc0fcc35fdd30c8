#pragma once
/* The GLES diagnostics' per-context state, shared by gles_diag.c and gles_diag_hooks.c. */
#include "gles_diag.h"
#include "gles_internal.h"

/* Message ids of passprobe's findings in the application's KHR_debug callback: this base +
 * the rule's index (enum pp_diag_rule; docs/diagnostics.md lists them). */
#define GLES_DIAG_ID_BASE 0x50500000u

#define GLES_DIAG_BUFFERS 512  /* direct-mapped by name: what draws of recent frames used */
#define GLES_DIAG_TEXTURES 512
#define GLES_DIAG_UNITS 32
#define GLES_DIAG_IMAGE_UNITS 8 /* ES 3.1 guarantees 4 image units to fragment and compute shaders */
#define GLES_DIAG_UNIFORM_INDICES 16
#define GLES_DIAG_STORAGE_INDICES 8

/* Generic buffer binding points followed. */
enum gles_bt {
	GLES_BT_ARRAY = 0,
	GLES_BT_ELEMENT,
	GLES_BT_UNIFORM,
	GLES_BT_STORAGE,
	GLES_BT_DRAW_INDIRECT,
	GLES_BT_DISPATCH_INDIRECT,
	GLES_BT_PIXEL_PACK,
	GLES_BT_PIXEL_UNPACK,
	GLES_BT_COPY_READ,
	GLES_BT_COPY_WRITE,
	GLES_BT_TRANSFORM_FEEDBACK,
	GLES_BT_ATOMIC_COUNTER,
	GLES_BT_TEXTURE_BUFFER,
	GLES_BT_COUNT
};
/* Texture targets followed per unit. */
enum gles_tt { GLES_TT_2D = 0, GLES_TT_CUBE, GLES_TT_3D, GLES_TT_2D_ARRAY, GLES_TT_COUNT };

struct gles_diag_buffer {
	uint32_t name;
	bool static_usage;    /* glBufferData with GL_STATIC_DRAW/READ/COPY */
	uint32_t updates;     /* glBufferSubData since its glBufferData */
	uint64_t used_frame;  /* frame + 1 of the last draw that used it; 0: none */
};

struct gles_diag_texture {
	uint32_t name;
	uint64_t sampled_frame; /* frame + 1 of the last draw it was bound for; 0: none */
};

/* What the tile rules know of an attachment's contents (docs/diagnostics.md,
 * "PASSPROBE-Pass-UnneededLoad, PASSPROBE-Pass-UnneededStore"). */
enum gles_tile_state {
	GLES_TILE_DEFINED = 0, /* as far as passprobe knows, what is there may be read */
	GLES_TILE_UNDEFINED,   /* invalidated by the program, or a window's colour after a swap */
	GLES_TILE_STORED,      /* written to memory by `pass` (or kept by a swap) and not read since */
};
/* A pass's name as the report gives it, kept without formatting: a debug group's or the
 * framebuffer's label, else the kind and position of a generated "render#N". */
struct gles_tile_name {
	char text[64];         /* "": generated */
	uint8_t kind;          /* enum pp_pass_kind */
	uint32_t position;     /* in its frame */
};
#define GLES_DIAG_IMAGES 128 /* attachment images followed, direct-mapped by name */
struct gles_diag_image {
	uint32_t key;          /* pp_gles_fbo.image (0 for the default framebuffer's); 0: empty slot */
	uint8_t state;         /* enum gles_tile_state */
	bool preserved;        /* GLES_TILE_STORED by a window's swap (EGL_BUFFER_PRESERVED), not a pass */
	uint32_t fb;           /* the framebuffer of the pass that stored or invalidated it */
	uint32_t attachment;   /* its index there */
	const char *what;      /* "colour", "depth/stencil", ... (static) */
	struct gles_tile_name pass; /* that pass */
	/* The sites of findings about it already counted (their texts are not formatted again:
	 * a pass that stores for nothing does so every frame). */
	uint64_t store_site, load_site;
};

struct pp_gles_diag {
	struct pp_diag_device *dd;
	uint64_t frame;          /* the open frame (the model's index) */
	uint64_t synced_submits; /* c->submits at the last point the CPU knew the GPU done */

	uint32_t bound[GLES_BT_COUNT];
	uint32_t uniform[GLES_DIAG_UNIFORM_INDICES], storage[GLES_DIAG_STORAGE_INDICES];
	uint32_t active_unit;
	uint32_t units[GLES_DIAG_UNITS][GLES_TT_COUNT];
	uint32_t units_bound;    /* bit u: unit u has a texture bound */
	uint32_t image_units[GLES_DIAG_IMAGE_UNITS]; /* glBindImageTexture */
	uint32_t image_units_bound;
	uint32_t active_queries[4];

	struct gles_diag_buffer buffers[GLES_DIAG_BUFFERS];
	struct gles_diag_texture textures[GLES_DIAG_TEXTURES];

	/* the tile rules: the attachments' contents, depth and stencil use of the open pass */
	struct gles_diag_image images[GLES_DIAG_IMAGES];
	struct gles_diag_image fb0[PP_MAX_ATTACHMENTS]; /* the default framebuffer's, by index */
	uint32_t images_stored;    /* textures in GLES_TILE_STORED (a dispatch may read any) */
	uint8_t zs_state;          /* GLES_ZS_*: glEnable/glDisable(GL_DEPTH_TEST, GL_STENCIL_TEST), glDepthMask */
	uint8_t pass_zs;           /* GLES_ZS_* the open render pass ran with at some point */

	/* the application's KHR_debug callback and what it enabled of passprobe's messages */
	GLDEBUGPROC callback;
	const void *callback_user;
	bool debug_enabled;        /* warnings (GL_DEBUG_SEVERITY_MEDIUM) */
	bool debug_info_enabled;   /* information (GL_DEBUG_SEVERITY_NOTIFICATION) */
	uint64_t ids_disabled;     /* bit r: id GLES_DIAG_ID_BASE + r disabled */
};

enum {
	GLES_ZS_DEPTH_TEST = 1u << 0,
	GLES_ZS_DEPTH_WRITE = 1u << 1,   /* glDepthMask(GL_TRUE), the initial state */
	GLES_ZS_STENCIL_TEST = 1u << 2,
};

struct gles_diag_buffer *pp_gles_diag_buffer(struct pp_gles_diag *g, uint32_t name, bool create);
struct gles_diag_texture *pp_gles_diag_texture(struct pp_gles_diag *g, uint32_t name, bool create);
void pp_gles_diag_deliver(struct pp_gles_ctx *c, const struct pp_diag_message *m, uint32_t n);
void pp_gles_diag_debug_control(struct pp_gles_ctx *c, GLenum source, GLenum type, GLenum severity, GLsizei count,
				const GLuint *ids, GLboolean enabled);
void pp_gles_diag_debug_callback(struct pp_gles_ctx *c, GLDEBUGPROC fn, const void *user);
/* The tile rules: a read of texture `name` (sampled, mipmaps made of it) reads what a pass
 * stored in it. */
void pp_gles_diag_texture_read(struct pp_gles_diag *g, uint32_t name);
