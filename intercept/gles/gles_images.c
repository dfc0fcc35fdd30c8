/* Image sizes and formats per share group (textures and renderbuffers are shared between
 * contexts created with a share context): what attachment descriptions need and GL ES cannot
 * answer for a texture without binding it. Filled by the storage hooks, emptied by the delete
 * hooks, bounded. */
#include <pthread.h>
#include <stdlib.h>

#include "gles_internal.h"
#include "pp_hash.h"
#include "pp_log.h"

#define MAX_IMAGES 65536

struct image {
	uint64_t key; /* renderbuffer << 32 | name */
	uint32_t format, w, h, samples;
	UT_hash_handle hh;
};

struct pp_gles_share {
	pthread_mutex_t lock;
	uint32_t refs;
	uint32_t count;
	struct image *images;
};

struct pp_gles_share *pp_gles_images_share_create(void)
{
	struct pp_gles_share *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->refs = 1;
	return s;
}

bool pp_gles_images_share_alone(struct pp_gles_share *s)
{
	return !s || __atomic_load_n(&s->refs, __ATOMIC_RELAXED) <= 1;
}

void pp_gles_images_share_ref(struct pp_gles_share *s)
{
	if (s)
		__atomic_fetch_add(&s->refs, 1, __ATOMIC_RELAXED);
}

void pp_gles_images_share_unref(struct pp_gles_share *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	struct image *i, *tmp;
	HASH_ITER(hh, s->images, i, tmp)
	{
		HASH_DEL(s->images, i);
		free(i);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static uint64_t key_of(bool renderbuffer, uint32_t name)
{
	return (uint64_t)renderbuffer << 32 | name;
}

void pp_gles_images_store(struct pp_gles_share *s, bool renderbuffer, uint32_t name, uint32_t internal_format,
			 uint32_t w, uint32_t h, uint32_t samples)
{
	if (!s || !name)
		return;
	uint64_t key = key_of(renderbuffer, name);
	pthread_mutex_lock(&s->lock);
	struct image *i = NULL;
	HASH_FIND(hh, s->images, &key, sizeof(key), i);
	if (!i && s->count < MAX_IMAGES) {
		i = calloc(1, sizeof(*i));
		if (i) {
			i->key = key;
			bool added;
			PP_HASH_ADD(s->images, key, sizeof(i->key), i, added);
			if (!added) {
				free(i);
				i = NULL;
			} else {
				s->count++;
			}
		}
	}
	if (i) {
		i->format = internal_format;
		i->w = w;
		i->h = h;
		i->samples = samples;
	} else {
		pp_log_once(PP_LOG_INFO, "image table full or out of memory: some attachments are described without size");
	}
	pthread_mutex_unlock(&s->lock);
}

void pp_gles_images_forget(struct pp_gles_share *s, bool renderbuffer, uint32_t name)
{
	if (!s)
		return;
	uint64_t key = key_of(renderbuffer, name);
	pthread_mutex_lock(&s->lock);
	struct image *i = NULL;
	HASH_FIND(hh, s->images, &key, sizeof(key), i);
	if (i) {
		HASH_DEL(s->images, i);
		s->count--;
		free(i);
	}
	pthread_mutex_unlock(&s->lock);
}

bool pp_gles_images_find(struct pp_gles_share *s, bool renderbuffer, uint32_t name, uint32_t *internal_format,
			uint32_t *w, uint32_t *h, uint32_t *samples)
{
	if (!s)
		return false;
	uint64_t key = key_of(renderbuffer, name);
	pthread_mutex_lock(&s->lock);
	struct image *i = NULL;
	HASH_FIND(hh, s->images, &key, sizeof(key), i);
	if (i) {
		*internal_format = i->format;
		*w = i->w;
		*h = i->h;
		*samples = i->samples;
	}
	pthread_mutex_unlock(&s->lock);
	return i != NULL;
}

const char *pp_gles_images_format_name(uint32_t f)
{
	switch (f) {
	case GL_RGBA8: return "RGBA8";
	case GL_RGB8: return "RGB8";
	case GL_RGBA: return "RGBA";
	case GL_RGB: return "RGB";
	case GL_RGB565: return "RGB565";
	case GL_RGBA4: return "RGBA4";
	case GL_RGB5_A1: return "RGB5_A1";
	case GL_SRGB8_ALPHA8: return "SRGB8_ALPHA8";
	case GL_RGB10_A2: return "RGB10_A2";
	case GL_R8: return "R8";
	case GL_RG8: return "RG8";
	case GL_R16F: return "R16F";
	case GL_RG16F: return "RG16F";
	case GL_RGBA16F: return "RGBA16F";
	case GL_R32F: return "R32F";
	case GL_RG32F: return "RG32F";
	case GL_RGBA32F: return "RGBA32F";
	case GL_R11F_G11F_B10F: return "R11F_G11F_B10F";
	case GL_RGBA8UI: return "RGBA8UI";
	case GL_R32UI: return "R32UI";
	case GL_DEPTH_COMPONENT16: return "DEPTH_COMPONENT16";
	case GL_DEPTH_COMPONENT24: return "DEPTH_COMPONENT24";
	case GL_DEPTH_COMPONENT32F: return "DEPTH_COMPONENT32F";
	case GL_DEPTH24_STENCIL8: return "DEPTH24_STENCIL8";
	case GL_DEPTH32F_STENCIL8: return "DEPTH32F_STENCIL8";
	case GL_STENCIL_INDEX8: return "STENCIL_INDEX8";
	case GL_DEPTH_COMPONENT: return "DEPTH_COMPONENT";
	case GL_DEPTH_STENCIL: return "DEPTH_STENCIL";
	case GL_LUMINANCE: return "LUMINANCE";
	case GL_ALPHA: return "ALPHA";
	/* EXT_texture_format_BGRA8888: ANGLE (Chromium's WebGL) renders into these. */
	case GL_BGRA_EXT: return "BGRA";
	case GL_BGRA8_EXT: return "BGRA8";
	case GL_LUMINANCE_ALPHA: return "LUMINANCE_ALPHA";
	case GL_SRGB8: return "SRGB8";
	case GL_RGB16F: return "RGB16F";
	case GL_RGB32F: return "RGB32F";
	case GL_RGB9_E5: return "RGB9_E5";
	case GL_RGB10_A2UI: return "RGB10_A2UI";
	case GL_R8_SNORM: return "R8_SNORM";
	case GL_RGBA8_SNORM: return "RGBA8_SNORM";
	case GL_R8UI: return "R8UI";
	case GL_R8I: return "R8I";
	case GL_RG8UI: return "RG8UI";
	case GL_RGBA8I: return "RGBA8I";
	case GL_R16UI: return "R16UI";
	case GL_R16I: return "R16I";
	case GL_RG16UI: return "RG16UI";
	case GL_RGBA16UI: return "RGBA16UI";
	case GL_RGBA16I: return "RGBA16I";
	case GL_R32I: return "R32I";
	case GL_RG32UI: return "RG32UI";
	case GL_RGBA32UI: return "RGBA32UI";
	case GL_RGBA32I: return "RGBA32I";
	case GL_R16_EXT: return "R16";
	case GL_RG16_EXT: return "RG16";
	case GL_RGBA16_EXT: return "RGBA16";
	case GL_DEPTH_COMPONENT32_OES: return "DEPTH_COMPONENT32";
	default: return "unknown";
	}
}
