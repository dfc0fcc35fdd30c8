/* Passes of a GLES context: the pass machine's transitions (gles_pass_machine.c) become pass
 * records of the context's recording, with timestamps at their boundaries, attachments
 * described once per framebuffer change (never per draw), names from debug groups and
 * framebuffer labels. */
#include <string.h>

#include "gles_diag.h"
#include "gles_internal.h"
#include "pp_log.h"
#include "pp_thread.h"

static const char *const reason_stats = "pipeline statistics are not measured on OpenGL ES";

uint32_t pp_gles_pass_clear_mask(uint32_t gl_mask)
{
	return (gl_mask & GL_COLOR_BUFFER_BIT ? PP_GLES_ATT_COLOR : 0) |
	       (gl_mask & GL_DEPTH_BUFFER_BIT ? PP_GLES_ATT_DEPTH : 0) |
	       (gl_mask & GL_STENCIL_BUFFER_BIT ? PP_GLES_ATT_STENCIL : 0);
}

uint32_t pp_gles_pass_invalidate_mask(const uint32_t *attachments, int32_t n, bool default_fb)
{
	uint32_t m = 0;
	for (int32_t i = 0; attachments && i < n; i++) {
		uint32_t a = attachments[i];
		if (a == GL_COLOR || a == GL_COLOR_EXT || (a >= GL_COLOR_ATTACHMENT0 && a <= GL_COLOR_ATTACHMENT0 + 31))
			m |= PP_GLES_ATT_COLOR;
		else if (a == GL_DEPTH || a == GL_DEPTH_EXT || a == GL_DEPTH_ATTACHMENT)
			m |= PP_GLES_ATT_DEPTH;
		else if (a == GL_STENCIL || a == GL_STENCIL_EXT || a == GL_STENCIL_ATTACHMENT)
			m |= PP_GLES_ATT_STENCIL;
		else if (a == GL_DEPTH_STENCIL_ATTACHMENT)
			m |= PP_GLES_ATT_DEPTH | PP_GLES_ATT_STENCIL;
	}
	(void)default_fb;
	return m;
}

/* ---- attachments ---------------------------------------------------------------------- */

static void attachment_from_image(struct pp_gles_ctx *c, struct pp_attachment *a, bool renderbuffer, uint32_t name)
{
	uint32_t fmt = 0, w = 0, h = 0, samples = 0;
	a->layers = 1;
	a->samples = 1;
	a->format = "unknown";
	if (pp_gles_images_find(c->share, renderbuffer, name, &fmt, &w, &h, &samples)) {
		a->format = pp_gles_images_format_name(fmt);
		a->width = w;
		a->height = h;
		a->samples = samples > 1 ? samples : 1;
	}
}

/* Describes the bound draw framebuffer `fb` with the real glGetFramebufferAttachmentParameteriv:
 * OBJECT_TYPE is valid on every attachment point below GL_MAX_COLOR_ATTACHMENTS of a bound
 * framebuffer object, OBJECT_NAME where the type is not NONE: no call here can raise an error. */
