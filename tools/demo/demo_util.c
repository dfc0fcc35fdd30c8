#include "demo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *demo_util_result_name(VkResult result)
{
	switch (result) {
#define DEMO_RESULT(r) \
	case r:        \
		return #r;
		DEMO_RESULT(VK_SUCCESS)
		DEMO_RESULT(VK_NOT_READY)
		DEMO_RESULT(VK_TIMEOUT)
		DEMO_RESULT(VK_EVENT_SET)
		DEMO_RESULT(VK_EVENT_RESET)
		DEMO_RESULT(VK_INCOMPLETE)
		DEMO_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
		DEMO_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
		DEMO_RESULT(VK_ERROR_INITIALIZATION_FAILED)
		DEMO_RESULT(VK_ERROR_DEVICE_LOST)
		DEMO_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
		DEMO_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
		DEMO_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
		DEMO_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
		DEMO_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
		DEMO_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
		DEMO_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
		DEMO_RESULT(VK_ERROR_FRAGMENTED_POOL)
		DEMO_RESULT(VK_ERROR_UNKNOWN)
		DEMO_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
		DEMO_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
		DEMO_RESULT(VK_ERROR_FRAGMENTATION)
		DEMO_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
		DEMO_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
		DEMO_RESULT(VK_ERROR_SURFACE_LOST_KHR)
		DEMO_RESULT(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
		DEMO_RESULT(VK_SUBOPTIMAL_KHR)
		DEMO_RESULT(VK_ERROR_OUT_OF_DATE_KHR)
		DEMO_RESULT(VK_ERROR_VALIDATION_FAILED_EXT)
#undef DEMO_RESULT
	default:
		return "unknown VkResult";
	}
}

VkResult demo_util_fail(const char *call, VkResult result)
{
	fprintf(stderr, DEMO_NAME ": %s failed: %s", call, demo_util_result_name(result));
	if (!strcmp(demo_util_result_name(result), "unknown VkResult"))
		fprintf(stderr, " (%d)", (int)result);
	fprintf(stderr, "\n");
	return result;
}

int demo_util_ppm_write(FILE *f, const char *path, const uint8_t *rgba, uint32_t width, uint32_t height)
{
	uint8_t *row = malloc((size_t)width * 3);
	int ok = row != NULL;
	if (ok)
		ok = fprintf(f, "P6\n%u %u\n255\n", width, height) > 0;
	for (uint32_t y = 0; ok && y < height; y++) {
		const uint8_t *src = rgba + (size_t)y * width * 4;
		for (uint32_t x = 0; x < width; x++) {
			row[x * 3 + 0] = src[x * 4 + 0];
			row[x * 3 + 1] = src[x * 4 + 1];
			row[x * 3 + 2] = src[x * 4 + 2];
		}
		ok = fwrite(row, 3, width, f) == width;
	}
	free(row);
	if (fclose(f) != 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, DEMO_NAME ": cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}
