/* Diagnostics of a GLES context: per-context state of what recent draws used, the rules'
 * device (attribution/diag, the same rules and site table as Vulkan), call sites, and
 * delivery of findings to the log (the rules do it), report.json (the site table) and the
 * application's KHR_debug callback (here). Nothing here waits on the GPU or calls glGetError.
 *
 * What draws use is an approximation kept at bind boundaries (docs/gles.md "Diagnostics"): a
 * draw marks what is bound when it is issued (generic GL_ARRAY_BUFFER, GL_ELEMENT_ARRAY_BUFFER
 * as last bound with glBindBuffer, GL_DRAW_INDIRECT_BUFFER, the first 16 uniform and 8 storage
 * indexed bindings, the textures of the first 32 units), and only the first draw after a
 * binding change or a new frame does so: the draw path itself tests one flag. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gles_diag_internal.h"
#include "pp_diag_outputs.h"
#include "pp_clock.h"
#include "pp_module.h"
#include "pp_renderdoc.h"
#include "pp_log.h"
#include "pp_sink.h"
#include "pp_thread.h"

/* ---- state ------------------------------------------------------------------------------ */

void pp_gles_diag_setup(struct pp_gles_ctx *c, uint32_t sink_id)
{
	if (!pp_gles_init_settings.diagnostics || c->diag)
		return;
	struct pp_gles_diag *g = calloc(1, sizeof(*g));
	if (!g) {
		pp_log_once(PP_LOG_ERROR, "out of memory setting up GLES diagnostics; they are off for this context");
		return;
	}
	const struct pp_diag_config cfg = {
		.sink_device_id = sink_id,
		.frame_delimiter = (int)pp_gles_init_settings.frame_delimiter,
	};
	g->dd = pp_diag_outputs_device_create(cfg);
	if (!g->dd) {
		free(g);
		return;
	}
	/* KHR_debug: messages of every severity but LOW are enabled initially */
	g->debug_enabled = g->debug_info_enabled = true;
	g->zs_state = GLES_ZS_DEPTH_WRITE; /* GL's initial state: tests off, depth writes on */
	c->diag = g;
	c->diag_dirty = PP_GLES_DIRTY_ALL;
}

void pp_gles_diag_teardown(struct pp_gles_ctx *c)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	c->diag = NULL;
	c->diag_dirty = 0;
	/* Findings stay: the site table is process-wide. */
	pp_diag_device_destroy(g->dd);
	free(g);
}

/* fn: an object's record by GL name in the direct-mapped table g->table of `size` records: a name
 * that collides replaces the older one (bounded memory). NULL for name 0, and for an unknown name
 * unless create. */
#define DIAG_OBJECT_LOOKUP(fn, type, table, size)                                                              \
	struct type *fn(struct pp_gles_diag *g, uint32_t name, bool create)                                    \
	{                                                                                                      \
		if (!name)                                                                                     \
			return NULL;                                                                           \
		struct type *o = &g->table[name % (size)];                                                     \
		if (o->name == name)                                                                           \
			return o;                                                                              \
		if (!create)                                                                                   \
			return NULL;                                                                           \
		*o = (struct type){ .name = name };                                                            \
		return o;                                                                                      \
	}

DIAG_OBJECT_LOOKUP(pp_gles_diag_buffer, gles_diag_buffer, buffers, GLES_DIAG_BUFFERS)
DIAG_OBJECT_LOOKUP(pp_gles_diag_texture, gles_diag_texture, textures, GLES_DIAG_TEXTURES)

static void buffer_used(struct pp_gles_diag *g, uint32_t name)
{
	struct gles_diag_buffer *b = pp_gles_diag_buffer(g, name, true);
	if (b)
		b->used_frame = g->frame + 1;
}

/* Texture `name` is an attachment of the render pass open now. */
static bool attached_now(const struct pp_gles_ctx *c, uint32_t name)
{
	if (!c->draw_work || !c->pm.open_fb)
		return false;
	for (uint32_t i = 0; i < PP_MAX_ATTACHMENTS; i++)
		if (c->open_image[i] == name)
			return true;
	return false;
}

