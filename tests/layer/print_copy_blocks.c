/* For tests/layer/check_copy_blocks.py: reads VkFormat values (one per line) and prints, for
 * each aspect a copy can name, the texel block pp_vk_formats_copy_block gives (vk_formats.c):
 * "<format> <aspect> <bytes> <width> <height>", or "<format> <aspect> -" where it gives none. */
#include <stdio.h>

#include "vk_formats.h"

int main(void)
{
	static const struct {
		const char *name;
		VkImageAspectFlags bit;
	} aspects[] = { { "color", VK_IMAGE_ASPECT_COLOR_BIT },     { "depth", VK_IMAGE_ASPECT_DEPTH_BIT },
			{ "stencil", VK_IMAGE_ASPECT_STENCIL_BIT }, { "plane0", VK_IMAGE_ASPECT_PLANE_0_BIT },
			{ "plane1", VK_IMAGE_ASPECT_PLANE_1_BIT },  { "plane2", VK_IMAGE_ASPECT_PLANE_2_BIT } };
	long f;
	while (scanf("%ld", &f) == 1) {
		for (unsigned i = 0; i < sizeof(aspects) / sizeof(aspects[0]); i++) {
			struct pp_vk_block b;
			if (pp_vk_formats_copy_block((VkFormat)f, aspects[i].bit, &b))
				printf("%ld %s %u %u %u\n", f, aspects[i].name, b.bytes, b.width, b.height);
			else
				printf("%ld %s -\n", f, aspects[i].name);
		}
	}
	return 0;
}
