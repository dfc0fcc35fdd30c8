/* GL calls that begin or end passes, name them, or describe attachments. Each turns into a
 * pass-machine event (gles_pass.c) and calls down; the re-entry guard makes calls from inside
 * the shim or the driver pass straight through. Boundaries that must be measured before the
 * driver acts (the end timestamp belongs before a flush or a read-back) are fed before the
 * call down; an invalidate, after it. */
#include "gles_diag.h"
#include "gles_internal.h"

/* The framebuffer a deletion leaves bound: deleting the bound draw framebuffer binds 0. */
GL_APICALL void GL_APIENTRY glBindFramebuffer(GLenum target, GLuint framebuffer)
{
	PP_GLES_ABOVE(glBindFramebuffer, (target, framebuffer));
	struct pp_gles_ctx *c = pp_gles_acting();
	bool draw = target == GL_FRAMEBUFFER || target == GL_DRAW_FRAMEBUFFER;
	if (c && !pp_gles_moves_passes(c)) {
		if (draw) {
			c->own_fb = framebuffer;
			c->own_bound = true;
		}
	} else if (c) {
		if (draw) {
			pp_gles_pass_event(c, PP_GLES_EV_BIND, framebuffer, 0);
			c->own_bound = false;
		}
		if (target == GL_FRAMEBUFFER || target == GL_READ_FRAMEBUFFER)
			c->read_fb = framebuffer;
	}
	PP_REAL(glBindFramebuffer)(target, framebuffer);
}

GL_APICALL void GL_APIENTRY glDeleteFramebuffers(GLsizei n, const GLuint *framebuffers)
{
	PP_GLES_ABOVE(glDeleteFramebuffers, (n, framebuffers));
	struct pp_gles_ctx *c = pp_gles_acting();
	for (GLsizei i = 0; c && framebuffers && i < n; i++) {
		if (!framebuffers[i])
			continue;
		if (!pp_gles_moves_passes(c)) {
			if (c->own_bound && framebuffers[i] == c->own_fb)
				c->own_fb = 0;
		} else {
			if (framebuffers[i] == c->pm.fb)
				pp_gles_pass_event(c, PP_GLES_EV_BIND, 0, 0);
			if (framebuffers[i] == c->read_fb)
				c->read_fb = 0;
		}
		pp_gles_pass_fbo_forget(c, framebuffers[i]);
	}
	PP_REAL(glDeleteFramebuffers)(n, framebuffers);
}

static void clear_event(struct pp_gles_ctx *c, uint32_t mask)
{
	pp_gles_pass_event(c, PP_GLES_EV_CLEAR, c->pm.fb, mask);
	c->cur->clears++;
}

GL_APICALL void GL_APIENTRY glClear(GLbitfield mask)
{
	PP_GLES_ABOVE(glClear, (mask));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c)
		clear_event(c, pp_gles_pass_clear_mask(mask));
	PP_REAL(glClear)(mask);
}

static uint32_t clear_buffer_mask(GLenum buffer)
{
	return buffer == GL_COLOR ? PP_GLES_ATT_COLOR
	       : buffer == GL_DEPTH ? PP_GLES_ATT_DEPTH
	       : buffer == GL_STENCIL ? PP_GLES_ATT_STENCIL
	       : buffer == GL_DEPTH_STENCIL ? PP_GLES_ATT_DEPTH | PP_GLES_ATT_STENCIL : 0;
}

/* glClearBuffer{fv,iv,uiv,fi}: the buffer named by their first parameter. */
PP_GLES_ACTING_HOOK(glClearBufferfv, (GLenum buffer, GLint drawbuffer, const GLfloat *value), (buffer, drawbuffer, value),
		    clear_event(c, clear_buffer_mask(buffer)))
PP_GLES_ACTING_HOOK(glClearBufferiv, (GLenum buffer, GLint drawbuffer, const GLint *value), (buffer, drawbuffer, value),
		    clear_event(c, clear_buffer_mask(buffer)))