void pp_gles_diag_draw(struct pp_gles_ctx *c)
{
	struct pp_gles_diag *g = c->diag;
	uint32_t dirty = c->diag_dirty;
	c->diag_dirty = 0;
	if (!g)
		return;
	if (dirty & PP_GLES_DIRTY_ARRAY)
		buffer_used(g, g->bound[GLES_BT_ARRAY]);
	if (dirty & PP_GLES_DIRTY_ELEMENT)
		buffer_used(g, g->bound[GLES_BT_ELEMENT]);
	if (dirty & PP_GLES_DIRTY_INDIRECT) {
		buffer_used(g, g->bound[GLES_BT_DRAW_INDIRECT]);
		buffer_used(g, g->bound[GLES_BT_DISPATCH_INDIRECT]);
	}
	for (uint32_t i = 0; (dirty & PP_GLES_DIRTY_UNIFORM) && i < GLES_DIAG_UNIFORM_INDICES; i++)
		buffer_used(g, g->uniform[i]);
	for (uint32_t i = 0; (dirty & PP_GLES_DIRTY_STORAGE) && i < GLES_DIAG_STORAGE_INDICES; i++)
		buffer_used(g, g->storage[i]);
	for (uint32_t mask = dirty & PP_GLES_DIRTY_TEXTURES ? g->units_bound : 0; mask; mask &= mask - 1) {
		uint32_t u = (uint32_t)__builtin_ctz(mask);
		for (uint32_t k = 0; k < GLES_TT_COUNT; k++) {
			struct gles_diag_texture *t = pp_gles_diag_texture(g, g->units[u][k], true);
			if (t)
				t->sampled_frame = g->frame + 1;
			/* Sampling reads what a pass stored, unless it is an attachment of the pass
			 * drawing now (bound, but not what the draw reads). */
			if (t && g->images_stored && !attached_now(c, t->name))
				pp_gles_diag_texture_read(g, t->name);
		}
	}
	/* Images bound for load/store (glBindImageTexture) read what a pass stored too. */
	for (uint32_t mask = dirty & PP_GLES_DIRTY_TEXTURES && g->images_stored ? g->image_units_bound : 0; mask;
	     mask &= mask - 1) {
		uint32_t u = (uint32_t)__builtin_ctz(mask);
		if (!attached_now(c, g->image_units[u]))
			pp_gles_diag_texture_read(g, g->image_units[u]);
	}
}


/* ---- frames and submissions ------------------------------------------------------------- */

static void tile_swapped(struct pp_gles_ctx *c, struct pp_gles_diag *g);

static void frame_follow(struct pp_gles_ctx *c, struct pp_gles_diag *g)
{
	if (c->frame_open != g->frame) {
		/* A new frame: what stays bound is used again by its first draw. */
		g->frame = c->frame_open;
		c->diag_dirty = PP_GLES_DIRTY_ALL;
	}
}

void pp_gles_diag_submitted(struct pp_gles_ctx *c, uint64_t frame, uint64_t ended, uint64_t sync)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	const struct pp_diag_submission sub = {
		.queue = (uint64_t)(uintptr_t)c->handle,
		.frame = frame,
		.ended = ended,
		.fence = sync,
	};
	struct pp_diag_submit_todo todo;
	pp_diag_device_submitted(g->dd, &sub, &todo);
	pp_gles_diag_deliver(c, todo.messages, todo.nmessages);
	pp_diag_device_submit_todo_free(&todo);
	frame_follow(c, g);
}

void pp_gles_diag_presented(struct pp_gles_ctx *c, uint64_t ended)
{
	pp_thread_role_note(PP_THREAD_PRESENTS);
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	struct pp_diag_submit_todo todo;
	pp_diag_device_presented(g->dd, ended, NULL, 0, &todo);
	pp_gles_diag_deliver(c, todo.messages, todo.nmessages);
	pp_diag_device_submit_todo_free(&todo);
	frame_follow(c, g);
	tile_swapped(c, g);
}

/* The pass's name as the model gives it: the innermost debug group open when it began, else
 * the framebuffer's label, else its kind and position in its frame (over the frame's
 * submissions so far: one recording per submission on GLES), so that a finding names the pass
 * the report lists. Copied, never formatted: a generated name is kept as its kind and
 * position (tile_name_format). */
