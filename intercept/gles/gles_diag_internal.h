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

struct pp_gles_diag {
	struct pp_diag_device *dd;
	uint64_t frame;          /* the open frame (the model's index) */
	uint64_t synced_submits; /* c->submits at the last point the CPU knew the GPU done */

	uint32_t bound[GLES_BT_COUNT];
	uint32_t uniform[GLES_DIAG_UNIFORM_INDICES], storage[GLES_DIAG_STORAGE_INDICES];
	uint32_t active_unit;
	uint32_t units[GLES_DIAG_UNITS][GLES_TT_COUNT];
	uint32_t units_bound;    /* bit u: unit u has a texture bound */
	uint32_t active_queries[4];

	struct gles_diag_buffer buffers[GLES_DIAG_BUFFERS];
	struct gles_diag_texture textures[GLES_DIAG_TEXTURES];

	/* the default framebuffer's passes (tile rules) */
	bool fb0_fresh;            /* no pass on it since the last swap */
	bool fb0_color_preserved;  /* EGL_SWAP_BEHAVIOR is EGL_BUFFER_PRESERVED */
	bool fb0_ancillary_stored; /* its last pass stored depth/stencil */
	char fb0_last_pass[64];

	/* the application's KHR_debug callback and what it enabled of passprobe's messages */
	GLDEBUGPROC callback;
	const void *callback_user;
	bool debug_enabled;
	uint64_t ids_disabled;     /* bit r: id GLES_DIAG_ID_BASE + r disabled */
};

struct gles_diag_buffer *pp_gles_diag_buffer(struct pp_gles_diag *g, uint32_t name, bool create);
struct gles_diag_texture *pp_gles_diag_texture(struct pp_gles_diag *g, uint32_t name, bool create);
void pp_gles_diag_pass_report(struct pp_gles_ctx *c, enum pp_diag_rule rule, const char *pass, uint32_t attachment,
			      const char *what, const char *detail);
void pp_gles_diag_deliver(struct pp_gles_ctx *c, const struct pp_diag_message *m, uint32_t n);
void pp_gles_diag_debug_control(struct pp_gles_ctx *c, GLenum source, GLenum type, GLenum severity, GLsizei count,
				const GLuint *ids, GLboolean enabled);
void pp_gles_diag_debug_callback(struct pp_gles_ctx *c, GLDEBUGPROC fn, const void *user);