PP_GLES_ACTING_HOOK(glClearBufferuiv, (GLenum buffer, GLint drawbuffer, const GLuint *value), (buffer, drawbuffer, value),
		    clear_event(c, clear_buffer_mask(buffer)))
PP_GLES_ACTING_HOOK(glClearBufferfi, (GLenum buffer, GLint drawbuffer, GLfloat depth, GLint stencil),
		    (buffer, drawbuffer, depth, stencil), clear_event(c, clear_buffer_mask(buffer)))

static void invalidate_event(struct pp_gles_ctx *c, GLenum target, GLsizei n, const GLenum *attachments)
{
	/* Only the draw framebuffer's passes are concerned; a read-framebuffer invalidate of
	 * the same object counts too. */
	bool draw = target == GL_FRAMEBUFFER || target == GL_DRAW_FRAMEBUFFER ||
		    (target == GL_READ_FRAMEBUFFER && c->read_fb == c->pm.fb);
	if (draw)
		pp_gles_pass_event(c, PP_GLES_EV_INVALIDATE, c->pm.fb,
				   pp_gles_pass_invalidate_mask(attachments, n, c->pm.fb == 0));
}

GL_APICALL void GL_APIENTRY glInvalidateFramebuffer(GLenum target, GLsizei numAttachments, const GLenum *attachments)
{
	PP_GLES_ABOVE(glInvalidateFramebuffer, (target, numAttachments, attachments));
	struct pp_gles_ctx *c = pp_gles_acting();
	PP_REAL(glInvalidateFramebuffer)(target, numAttachments, attachments);
	if (c && pp_gles_moves_passes(c))
		invalidate_event(c, target, numAttachments, attachments);
}

GL_APICALL void GL_APIENTRY glDiscardFramebufferEXT(GLenum target, GLsizei numAttachments, const GLenum *attachments)
{
	PP_GLES_ABOVE(glDiscardFramebufferEXT, (target, numAttachments, attachments));
	struct pp_gles_ctx *c = pp_gles_acting();
	PP_REAL(glDiscardFramebufferEXT)(target, numAttachments, attachments);
	if (c && pp_gles_moves_passes(c))
		invalidate_event(c, target, numAttachments, attachments);
}

/* The name bound to a binding point: glGetIntegerv of a binding never raises an error. */
static uint32_t bound(GLenum binding)
{
	GLint name = 0;
	PP_REAL(glGetIntegerv)(binding, &name);
	return (uint32_t)name;
}

GL_APICALL void GL_APIENTRY glReadPixels(GLint x, GLint y, GLsizei width, GLsizei height, GLenum format, GLenum type,
					 void *pixels)
{
	PP_GLES_ABOVE(glReadPixels, (x, y, width, height, format, type, pixels));
	struct pp_gles_ctx *c = pp_gles_renderdoc_acting_app();
	if (!c) {
		PP_REAL(glReadPixels)(x, y, width, height, format, type, pixels);
		return;
	}
	struct pp_gles_call_mark m = pp_gles_diag_call(c, PP_GLES_CALL_READ_PIXELS, "glReadPixels");
	pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
	pp_gles_diag_fb_read(c, c->es3 ? c->read_fb : c->pm.fb, PP_GLES_ATT_COLOR);
	/* Into client memory (no pixel pack buffer bound; ES 2 has none) the call returns the
	 * pixels, so it waits for the read framebuffer's rendering: a submission, which ends a
	 * frame where a fence would (frame_delimiter=auto on a surfaceless context: an offscreen
	 * renderer that reads every frame back). Into a pack buffer it is queued like a draw. */
	bool client = !c->es3 || !bound(GL_PIXEL_PACK_BUFFER_BINDING);
	/* Into client memory right after rendering: the call waits for the GPU (diagnostics). */
	bool drains = pp_gles_diag_readback_drains(c);
	struct pp_gles_diag_span sp;
	if (drains)
		pp_gles_diag_span_begin(&sp);
	PP_REAL(glReadPixels)(x, y, width, height, format, type, pixels);
	uint64_t ns = drains ? pp_gles_diag_span_end(c, &sp, "glReadPixels") : 0;
	if (client)
		pp_gles_submit(c, "glReadPixels", PP_SUBMIT_FENCE, NULL);
	if (drains)
		pp_gles_diag_readback_done(c, width, height, ns, pp_gles_site(__builtin_return_address(0)), &m);
}