static void pass_name_of(const struct pp_gles_ctx *c, const struct pp_pass_rec *p, struct gles_tile_name *n)
{
	bool ours = c->rec && p >= c->rec->passes && p < c->rec->passes + c->rec->npasses;
	uint32_t index = ours ? (uint32_t)(p - c->rec->passes) : 0;
	uint32_t base = c->names_frame == c->frame_open ? c->names_base : 0;
	n->kind = (uint8_t)p->kind;
	/* counted over the application's passes only (RenderDoc's own are not in its frame) */
	n->position = base + (ours ? pp_gles_app_passes(c->rec, index) : 0);
	int depth = 0;
	for (uint32_t i = ours ? c->rec->nlabels : 0; i-- > 0;) {
		const struct pp_label_event *e = &c->rec->labels[i];
		if (e->pos > index)
			continue;
		if (e->op == PP_LABEL_POP)
			depth++;
		else if (e->op == PP_LABEL_PUSH && depth-- == 0) {
			pp_model_name_copy(n->text, sizeof(n->text), e->name);
			return;
		}
	}
	if (p->object_name[0])
		pp_model_name_copy(n->text, sizeof(n->text), p->object_name);
	else
		n->text[0] = '\0';
}

static void tile_name_format(const struct gles_tile_name *n, char *out, size_t len)
{
	if (n->text[0])
		pp_model_name_copy(out, len, n->text);
	else
		pp_attr_device_pass_generated_name(out, len, (enum pp_pass_kind)n->kind, n->position);
}

/* ---- tile rules --------------------------------------------------------------------------- */

/* The tile rules follow each attachment image's contents from pass to pass (docs/diagnostics.md,
 * "PASSPROBE-Pass-UnneededLoad, PASSPROBE-Pass-UnneededStore"): a store matters only if something
 * reads it before the next clear or invalidate, a load only if the contents are defined. What a
 * driver knows by itself is left out: a window surface's depth and stencil, which EGL leaves
 * undefined at every swap (Mesa's EGL invalidates them before the swap's flush, so panfrost and
 * freedreno neither write them back nor load them again), and a window's colour, which the swap
 * reads. Images another context may use (a share group of several contexts) are not judged. */
static struct gles_diag_image *tile_image(struct pp_gles_diag *g, uint32_t key, bool create)
{
	if (!key)
		return NULL;
	struct gles_diag_image *im = &g->images[(key ^ (key >> 31)) % GLES_DIAG_IMAGES];
	if (im->key == key)
		return im;
	if (!create)
		return NULL;
	/* Direct-mapped: a name that collides replaces the older one (what it stored is no longer
	 * judged: never a finding from a guess). */
	if (im->key && im->state == GLES_TILE_STORED && !(im->key & PP_GLES_IMAGE_RB))
		g->images_stored--;
	*im = (struct gles_diag_image){ .key = key };
	return im;
}

static void tile_set(struct pp_gles_diag *g, struct gles_diag_image *im, enum gles_tile_state state)
{
	bool texture = im->key && !(im->key & PP_GLES_IMAGE_RB);
	if (texture && im->state == GLES_TILE_STORED)
		g->images_stored--;
	if (texture && state == GLES_TILE_STORED)
		g->images_stored++;
	im->state = (uint8_t)state;
}

void pp_gles_diag_image_forget(struct pp_gles_ctx *c, uint32_t key)
{
	struct pp_gles_diag *g = c->diag;
	struct gles_diag_image *im = g ? tile_image(g, key, false) : NULL;
	if (im) {
		tile_set(g, im, GLES_TILE_DEFINED);
		im->key = 0;
	}
}

void pp_gles_diag_texture_read(struct pp_gles_diag *g, uint32_t name)
{
	struct gles_diag_image *im = g && g->images_stored ? tile_image(g, name, false) : NULL;
	if (im && im->state == GLES_TILE_STORED)
		tile_set(g, im, GLES_TILE_DEFINED);
}

/* What a read of a framebuffer's attachments of classes `mask` reads. A framebuffer not
 * described (never the draw framebuffer of a pass since its attachments changed) may show
 * any image: every stored one counts as read. */
void pp_gles_diag_fb_read(struct pp_gles_ctx *c, uint32_t fb, uint32_t mask)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	const struct pp_gles_fbo *f = pp_gles_pass_fbo_known(c, fb);
	for (uint32_t i = 0; !f && i < GLES_DIAG_IMAGES; i++)
		if (g->images[i].key && g->images[i].state == GLES_TILE_STORED)
			tile_set(g, &g->images[i], GLES_TILE_DEFINED);
	for (uint32_t i = 0; f && i < f->natt && i < PP_MAX_ATTACHMENTS; i++) {
		if (!(f->cls[i] & mask))
			continue;
		struct gles_diag_image *im = fb ? tile_image(g, f->image[i], false) : &g->fb0[i];
		if (im && im->state == GLES_TILE_STORED)
			tile_set(g, im, GLES_TILE_DEFINED);
	}
}

