/* passprobe-demo: a headless, deterministic multi-pass Vulkan renderer used as the
 * first thing users profile and as the workload of the layer's tests. Internal header
 * shared by the demo's translation units; nothing here is installed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vulkan/vulkan.h>

#include "demo_mat4.h"

#define DEMO_NAME "passprobe-demo"

enum demo_pass {
	DEMO_PASS_SHADOW,
	DEMO_PASS_GBUFFER,
	DEMO_PASS_LIGHTING,
	DEMO_PASS_POSTPROCESS,
	DEMO_PASS_COMPOSITE,
	DEMO_PASS_COUNT
};

/* How a pass opens its render pass instance; postprocess is a dispatch and has none. */
enum demo_api {
	DEMO_API_NONE,
	DEMO_API_RENDER_PASS, /* vkCreateRenderPass + vkCmdBeginRenderPass */
	DEMO_API_RENDER_PASS2, /* vkCreateRenderPass2 + vkCmdBeginRenderPass2 */
	DEMO_API_DYNAMIC, /* vkCmdBeginRendering */
};

enum demo_style {
	DEMO_STYLE_MIXED,
	DEMO_STYLE_DYNAMIC_ONLY,
	DEMO_STYLE_RENDERPASS_ONLY,
};

#define DEMO_SHADOW_SIZE 1024u
#define DEMO_LOAD_MAX 1000u
#define DEMO_FRAMES_IN_FLIGHT_MAX 16u
#define DEMO_DRAWS_MAX 4096u
#define DEMO_EXTENT_MAX 8192u
/* Boxes drawn by one scene draw: one floor slab and eight buildings on a tile. */
#define DEMO_BOXES_PER_TILE 9u
#define DEMO_BOX_VERTICES 36u
#define DEMO_STRIP_VERTICES 6u

struct demo_options {
	uint32_t frames;
	uint32_t width;
	uint32_t height;
	uint32_t draws;
	uint32_t frames_in_flight;
	uint32_t load[DEMO_PASS_COUNT];
	enum demo_style style;
	bool no_labels;
	bool submit2;
	bool barrier2;
	bool timings;
	bool misuse_barriers;
	bool misuse_query_wait;
	bool misuse_wait_idle;
	const char *output; /* PPM path, or NULL */
};

/* Mirrors the push_constant block in shaders/common.glsl. */
struct demo_push {
	uint32_t load;
	float load_weight;
	uint32_t strip_count;
	uint32_t pad;
};

/* Mirrors the std140 Frame block in shaders/frame.glsl. */
struct demo_frame_constants {
	float view_proj[16];
	float inv_view_proj[16];
	float light_view_proj[16];
	float light_dir[4]; /* xyz: unit vector towards the light; w: ambient */
	float grid[4]; /* x: columns, y: rows, z: tile size, w: time */
	float viewport[4]; /* x: width, y: height, z: 1/width, w: 1/height */
	uint32_t counts[4]; /* x: tiles, y: boxes per tile, z: shadow map size */
};

struct demo_image {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
	VkFormat format;
	VkExtent2D extent;
	VkImageAspectFlags aspect;
};

/* The attachments one render pass instance writes; also drives pipeline formats. */
struct demo_targets {
	uint32_t color_count;
	struct demo_image *color[2];
	struct demo_image *depth;
	VkClearValue clear[3]; /* colours first, then depth */
	VkExtent2D extent;
};

struct demo_frame_slot {
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	bool submitted;
	VkDescriptorSet scene_set;
	VkDescriptorSet lighting_set;
	VkDescriptorSet post_set;
	VkDescriptorSet composite_set;
	struct demo_frame_constants *constants; /* persistently mapped */
	VkDeviceSize constants_offset;
};

struct demo_context {
	struct demo_options opt;

	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkPhysicalDeviceProperties properties;
	VkPhysicalDeviceMemoryProperties memory_properties;
	VkDevice device;
	uint32_t queue_family;
	VkQueue queue;
	uint32_t timestamp_valid_bits;

	bool have_debug_utils;
	PFN_vkCmdBeginDebugUtilsLabelEXT cmd_begin_label;
	PFN_vkCmdEndDebugUtilsLabelEXT cmd_end_label;
	PFN_vkSetDebugUtilsObjectNameEXT set_object_name;
	/* Vulkan 1.3's commands, or their KHR extensions' on a 1.2 device (RenderDoc 1.24 shows
     * lavapipe as 1.2 with VK_KHR_dynamic_rendering and VK_KHR_synchronization2). */
	PFN_vkCmdBeginRendering cmd_begin_rendering;
	PFN_vkCmdEndRendering cmd_end_rendering;
	PFN_vkCmdPipelineBarrier2 cmd_pipeline_barrier2;
	PFN_vkQueueSubmit2 queue_submit2;