GL_APICALL void GL_APIENTRY glBlitFramebuffer(GLint srcX0, GLint srcY0, GLint srcX1, GLint srcY1, GLint dstX0,
					      GLint dstY0, GLint dstX1, GLint dstY1, GLbitfield mask, GLenum filter)
{
	PP_GLES_ABOVE(glBlitFramebuffer, (srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1, mask, filter));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && pp_gles_moves_passes(c)) {
		pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
		pp_gles_diag_fb_read(c, c->read_fb, pp_gles_pass_clear_mask(mask));
	}
	PP_REAL(glBlitFramebuffer)(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1, mask, filter);
}

/* Any attachment change: cached framebuffer descriptions are taken again when next used. */
PP_GLES_ACTING_HOOK(glFramebufferTexture2D,
		    (GLenum target, GLenum attachment, GLenum textarget, GLuint texture, GLint level),
		    (target, attachment, textarget, texture, level), c->fbo_generation++)
PP_GLES_ACTING_HOOK(glFramebufferTextureLayer,
		    (GLenum target, GLenum attachment, GLuint texture, GLint level, GLint layer),
		    (target, attachment, texture, level, layer), c->fbo_generation++)
PP_GLES_ACTING_HOOK(glFramebufferRenderbuffer,
		    (GLenum target, GLenum attachment, GLenum renderbuffertarget, GLuint renderbuffer),
		    (target, attachment, renderbuffertarget, renderbuffer), c->fbo_generation++)

/* ---- names ---------------------------------------------------------------------------- */

PP_GLES_ACTING_HOOK(glPushDebugGroup, (GLenum source, GLuint id, GLsizei length, const GLchar *message),
		    (source, id, length, message), pp_gles_pass_label(c, true, message, length))
PP_GLES_ACTING_HOOK(glPushDebugGroupKHR, (GLenum source, GLuint id, GLsizei length, const GLchar *message),
		    (source, id, length, message), pp_gles_pass_label(c, true, message, length))
PP_GLES_ACTING_HOOK(glPopDebugGroup, (void), (), pp_gles_pass_label(c, false, NULL, 0))
PP_GLES_ACTING_HOOK(glPopDebugGroupKHR, (void), (), pp_gles_pass_label(c, false, NULL, 0))

GL_APICALL void GL_APIENTRY glObjectLabel(GLenum identifier, GLuint name, GLsizei length, const GLchar *label)
{
	PP_GLES_ABOVE(glObjectLabel, (identifier, name, length, label));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && identifier == GL_FRAMEBUFFER && name)
		pp_gles_pass_fbo_label(c, name, label, length);
	PP_REAL(glObjectLabel)(identifier, name, length, label);
}

GL_APICALL void GL_APIENTRY glObjectLabelKHR(GLenum identifier, GLuint name, GLsizei length, const GLchar *label)
{
	PP_GLES_ABOVE(glObjectLabelKHR, (identifier, name, length, label));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && identifier == GL_FRAMEBUFFER && name)
		pp_gles_pass_fbo_label(c, name, label, length);
	PP_REAL(glObjectLabelKHR)(identifier, name, length, label);
}

/* ---- image sizes ---------------------------------------------------------------------- */

GL_APICALL void GL_APIENTRY glTexStorage2D(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width,
					   GLsizei height)
{
	PP_GLES_ABOVE(glTexStorage2D, (target, levels, internalformat, width, height));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && target == GL_TEXTURE_2D && width > 0 && height > 0) {
		uint32_t name = bound(GL_TEXTURE_BINDING_2D);
		pp_gles_images_store(c->share, false, name, internalformat, (uint32_t)width, (uint32_t)height, 1);
		pp_gles_diag_image_forget(c, name);
	}
	PP_REAL(glTexStorage2D)(target, levels, internalformat, width, height);
}