void pp_gles_diag_pass_opened(struct pp_gles_ctx *c)
{
	c->diag->pass_zs = c->diag->zs_state;
}

/* A pass's attachment in words: "colour", "colour 1", "depth/stencil". */
static const char *attachment_what(uint8_t cls, uint32_t colour_index)
{
	static const char *const colours[] = { "colour", "colour 1", "colour 2", "colour 3",
					       "colour 4", "colour 5", "colour 6", "colour 7" };
	if (cls & (PP_GLES_ATT_DEPTH | PP_GLES_ATT_STENCIL))
		return cls & PP_GLES_ATT_DEPTH ? (cls & PP_GLES_ATT_STENCIL ? "depth/stencil" : "depth") : "stencil";
	return colours[colour_index < 8 ? colour_index : 7];
}

static void framebuffer_words(uint32_t fb, char *buf, size_t len)
{
	if (fb)
		snprintf(buf, len, "framebuffer object %u", fb);
	else
		snprintf(buf, len, "the default framebuffer");
}

static const char *swap_name(const struct pp_gles_ctx *c)
{
	return c->glx ? "glXSwapBuffers" : "eglSwapBuffers";
}

static uint64_t str_hash(const char *s);
static uint64_t report(struct pp_gles_ctx *c, struct pp_diag_blocking *b);

/* The site of a finding about a pass's attachment: the pass (by name), its framebuffer and
 * the attachment; the same pass every frame is one site. A key from those parts, so that an
 * occurrence of a site already counted formats nothing. */
static uint64_t tile_site_key(enum pp_diag_rule rule, const struct gles_tile_name *n, uint32_t fb, uint32_t attachment)
{
	uint64_t h = n->text[0] ? str_hash(n->text) : ((uint64_t)n->kind << 32 | n->position) * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)fb << 32 | attachment) * 0xbf58476d1ce4e5b9ull;
	return (h ^ (h >> 29) ^ ((uint64_t)rule << 56)) | 1;
}

/* One occurrence of a pass finding; detail NULL: the site was counted before (*known), its
 * texts are not needed. */
static void tile_report(struct pp_gles_ctx *c, enum pp_diag_rule rule, uint64_t key, const struct gles_tile_name *n,
			uint32_t fb, const char *what, const char *detail, uint64_t *known)
{
	char site[192], where[48], name[64];
	if (detail) {
		framebuffer_words(fb, where, sizeof(where));
		tile_name_format(n, name, sizeof(name));
		snprintf(site, sizeof(site), "pass \"%s\" on %s, %s attachment", name, where, what);
	}
	struct pp_diag_blocking b = {
		.rule = rule,
		.site_key = key,
		.site = detail ? site : NULL,
		.detail = detail,
		.cost_unavailable = "attachment bandwidth is not measured (no GPU counters for it on OpenGL ES)",
		/* A pass that is the frame loop's: glmark2's scenes clear the window once more after a
		 * first pass at their start, which is not worth a developer's time. */
		.steady_state = true,
	};
	if (report(c, &b))
		*known = key;
}

/* A store nothing read: reported at the pass that stored it (its site), now that the pass
 * `by` starts over the image (cleared: how = "clears", or invalidated). */
static void tile_store_unneeded(struct pp_gles_ctx *c, struct gles_diag_image *im, const struct gles_tile_name *by,
				const char *how)
{
	uint64_t key = tile_site_key(PP_DIAG_PASS_UNNEEDED_STORE, &im->pass, im->fb, im->attachment);
	if (im->store_site == key) {
		tile_report(c, PP_DIAG_PASS_UNNEEDED_STORE, key, &im->pass, im->fb, im->what, NULL, &im->store_site);
		return;
	}
	char detail[320], where[48], stored[64], next[64];
	framebuffer_words(im->fb, where, sizeof(where));
	tile_name_format(&im->pass, stored, sizeof(stored));
	tile_name_format(by, next, sizeof(next));
	if (im->preserved)
		snprintf(detail, sizeof(detail),
			 "(the colour of the window surface, kept across %s because its EGL_SWAP_BEHAVIOR is "
			 "EGL_BUFFER_PRESERVED, and the next frame's pass \"%s\" %s it before anything reads it: with "
			 "EGL_BUFFER_DESTROYED the driver need not keep it)",
			 swap_name(c), next, how);
	else
		snprintf(detail, sizeof(detail),
			 "(pass \"%s\" stored the %s attachment of %s; the next pass on it, \"%s\", %s it before "
			 "anything read it)",
			 stored, im->what, where, next, how);
	tile_report(c, PP_DIAG_PASS_UNNEEDED_STORE, key, &im->pass, im->fb, im->what, detail, &im->store_site);
}