	enum demo_api api[DEMO_PASS_COUNT];

	struct demo_image shadow_depth;
	struct demo_image gbuffer_albedo;
	struct demo_image gbuffer_normal;
	struct demo_image gbuffer_depth;
	struct demo_image lighting_hdr;
	struct demo_image post_out;
	struct demo_image composite_final;
	struct demo_targets targets[DEMO_PASS_COUNT];

	VkRenderPass render_pass[DEMO_PASS_COUNT];
	VkFramebuffer framebuffer[DEMO_PASS_COUNT];

	VkSampler sampler;
	VkDescriptorSetLayout scene_set_layout;
	VkDescriptorSetLayout lighting_set_layout;
	VkDescriptorSetLayout post_set_layout;
	VkDescriptorSetLayout composite_set_layout;
	VkPipelineLayout scene_layout;
	VkPipelineLayout lighting_layout;
	VkPipelineLayout post_layout;
	VkPipelineLayout composite_layout;
	VkPipeline pipeline[DEMO_PASS_COUNT];
	VkDescriptorPool descriptor_pool;

	VkBuffer constants_buffer;
	VkDeviceMemory constants_memory;
	void *constants_map;

	VkBuffer readback_buffer;
	VkDeviceMemory readback_memory;
	bool readback_coherent;

	VkQueryPool timing_pool; /* --timings: 2 queries per pass per slot */
	VkQueryPool misuse_pool; /* --misuse-query-wait: 2 queries per slot */
	FILE *output_file; /* --output, opened before rendering */

	struct demo_frame_slot slots[DEMO_FRAMES_IN_FLIGHT_MAX];

	uint64_t timing_ns[DEMO_PASS_COUNT];
	uint32_t timing_frames;
};

/* demo_options.c */
extern const char *const demo_options_pass_names[DEMO_PASS_COUNT];
/* Returns 0 to run, 1 when --help was printed, -1 on a usage error (already reported). */
int demo_options_parse(struct demo_options *opt, int argc, char **argv);

/* demo_util.c */
const char *demo_util_result_name(VkResult result);
VkResult demo_util_fail(const char *call, VkResult result);
#define DEMO_TRY(fn, args)                                       \
	do {                                                     \
		VkResult demo_try_result_ = fn args;             \
		if (demo_try_result_ < 0)                        \
			return demo_util_fail(#fn, demo_try_result_); \
	} while (0)
/* Writes and closes f (opened by the caller before rendering, so a bad path fails fast). */
int demo_util_ppm_write(FILE *f, const char *path, const uint8_t *rgba, uint32_t width, uint32_t height);

void demo_math_frame_constants_fill(struct demo_frame_constants *fc, const struct demo_options *opt, uint32_t frame);

/* demo_shaders.c: SPIR-V compiled from shaders/ at build time. */
enum demo_shader {
	DEMO_SHADER_SHADOW_VERT,
	DEMO_SHADER_SHADOW_FRAG,
	DEMO_SHADER_GBUFFER_VERT,
	DEMO_SHADER_GBUFFER_FRAG,
	DEMO_SHADER_STRIP_VERT,
	DEMO_SHADER_LIGHTING_FRAG,
	DEMO_SHADER_POSTPROCESS_COMP,
	DEMO_SHADER_COMPOSITE_FRAG,
	DEMO_SHADER_COUNT
};
const uint32_t *demo_shaders_code(enum demo_shader shader, size_t *size_bytes);

/* demo_device.c */
VkResult demo_device_create(struct demo_context *ctx);
void demo_device_destroy(struct demo_context *ctx);
void demo_device_object_name(struct demo_context *ctx, VkObjectType type, uint64_t handle, const char *name);
VkResult demo_device_memory_allocate(struct demo_context *ctx, const VkMemoryRequirements *req, VkMemoryPropertyFlags required,
			      VkMemoryPropertyFlags preferred, VkDeviceMemory *memory, VkMemoryPropertyFlags *granted);

/* demo_scene.c: images, render passes, pipelines, descriptors, per-frame slots. */
VkResult demo_scene_create(struct demo_context *ctx);
void demo_scene_destroy(struct demo_context *ctx);
/* Attachment i of a pass's targets, its colours first, then its depth: the image, and in
 * *layout the one layout it keeps through the pass. */
const struct demo_image *demo_scene_attachment(const struct demo_targets *t, uint32_t i, VkImageLayout *layout);

/* demo_record.c */
VkResult demo_record_frame(struct demo_context *ctx, struct demo_frame_slot *slot, uint32_t slot_index, uint32_t frame);
