/* Texel blocks of image formats as copies move them: the bytes of a buffer<->image or
 * image<->image copy region (the workload's copy_bytes). From the Vulkan specification's
 * "Representation and Texel Block Size" and "Copying Data Between Buffers and Images":
 * depth/stencil formats are copied one aspect at a time (D24 depth as 4 bytes, stencil as 1),
 * multi-planar formats one plane at a time, each plane in its own single-plane format.
 * Checked against vulkan_format_traits.hpp of Vulkan-Headers by tests/layer's
 * test_copy_blocks.cpp. */
#include "vk_formats.h"

static bool block(struct pp_vk_block *out, uint32_t bytes, uint32_t w, uint32_t h)
{
	*out = (struct pp_vk_block){ bytes, w, h };
	return true;
}

/* The ASTC block sizes in the order of the enumerants (each UNORM, SRGB; SFLOAT apart). */
static const uint8_t astc_dims[14][2] = { { 4, 4 },  { 5, 4 },  { 5, 5 },   { 6, 5 },   { 6, 6 },
					  { 8, 5 },  { 8, 6 },  { 8, 8 },   { 10, 5 },  { 10, 6 },
					  { 10, 8 }, { 10, 10 }, { 12, 10 }, { 12, 12 } };

/* Core formats up to VK_FORMAT_B10G11R11_UFLOAT_PACK32 and E5B9G9R9: runs of one size. */
static uint32_t core_color_bytes(uint32_t f)
{
	static const struct {
		uint16_t last;
		uint8_t bytes;
	} runs[] = {
		{ 1, 1 },   /* R4G4_UNORM_PACK8 */
		{ 8, 2 },   /* 4444, 565, 5551 packs */
		{ 15, 1 },  /* R8 */
		{ 22, 2 },  /* R8G8 */
		{ 36, 3 },  /* R8G8B8, B8G8R8 */
		{ 69, 4 },  /* R8G8B8A8, B8G8R8A8, A8B8G8R8, A2R10G10B10, A2B10G10R10 */
		{ 76, 2 },  /* R16 */
		{ 83, 4 },  /* R16G16 */
		{ 90, 6 },  /* R16G16B16 */
		{ 97, 8 },  /* R16G16B16A16 */
		{ 100, 4 }, /* R32 */
		{ 103, 8 }, /* R32G32 */
		{ 106, 12 }, /* R32G32B32 */
		{ 109, 16 }, /* R32G32B32A32 */
		{ 112, 8 },  /* R64 */
		{ 115, 16 }, /* R64G64 */
		{ 118, 24 }, /* R64G64B64 */
		{ 121, 32 }, /* R64G64B64A64 */
		{ 123, 4 },  /* B10G11R11_UFLOAT_PACK32, E5B9G9R9_UFLOAT_PACK32 */
	};
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		if (f <= runs[i].last)
			return runs[i].bytes;
	return 0;
}

/* Multi-planar formats: the plane count, and in *bytes the bytes of one texel of the first
 * plane (every plane of a three-plane format holds one component, the second plane of a
 * two-plane format two). 0 planes: not multi-planar. */