/* A load of contents that are undefined, at the loading pass's site. */
static void tile_load_unneeded(struct pp_gles_ctx *c, struct gles_diag_image *im, const struct gles_tile_name *n,
			       uint32_t fb, uint32_t attachment, const char *what)
{
	uint64_t key = tile_site_key(PP_DIAG_PASS_UNNEEDED_LOAD, n, fb, attachment);
	if (im->load_site == key) {
		tile_report(c, PP_DIAG_PASS_UNNEEDED_LOAD, key, n, fb, what, NULL, &im->load_site);
		return;
	}
	char detail[320], where[48], name[64], earlier[64];
	framebuffer_words(fb, where, sizeof(where));
	tile_name_format(n, name, sizeof(name));
	tile_name_format(&im->pass, earlier, sizeof(earlier));
	if (!fb && !c->surface_pbuffer)
		snprintf(detail, sizeof(detail),
			 "(pass \"%s\" on the default framebuffer, %s attachment: its first pass after %s begins "
			 "without a clear or invalidate, and the contents are undefined)",
			 name, what, swap_name(c));
	else
		snprintf(detail, sizeof(detail),
			 "(pass \"%s\" loads the %s attachment of %s, which the program invalidated at pass \"%s\": "
			 "its contents are undefined)",
			 name, what, where, earlier);
	tile_report(c, PP_DIAG_PASS_UNNEEDED_LOAD, key, n, fb, what, detail, &im->load_site);
}

void pp_gles_diag_pass_closed(struct pp_gles_ctx *c, const struct pp_pass_rec *p)
{
	struct pp_gles_diag *g = c->diag;
	/* RenderDoc's own passes (its overlay) are not the application's: not judged, and what
	 * they do to the application's images is not followed. */
	if (!g || p->kind != PP_PASS_RENDER || p->recorded_by)
		return;
	uint32_t fb = p->render_pass;
	/* Another context of the share group may sample what this one stores. */
	if (fb && !pp_gles_images_share_alone(c->share))
		return;
	/* The pass's name, looked up once and only where a finding or a store needs it. */
	struct gles_tile_name name;
	bool named = false;
	bool stored_texture = false;
	uint32_t colours = 0;
	for (uint32_t i = 0; i < p->nattachments && i < PP_MAX_ATTACHMENTS; i++) {
		const struct pp_attachment *a = &p->attachments[i];
		uint8_t cls = c->open_cls[i];
		const char *what = attachment_what(cls, cls & PP_GLES_ATT_COLOR ? colours++ : 0);
		struct gles_diag_image *im = fb ? tile_image(g, c->open_image[i], true) : &g->fb0[i];
		if (!im)
			continue;
		bool cleared = a->load_op && !strcmp(a->load_op, "CLEAR");
		bool discarded = a->load_op && !strcmp(a->load_op, "DONT_CARE");
		bool stored = !a->store_op || strcmp(a->store_op, "DONT_CARE");
		/* Whether the pass touched it at all: draws write colour; depth and stencil only
		 * with their tests on (a pass that never tests depth neither loads nor writes it, and
		 * a tile-based driver leaves it in memory). A store is counted only where the
		 * pass surely wrote: colour, a clear, depth tested with writes on. */
		bool tested = (cls & PP_GLES_ATT_COLOR) || ((cls & PP_GLES_ATT_DEPTH) && (g->pass_zs & GLES_ZS_DEPTH_TEST)) ||
			      ((cls & PP_GLES_ATT_STENCIL) && (g->pass_zs & GLES_ZS_STENCIL_TEST));
		bool written = (cls & PP_GLES_ATT_COLOR) || cleared ||
			       ((cls & PP_GLES_ATT_DEPTH) &&
				(g->pass_zs & (GLES_ZS_DEPTH_TEST | GLES_ZS_DEPTH_WRITE)) ==
					(GLES_ZS_DEPTH_TEST | GLES_ZS_DEPTH_WRITE));
		bool loaded = !cleared && !discarded && tested;
		bool records = discarded || !stored || written;
		if (!named && (records || (im->state == GLES_TILE_STORED && cleared) ||
			       (im->state == GLES_TILE_UNDEFINED && loaded))) {
			pass_name_of(c, p, &name);
			named = true;
		}
		if (im->state == GLES_TILE_STORED && (cleared || discarded))
			tile_store_unneeded(c, im, &name, cleared ? "clears" : "invalidates");
		if (im->state == GLES_TILE_UNDEFINED && loaded)
			tile_load_unneeded(c, im, &name, fb, i, what);
		if (discarded) {
			tile_set(g, im, GLES_TILE_UNDEFINED);
			im->pass = name;
		} else if (cleared || loaded) {
			tile_set(g, im, GLES_TILE_DEFINED);
		}
		if (!stored || written) {
			tile_set(g, im, stored ? GLES_TILE_STORED : GLES_TILE_UNDEFINED);
			im->preserved = false;
			im->fb = fb;
			im->attachment = i;
			im->what = what;
			im->pass = name;
			stored_texture |= stored && fb && !(im->key & PP_GLES_IMAGE_RB);
		}
	}
	/* A texture stored here may stay bound to a unit and be sampled by a later pass without
	 * being bound again: the next draw marks what is bound once more. */
	if (stored_texture)
		c->diag_dirty |= PP_GLES_DIRTY_TEXTURES;
}