static void fbo_describe(struct pp_gles_ctx *c, struct pp_gles_fbo *f, uint32_t fb)
{
	PFNGLGETFRAMEBUFFERATTACHMENTPARAMETERIVPROC get = PP_REAL(glGetFramebufferAttachmentParameteriv);
	PFNGLGETINTEGERVPROC geti = PP_REAL(glGetIntegerv);
	memset(f, 0, sizeof(*f));
	f->name = fb;
	f->generation = c->fbo_generation;
	if (!get || !geti)
		return;
	GLenum target = c->es3 ? GL_DRAW_FRAMEBUFFER : GL_FRAMEBUFFER;
	/* An implementation limit: asked at the first description, not at every one (a program
	 * that attaches every frame describes every frame). */
	if (!c->max_color) {
		GLint m = 1;
		if (c->es3)
			geti(GL_MAX_COLOR_ATTACHMENTS, &m);
		c->max_color = m > 8 ? 8 : m;
	}
	GLint max_color = c->max_color;
	GLint depth_name = -1, depth_type = GL_NONE;
	for (GLint i = 0; i < max_color + 2 && f->natt < PP_MAX_ATTACHMENTS; i++) {
		GLenum point = i < max_color ? GL_COLOR_ATTACHMENT0 + (GLenum)i
			       : i == max_color ? GL_DEPTH_ATTACHMENT : GL_STENCIL_ATTACHMENT;
		GLint type = GL_NONE, name = 0;
		get(target, point, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
		if (type != GL_TEXTURE && type != GL_RENDERBUFFER)
			continue;
		get(target, point, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
		if (point == GL_STENCIL_ATTACHMENT && name == depth_name && type == depth_type) {
			/* one depth/stencil image behind both points */
			/* (natt never exceeds the array; the second bound tells GCC's overflow check so) */
			for (uint32_t k = 0; k < f->natt && k < PP_MAX_ATTACHMENTS; k++)
				if (f->cls[k] & PP_GLES_ATT_DEPTH)
					f->cls[k] |= PP_GLES_ATT_STENCIL;
			continue;
		}
		struct pp_attachment *a = &f->att[f->natt];
		attachment_from_image(c, a, type == GL_RENDERBUFFER, (uint32_t)name);
		if (point == GL_DEPTH_ATTACHMENT) {
			depth_name = name;
			depth_type = type;
		}
		a->depth_stencil = point == GL_DEPTH_ATTACHMENT || point == GL_STENCIL_ATTACHMENT;
		f->image[f->natt] = (uint32_t)name | (type == GL_RENDERBUFFER ? PP_GLES_IMAGE_RB : 0);
		f->cls[f->natt++] = point == GL_DEPTH_ATTACHMENT     ? PP_GLES_ATT_DEPTH
				    : point == GL_STENCIL_ATTACHMENT ? PP_GLES_ATT_STENCIL
								     : PP_GLES_ATT_COLOR;
	}
}

static const struct pp_gles_fbo *fbo_get(struct pp_gles_ctx *c, uint32_t fb)
{
	if (fb == 0) {
		for (uint32_t i = 0; i < c->fb0.natt; i++) {
			c->fb0.att[i].width = c->surface_w > 0 ? (uint32_t)c->surface_w : 0;
			c->fb0.att[i].height = c->surface_h > 0 ? (uint32_t)c->surface_h : 0;
		}
		return &c->fb0;
	}
	/* By name modulo the size: GL hands out the smallest unused names, so a program's
	 * framebuffers take distinct entries up to 64 of them, whatever order its passes bind
	 * them in. (A list searched in order and refilled round-robin, as before, missed at every
	 * pass once a frame cycled through more framebuffers than it held: a description, with
	 * its GL queries, at every pass.) */
	struct pp_gles_fbo *f = &c->fbos[fb % PP_GLES_FBO_CACHE];
	if (f->name != fb || f->generation != c->fbo_generation)
		fbo_describe(c, f, fb);
	return f;
}

const struct pp_gles_fbo *pp_gles_pass_fbo_known(const struct pp_gles_ctx *c, uint32_t fb)
{
	if (!fb)
		return &c->fb0;
	const struct pp_gles_fbo *f = &c->fbos[fb % PP_GLES_FBO_CACHE];
	return f->name == fb && f->generation == c->fbo_generation ? f : NULL;
}

void pp_gles_pass_fbo_forget(struct pp_gles_ctx *c, uint32_t fbo)
{
	struct pp_gles_fbo *f = &c->fbos[fbo % PP_GLES_FBO_CACHE];
	if (f->name == fbo)
		f->generation = UINT64_MAX;
	for (uint32_t i = 0; i < c->nlabels; i++)
		if (c->labels[i].fbo == fbo) {
			c->labels[i] = c->labels[--c->nlabels];
			break;
		}
}

static void copy_name(char *dst, size_t cap, const char *src, int32_t length)
{
	size_t n = src ? (length < 0 ? strlen(src) : (size_t)length) : 0;
	if (n >= cap)
		n = cap - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

void pp_gles_pass_fbo_label(struct pp_gles_ctx *c, uint32_t fbo, const char *name, int32_t length)
{
	struct pp_gles_label *l = NULL;
	for (uint32_t i = 0; i < c->nlabels && !l; i++)
		if (c->labels[i].fbo == fbo)
			l = &c->labels[i];
	if (!name || (length == 0)) {
		if (l)
			*l = c->labels[--c->nlabels];
		return;
	}
	if (!l) {
		if (c->nlabels == PP_GLES_FBO_LABELS) {
			pp_log_once(PP_LOG_INFO, "more than %d labelled framebuffers in a context: later labels are not used "
						 "as pass names", PP_GLES_FBO_LABELS);
			return;
		}
		l = &c->labels[c->nlabels++];
	}
	l->fbo = fbo;
	copy_name(l->name, sizeof(l->name), name, length);
}

void pp_gles_pass_label(struct pp_gles_ctx *c, bool push, const char *name, int32_t length)
{
	if (!c->rec)
		return;
	char buf[64];
	copy_name(buf, sizeof(buf), name, length);
	if (c->rec->nlabels >= PP_GLES_MAX_LABELS) {
		/* Debug groups with no work between submissions: hand them on, memory bounded. */
		pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
		pp_gles_submit(c, "passprobe (debug groups per recording bound)", PP_SUBMIT_ASYNC, NULL);
		if (!c->rec)
			return;
	}
	if (pp_attr_record_label(c->rec, push ? PP_LABEL_PUSH : PP_LABEL_POP, buf) < 0)
		pp_log_once(PP_LOG_WARN, "out of memory recording a debug group; pass names may be wrong");
}

/* ---- transitions ---------------------------------------------------------------------- */

static void pass_close(struct pp_gles_ctx *c, const struct pp_gles_transition *t)
{
	struct pp_pass_rec *p = pp_attr_record_open_pass(c->rec);
	if (p) {
		const char *why = NULL;
		if (p->ts_begin != PP_NO_SLOT) {
			p->ts_end = pp_gles_submit_slot_take(c, &why);
			if (p->ts_end == PP_NO_SLOT)
				p->ts_reason = why;
		}
		for (uint32_t i = 0; t->closed_kind == PP_GLES_RENDER && i < p->nattachments; i++) {
			uint32_t cls = c->open_cls[i];
			struct pp_attachment *a = &p->attachments[i];
			a->load_op = cls & t->load_clear ? "CLEAR" : cls & t->load_dont_care ? "DONT_CARE" : "LOAD";
			a->store_op = (cls & t->store_dont_care) == cls && cls ? "DONT_CARE" : "STORE";
		}
		if (c->diag && t->closed_kind == PP_GLES_RENDER)
			pp_gles_diag_pass_closed(c, p);
	}
	pp_attr_record_pass_end(c->rec);
	c->draw_work = NULL;
	c->cur = &c->rec->stray;
}

/* The render side of a pass on framebuffer fb: attachments, object name, the draw path. */
static void pass_render(struct pp_gles_ctx *c, struct pp_pass_rec *p, uint32_t fb)
{
	const struct pp_gles_fbo *f = fbo_get(c, fb);
	p->kind = PP_PASS_RENDER;
	p->api = fb ? "framebuffer object" : "default framebuffer";
	p->render_pass = fb;
	p->nattachments = f->natt;
	/* The rest of both arrays is zero: pass records start cleared (pp_attr_record_pass_begin),
	 * descriptions too (fbo_describe, default_fb_describe). */
	memcpy(p->attachments, f->att, f->natt * sizeof(p->attachments[0]));
	memcpy(c->open_cls, f->cls, sizeof(c->open_cls));
	memcpy(c->open_image, f->image, sizeof(c->open_image));
	if (c->diag)
		pp_gles_diag_pass_opened(c);
	for (uint32_t i = 0; fb && i < c->nlabels; i++)
		if (c->labels[i].fbo == fb) {
			memcpy(p->object_name, c->labels[i].name, sizeof(p->object_name));
			break;
		}
	c->rec->state = PP_REC_RENDER;
	c->draw_work = &p->work;
}

/* A pass's CPU span starts where the recording's previous pass ended (pp_attr_record_pass_begin;
 * docs/gles.md, "CPU counters"): the calls between, which set this pass up after the binding
 * that closed the previous one, are its recording cost. */
static void pass_open(struct pp_gles_ctx *c, const struct pp_gles_transition *t)
{
	bool render = t->opened_kind == PP_GLES_RENDER;
	/* A wait on this thread holds its frames back (the diagnostics): it issues their work. */
	pp_thread_role_note(PP_THREAD_RECORDS);
	/* A pass is the work of whoever's call opened it: RenderDoc's own work is marked
	 * (gles_renderdoc.c). */
	c->open_own = pp_egl_real_tls.rdoc_own;
	struct pp_pass_rec *p = pp_attr_record_pass_begin(c->rec, render ? PP_PASS_RENDER : PP_PASS_COMPUTE,
							"glDispatchCompute", render ? PP_REC_RENDER : PP_REC_OUTSIDE);
	if (!p) {
		c->cur = &c->rec->stray;
		c->draw_work = render ? &c->rec->stray : NULL;
		return;
	}
	const char *why = NULL;
	p->ts_begin = pp_gles_submit_slot_take(c, &why);
	if (p->ts_begin == PP_NO_SLOT)
		p->ts_reason = why;
	p->stats_reason = reason_stats;
	if (c->open_own)
		p->recorded_by = pp_gles_renderdoc_name();
	if (render)
		pass_render(c, p, t->opened_fb);
	c->cur = &p->work;
}

static void pass_promote(struct pp_gles_ctx *c, const struct pp_gles_transition *t)
{
	struct pp_pass_rec *p = pp_attr_record_open_pass(c->rec);
	if (!p) {
		c->draw_work = &c->rec->stray;
		return;
	}
	pass_render(c, p, t->opened_fb);
}

void pp_gles_pass_event(struct pp_gles_ctx *c, enum pp_gles_ev_kind kind, uint32_t fb, uint32_t mask)
{
	if (!c->rec)
		return;
	struct pp_gles_event ev = { .kind = kind, .fb = fb, .mask = mask };
	struct pp_gles_transition t;
	pp_gles_pass_machine_step(&c->pm, &ev, &t);
	if (!t.closed && !t.opened && !t.promoted)
		return;
	pp_egl_guard_enter();
	if (t.closed)
		pass_close(c, &t);
	if (t.opened) {
		if (c->rec->npasses >= PP_GLES_MAX_PASSES) {
			/* A program that never flushes nor swaps: hand what it has on, keeping memory
			 * bounded (the new pass goes into the next recording). */
			pp_gles_submit(c, "passprobe (passes per recording bound)", PP_SUBMIT_ASYNC, NULL);
		}
		pass_open(c, &t);
	}
	if (t.promoted)
		pass_promote(c, &t);
	pp_egl_guard_leave();
}

struct pp_workload *pp_gles_pass_for_draw(struct pp_gles_ctx *c)
{
	if (!c->rec)
		return &c->dummy;
	pp_gles_pass_event(c, PP_GLES_EV_DRAW, 0, 0);
	return c->draw_work ? c->draw_work : &c->rec->stray;
}

struct pp_workload *pp_gles_pass_for_dispatch(struct pp_gles_ctx *c)
{
	if (!c->rec)
		return &c->dummy;
	pp_gles_pass_event(c, PP_GLES_EV_DISPATCH, 0, 0);
	return c->cur;
}