GL_APICALL void GL_APIENTRY glTexImage2D(GLenum target, GLint level, GLint internalformat, GLsizei width,
					 GLsizei height, GLint border, GLenum format, GLenum type, const void *pixels)
{
	PP_GLES_ABOVE(glTexImage2D, (target, level, internalformat, width, height, border, format, type, pixels));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && target == GL_TEXTURE_2D && level == 0 && width > 0 && height > 0) {
		uint32_t name = bound(GL_TEXTURE_BINDING_2D);
		pp_gles_images_store(c->share, false, name, (uint32_t)internalformat, (uint32_t)width, (uint32_t)height,
				    1);
		pp_gles_diag_image_forget(c, name);
	}
	PP_REAL(glTexImage2D)(target, level, internalformat, width, height, border, format, type, pixels);
}

GL_APICALL void GL_APIENTRY glTexStorage2DMultisample(GLenum target, GLsizei samples, GLenum internalformat,
						      GLsizei width, GLsizei height, GLboolean fixedsamplelocations)
{
	PP_GLES_ABOVE(glTexStorage2DMultisample, (target, samples, internalformat, width, height, fixedsamplelocations));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && target == GL_TEXTURE_2D_MULTISAMPLE && width > 0 && height > 0)
		pp_gles_images_store(c->share, false, bound(GL_TEXTURE_BINDING_2D_MULTISAMPLE), internalformat,
				    (uint32_t)width, (uint32_t)height, samples > 0 ? (uint32_t)samples : 1);
	PP_REAL(glTexStorage2DMultisample)(target, samples, internalformat, width, height, fixedsamplelocations);
}

GL_APICALL void GL_APIENTRY glRenderbufferStorage(GLenum target, GLenum internalformat, GLsizei width, GLsizei height)
{
	PP_GLES_ABOVE(glRenderbufferStorage, (target, internalformat, width, height));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && width > 0 && height > 0) {
		uint32_t name = bound(GL_RENDERBUFFER_BINDING);
		pp_gles_images_store(c->share, true, name, internalformat, (uint32_t)width, (uint32_t)height, 1);
		pp_gles_diag_image_forget(c, name | PP_GLES_IMAGE_RB);
	}
	PP_REAL(glRenderbufferStorage)(target, internalformat, width, height);
}

GL_APICALL void GL_APIENTRY glRenderbufferStorageMultisample(GLenum target, GLsizei samples, GLenum internalformat,
							     GLsizei width, GLsizei height)
{
	PP_GLES_ABOVE(glRenderbufferStorageMultisample, (target, samples, internalformat, width, height));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && width > 0 && height > 0)
		pp_gles_images_store(c->share, true, bound(GL_RENDERBUFFER_BINDING), internalformat, (uint32_t)width,
				    (uint32_t)height, samples > 0 ? (uint32_t)samples : 1);
	PP_REAL(glRenderbufferStorageMultisample)(target, samples, internalformat, width, height);
}

GL_APICALL void GL_APIENTRY glDeleteTextures(GLsizei n, const GLuint *textures)
{
	PP_GLES_ABOVE(glDeleteTextures, (n, textures));
	struct pp_gles_ctx *c = pp_gles_acting();
	for (GLsizei i = 0; c && textures && i < n; i++) {
		pp_gles_images_forget(c->share, false, textures[i]);
		pp_gles_diag_image_forget(c, textures[i]);
	}
	PP_REAL(glDeleteTextures)(n, textures);
}

GL_APICALL void GL_APIENTRY glDeleteRenderbuffers(GLsizei n, const GLuint *renderbuffers)
{
	PP_GLES_ABOVE(glDeleteRenderbuffers, (n, renderbuffers));
	struct pp_gles_ctx *c = pp_gles_acting();
	for (GLsizei i = 0; c && renderbuffers && i < n; i++) {
		pp_gles_images_forget(c->share, true, renderbuffers[i]);
		pp_gles_diag_image_forget(c, renderbuffers[i] | PP_GLES_IMAGE_RB);
	}
	PP_REAL(glDeleteRenderbuffers)(n, renderbuffers);
}