/* A swap reads a window's colour (it is shown); what it leaves: a window's colour undefined
 * (EGL_BUFFER_DESTROYED) unless the program repaints on the old contents (buffer age), or
 * kept (EGL_BUFFER_PRESERVED: a store the next frame may not need); a window's depth and
 * stencil undefined, which the driver knows (never judged); a pbuffer as it was. */
static void tile_swapped(struct pp_gles_ctx *c, struct pp_gles_diag *g)
{
	for (uint32_t i = 0; i < c->fb0.natt && i < PP_MAX_ATTACHMENTS; i++) {
		struct gles_diag_image *im = &g->fb0[i];
		bool colour = c->fb0.cls[i] & PP_GLES_ATT_COLOR;
		if (colour && im->state == GLES_TILE_STORED)
			tile_set(g, im, GLES_TILE_DEFINED);
		if (c->surface_pbuffer)
			continue;
		if (!colour) {
			tile_set(g, im, GLES_TILE_DEFINED);
		} else if (c->surface_preserved) {
			tile_set(g, im, GLES_TILE_STORED);
			im->preserved = true;
		} else {
			tile_set(g, im, c->surface_age_used ? GLES_TILE_DEFINED : GLES_TILE_UNDEFINED);
		}
	}
}

/* ---- waits ------------------------------------------------------------------------------ */

void pp_gles_diag_span_begin(struct pp_gles_diag_span *s)
{
	pp_cpu_counters_snapshot_take(&s->before);
}

uint64_t pp_gles_diag_span_end(struct pp_gles_ctx *c, struct pp_gles_diag_span *s, const char *name)
{
	struct pp_cpu_snapshot after;
	pp_cpu_counters_snapshot_take(&after);
	struct pp_cpu_cost cost = { 0 };
	pp_attr_cpu_cost_add_span(&cost, &s->before, &after);
	struct pp_cpu_event ev = { .name = name, .category = "wait", .tid = after.tid,
				   .begin_ns = s->before.wall_ns, .end_ns = after.wall_ns };
	pp_attr_sink_cpu_event(&ev);
	if (c->attr)
		pp_attr_device_blocking(c->attr, &cost);
	return after.wall_ns - s->before.wall_ns;
}

_Static_assert(PP_GLES_CALL_COUNT <= PP_DIAG_COUNTED_CALLS, "more counted calls than pp_diag_waits_call_count keeps");

struct pp_gles_call_mark pp_gles_diag_call(struct pp_gles_ctx *c, enum pp_gles_call k, const char *name)
{
	struct pp_gles_call_mark m = { .frame = c->frame_open };
	/* The index only serves frames RenderDoc captures: without RenderDoc, nothing is counted
	 * (glBufferSubData may come with every draw). */
	if (!c->diag || !pp_renderdoc_present())
		return m;
	m.index = pp_diag_waits_call_count(c->diag->dd, k, c->frame_open);
	/* c->rec_rdoc: RenderDoc captures the frame being built (gles_submit.c, recording_arm). */
	m.call = c->rec_rdoc ? name : NULL;
	return m;
}