static unsigned planes_of(VkFormat f, uint32_t *bytes)
{
	switch (f) {
	case VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM:
	case VK_FORMAT_G8_B8_R8_3PLANE_422_UNORM:
	case VK_FORMAT_G8_B8_R8_3PLANE_444_UNORM:
		*bytes = 1;
		return 3;
	case VK_FORMAT_G10X6_B10X6_R10X6_3PLANE_420_UNORM_3PACK16:
	case VK_FORMAT_G10X6_B10X6_R10X6_3PLANE_422_UNORM_3PACK16:
	case VK_FORMAT_G10X6_B10X6_R10X6_3PLANE_444_UNORM_3PACK16:
	case VK_FORMAT_G12X4_B12X4_R12X4_3PLANE_420_UNORM_3PACK16:
	case VK_FORMAT_G12X4_B12X4_R12X4_3PLANE_422_UNORM_3PACK16:
	case VK_FORMAT_G12X4_B12X4_R12X4_3PLANE_444_UNORM_3PACK16:
	case VK_FORMAT_G16_B16_R16_3PLANE_420_UNORM:
	case VK_FORMAT_G16_B16_R16_3PLANE_422_UNORM:
	case VK_FORMAT_G16_B16_R16_3PLANE_444_UNORM:
		*bytes = 2;
		return 3;
	case VK_FORMAT_G8_B8R8_2PLANE_420_UNORM:
	case VK_FORMAT_G8_B8R8_2PLANE_422_UNORM:
	case VK_FORMAT_G8_B8R8_2PLANE_444_UNORM:
		*bytes = 1;
		return 2;
	case VK_FORMAT_G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16:
	case VK_FORMAT_G10X6_B10X6R10X6_2PLANE_422_UNORM_3PACK16:
	case VK_FORMAT_G10X6_B10X6R10X6_2PLANE_444_UNORM_3PACK16:
	case VK_FORMAT_G12X4_B12X4R12X4_2PLANE_420_UNORM_3PACK16:
	case VK_FORMAT_G12X4_B12X4R12X4_2PLANE_422_UNORM_3PACK16:
	case VK_FORMAT_G12X4_B12X4R12X4_2PLANE_444_UNORM_3PACK16:
	case VK_FORMAT_G16_B16R16_2PLANE_420_UNORM:
	case VK_FORMAT_G16_B16R16_2PLANE_422_UNORM:
	case VK_FORMAT_G16_B16R16_2PLANE_444_UNORM:
		*bytes = 2;
		return 2;
	default:
		return 0;
	}
}

