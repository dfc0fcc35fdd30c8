#pragma once
/* Texel blocks of image formats as copies move them (vk_formats.c). */
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pp_vk_block {
	uint32_t bytes;         /* of one block */
	uint32_t width, height; /* texels per block: 1x1, or 4x4 (BC, ETC2), ASTC's, 2x1 (422 packed) */
};

/* The block that a copy of `aspect` (one aspect: COLOR, DEPTH, STENCIL or PLANE_i) of an image
 * of format f moves. False where the aspect does not belong to the format or the format is
 * not known here. */
bool pp_vk_formats_copy_block(VkFormat f, VkImageAspectFlags aspect, struct pp_vk_block *out);

/* Bytes of a copy region: whole blocks covering the extent, times its depth and layers. */
uint64_t pp_vk_formats_copy_region_bytes(const struct pp_vk_block *b, VkExtent3D extent, uint32_t layers);

#ifdef __cplusplus
}
#endif