void pp_gles_diag_finish(struct pp_gles_ctx *c, const struct pp_cpu_cost *cpu, void *ra,
			 const struct pp_gles_call_mark *m)
{
	if (!c->diag)
		return;
	/* Everything submitted has completed. */
	pp_diag_waits_completed(c->diag->dd, pp_diag_device_last_seq(c->diag->dd));
	c->diag->synced_submits = c->submits;
	pp_gles_diag_report(c, PP_DIAG_FINISH, "glFinish", m, ra, NULL, cpu && cpu->valid ? cpu->wall_ns : 0, true);
}

bool pp_gles_diag_readback_drains(struct pp_gles_ctx *c)
{
	struct pp_gles_diag *g = c->diag;
	/* Into client memory (no pixel pack buffer: the call returns the pixels, so it must wait
	 * for them), with rendering not known to have completed. */
	return g && !g->bound[GLES_BT_PIXEL_PACK] && (c->submits != g->synced_submits || (c->rec && c->rec->npasses));
}

void pp_gles_diag_readback_done(struct pp_gles_ctx *c, int32_t w, int32_t h, uint64_t blocked_ns, void *ra,
				const struct pp_gles_call_mark *m)
{
	char detail[96];
	snprintf(detail, sizeof(detail), "(glReadPixels of %dx%d into client memory)", w, h);
	/* Steady: a single read at exit (a screenshot) is not the frame loop's. */
	pp_gles_diag_report(c, PP_DIAG_READBACK_DRAIN, "glReadPixels", m, ra, detail, blocked_ns, true);
	if (c->diag)
		c->diag->synced_submits = c->submits;
}

/* ---- sites and delivery ----------------------------------------------------------------- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* The application's call site: the hook's return address (the application calls the hook
 * directly, through its PLT or a pointer it got from dlsym / eglGetProcAddress). */
static uint64_t call_site(void *ra, char *buf, size_t len)
{
	Dl_info info;
	if (ra && dladdr(ra, &info) && info.dli_fname) {
		const char *base = pp_module_name(&info);
		uintptr_t off = (uintptr_t)ra - (uintptr_t)info.dli_fbase;
		if (info.dli_sname && info.dli_saddr)
			snprintf(buf, len, "%s (%s+0x%lx)", base, info.dli_sname,
				 (unsigned long)((uintptr_t)ra - (uintptr_t)info.dli_saddr));
		else
			snprintf(buf, len, "%s+0x%lx", base, (unsigned long)off);
		return (str_hash(base) ^ (off * 0x9e3779b97f4a7c15ull)) | 1;
	}
	snprintf(buf, len, "%p", ra);
	return (uint64_t)(uintptr_t)ra;
}

/* The thread's name as the kernel has it, read once per thread (a flagged call in a loop
 * must not open a file each time). */
static void thread_name(uint32_t tid, char *buf, size_t len)
{
	static __thread uint32_t cached_tid;
	static __thread char cached[32];
	if (cached_tid != tid) {
		char path[64];
		cached[0] = '\0';
		snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
		FILE *f = fopen(path, "re");
		if (f) {
			if (fgets(cached, (int)sizeof(cached), f))
				cached[strcspn(cached, "\n")] = 0;
			fclose(f);
		}
		cached_tid = tid;
	}
	snprintf(buf, len, "%s", cached);
}

/* Counts one occurrence and delivers what it queued; returns the site's key once counted. */
static uint64_t report(struct pp_gles_ctx *c, struct pp_diag_blocking *b)
{
	uint64_t counted = pp_diag_waits_blocking_report(c->diag->dd, b);
	struct pp_diag_message m[4];
	uint32_t n;
	while ((n = pp_diag_device_messages_take(c->diag->dd, m, 4)))
		pp_gles_diag_deliver(c, m, n);
	return counted;
}

void pp_gles_diag_report(struct pp_gles_ctx *c, enum pp_diag_rule rule, const char *fn,
			 const struct pp_gles_call_mark *m, void *ra, const char *detail, uint64_t blocked_ns,
			 bool steady)
{
	if (!c->diag)
		return;
	char where[160], site[192], tname[32];
	uint32_t tid = pp_thread_id();
	thread_name(tid, tname, sizeof(tname));
	uint64_t loc = call_site(ra, where, sizeof(where));
	snprintf(site, sizeof(site), "%s called from %s on thread %u \"%s\"", fn, where, tid, tname);
	struct pp_diag_blocking b = {
		.rule = rule,
		.site_key = loc ^ str_hash(fn),
		.site = site,
		.detail = detail,
		.cpu_ns = blocked_ns,
		.steady_state = steady,
		.thread_id = tid,
		.thread_name = tname,
		/* A context current on a thread that draws nothing and swaps nothing (an upload
		 * thread of a share group): its wait is not the frame's. */
		.worker_thread = !(pp_thread_roles & (PP_THREAD_RECORDS | PP_THREAD_PRESENTS)),
		.capture_call = m ? m->call : NULL,
		.capture_call_index = m ? m->index : 0,
		.capture_frame = m ? m->frame : 0,
	};
	report(c, &b);
}