bool pp_vk_formats_copy_block(VkFormat f, VkImageAspectFlags aspect, struct pp_vk_block *out)
{
	const uint32_t u = (uint32_t)f;
	const bool depth = aspect == VK_IMAGE_ASPECT_DEPTH_BIT, stencil = aspect == VK_IMAGE_ASPECT_STENCIL_BIT;

	/* Depth/stencil: one aspect at a time, never both in one number. */
	switch (f) {
	case VK_FORMAT_D16_UNORM: return depth && block(out, 2, 1, 1);
	case VK_FORMAT_X8_D24_UNORM_PACK32:
	case VK_FORMAT_D32_SFLOAT: return depth && block(out, 4, 1, 1);
	case VK_FORMAT_S8_UINT: return stencil && block(out, 1, 1, 1);
	case VK_FORMAT_D16_UNORM_S8_UINT: return (depth || stencil) && block(out, depth ? 2 : 1, 1, 1);
	case VK_FORMAT_D24_UNORM_S8_UINT:
	case VK_FORMAT_D32_SFLOAT_S8_UINT: return (depth || stencil) && block(out, depth ? 4 : 1, 1, 1);
	default: break;
	}
	if (depth || stencil)
		return false;

	uint32_t first;
	unsigned planes = planes_of(f, &first);
	if (planes) {
		unsigned p = aspect == VK_IMAGE_ASPECT_PLANE_0_BIT ? 0
			     : aspect == VK_IMAGE_ASPECT_PLANE_1_BIT ? 1
			     : aspect == VK_IMAGE_ASPECT_PLANE_2_BIT ? 2
								      : 3;
		if (p >= planes)
			return false;
		return block(out, planes == 2 && p == 1 ? 2 * first : first, 1, 1);
	}
	if (aspect != VK_IMAGE_ASPECT_COLOR_BIT)
		return false;

	if (u >= 1 && u <= 123)
		return block(out, core_color_bytes(u), 1, 1);
	if (u >= VK_FORMAT_BC1_RGB_UNORM_BLOCK && u <= VK_FORMAT_BC7_SRGB_BLOCK) {
		/* BC1 (4 formats) and BC4 (2): 8 bytes; BC2, BC3, BC5, BC6H, BC7: 16. */
		bool eight = u <= VK_FORMAT_BC1_RGBA_SRGB_BLOCK ||
			     (u >= VK_FORMAT_BC4_UNORM_BLOCK && u <= VK_FORMAT_BC4_SNORM_BLOCK);
		return block(out, eight ? 8 : 16, 4, 4);
	}
	if (u >= VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK && u <= VK_FORMAT_EAC_R11G11_SNORM_BLOCK) {
		bool sixteen = (u >= VK_FORMAT_ETC2_R8G8B8A8_UNORM_BLOCK && u <= VK_FORMAT_ETC2_R8G8B8A8_SRGB_BLOCK) ||
			       u >= VK_FORMAT_EAC_R11G11_UNORM_BLOCK;
		return block(out, sixteen ? 16 : 8, 4, 4);
	}
	if (u >= VK_FORMAT_ASTC_4x4_UNORM_BLOCK && u <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK) {
		const uint8_t *d = astc_dims[(u - VK_FORMAT_ASTC_4x4_UNORM_BLOCK) / 2];
		return block(out, 16, d[0], d[1]);
	}
	if (u >= VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK && u <= VK_FORMAT_ASTC_12x12_SFLOAT_BLOCK) {
		const uint8_t *d = astc_dims[u - VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK];
		return block(out, 16, d[0], d[1]);
	}
	if (u >= VK_FORMAT_PVRTC1_2BPP_UNORM_BLOCK_IMG && u <= VK_FORMAT_PVRTC2_4BPP_SRGB_BLOCK_IMG) {
		/* 2BPP: 8x4 texels per 8 bytes; 4BPP: 4x4. The enumerants alternate 2BPP, 4BPP:
		 * PVRTC1 and PVRTC2 UNORM, then the same in SRGB. */
		bool two_bpp = ((u - VK_FORMAT_PVRTC1_2BPP_UNORM_BLOCK_IMG) % 2) == 0;
		return block(out, 8, two_bpp ? 8 : 4, 4);
	}
	switch (f) {
	case VK_FORMAT_G8B8G8R8_422_UNORM:
	case VK_FORMAT_B8G8R8G8_422_UNORM: return block(out, 4, 2, 1);
	case VK_FORMAT_R10X6_UNORM_PACK16:
	case VK_FORMAT_R12X4_UNORM_PACK16: return block(out, 2, 1, 1);
	case VK_FORMAT_R10X6G10X6_UNORM_2PACK16:
	case VK_FORMAT_R12X4G12X4_UNORM_2PACK16: return block(out, 4, 1, 1);
	case VK_FORMAT_R10X6G10X6B10X6A10X6_UNORM_4PACK16:
	case VK_FORMAT_R12X4G12X4B12X4A12X4_UNORM_4PACK16: return block(out, 8, 1, 1);
	case VK_FORMAT_G10X6B10X6G10X6R10X6_422_UNORM_4PACK16:
	case VK_FORMAT_B10X6G10X6R10X6G10X6_422_UNORM_4PACK16:
	case VK_FORMAT_G12X4B12X4G12X4R12X4_422_UNORM_4PACK16:
	case VK_FORMAT_B12X4G12X4R12X4G12X4_422_UNORM_4PACK16:
	case VK_FORMAT_G16B16G16R16_422_UNORM:
	case VK_FORMAT_B16G16R16G16_422_UNORM: return block(out, 8, 2, 1);
	case VK_FORMAT_A4R4G4B4_UNORM_PACK16:
	case VK_FORMAT_A4B4G4R4_UNORM_PACK16: return block(out, 2, 1, 1);
	case VK_FORMAT_R16G16_S10_5_NV: return block(out, 4, 1, 1);
	default: return false;
	}
}

uint64_t pp_vk_formats_copy_region_bytes(const struct pp_vk_block *b, VkExtent3D extent, uint32_t layers)
{
	return (uint64_t)((extent.width + b->width - 1) / b->width) * ((extent.height + b->height - 1) / b->height) *
	       extent.depth * layers * b->bytes;
}