/* The application's KHR_debug state, as far as it concerns passprobe's messages (source
 * THIRD_PARTY, type PERFORMANCE, severity MEDIUM for warnings and NOTIFICATION for
 * information, ids GLES_DIAG_ID_BASE + rule). */
void pp_gles_diag_debug_control(struct pp_gles_ctx *c, GLenum source, GLenum type, GLenum severity, GLsizei count,
				const GLuint *ids, GLboolean enabled)
{
	struct pp_gles_diag *g = c->diag;
	if (!g)
		return;
	if ((source != GL_DONT_CARE && source != GL_DEBUG_SOURCE_THIRD_PARTY) ||
	    (type != GL_DONT_CARE && type != GL_DEBUG_TYPE_PERFORMANCE))
		return;
	if (count > 0 && ids) {
		/* By id: GL requires a specific source and type and severity GL_DONT_CARE. */
		if (source == GL_DONT_CARE || type == GL_DONT_CARE || severity != GL_DONT_CARE)
			return;
		for (GLsizei i = 0; i < count; i++) {
			if (ids[i] < GLES_DIAG_ID_BASE || ids[i] >= GLES_DIAG_ID_BASE + PP_DIAG_RULE_COUNT)
				continue;
			uint64_t bit = 1ull << (ids[i] - GLES_DIAG_ID_BASE);
			g->ids_disabled = enabled ? g->ids_disabled & ~bit : g->ids_disabled | bit;
		}
		return;
	}
	if (count != 0)
		return;
	if (severity == GL_DONT_CARE || severity == GL_DEBUG_SEVERITY_MEDIUM)
		g->debug_enabled = enabled != GL_FALSE;
	if (severity == GL_DONT_CARE || severity == GL_DEBUG_SEVERITY_NOTIFICATION)
		g->debug_info_enabled = enabled != GL_FALSE;
	if (severity == GL_DONT_CARE || severity == GL_DEBUG_SEVERITY_MEDIUM || severity == GL_DEBUG_SEVERITY_NOTIFICATION)
		g->ids_disabled = 0;
}

void pp_gles_diag_debug_callback(struct pp_gles_ctx *c, GLDEBUGPROC fn, const void *user)
{
	if (!c->diag)
		return;
	c->diag->callback = fn;
	c->diag->callback_user = user;
}

void pp_gles_diag_deliver(struct pp_gles_ctx *c, const struct pp_diag_message *m, uint32_t n)
{
	struct pp_gles_diag *g = c->diag;
	if (!g || !n || !g->callback || (!g->debug_enabled && !g->debug_info_enabled) || pp_gles_init_exiting)
		return;
	/* GL_DEBUG_OUTPUT off: the context delivers no message (a callback is registered, so the
	 * context has KHR_debug and the enum is valid: no error). */
	PFNGLISENABLEDPROC is_enabled = PP_REAL(glIsEnabled);
	pp_egl_guard_enter();
	bool on = is_enabled && is_enabled(GL_DEBUG_OUTPUT);
	pp_egl_guard_leave();
	for (uint32_t i = 0; on && i < n; i++) {
		uint32_t rule = (uint32_t)m[i].rule;
		bool info = m[i].severity == PP_DIAG_INFO;
		if ((rule < 64 && (g->ids_disabled >> rule & 1)) || !(info ? g->debug_info_enabled : g->debug_enabled))
			continue;
		pp_egl_guard_enter();
		g->callback(GL_DEBUG_SOURCE_THIRD_PARTY, GL_DEBUG_TYPE_PERFORMANCE, GLES_DIAG_ID_BASE + rule,
			    info ? GL_DEBUG_SEVERITY_NOTIFICATION : GL_DEBUG_SEVERITY_MEDIUM, (GLsizei)strlen(m[i].text),
			    m[i].text, g->callback_user);
		pp_egl_guard_leave();
	}
}
